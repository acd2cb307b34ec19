// Child names another owner holds. Metacontroller creates the children a hook answers; when an object of that name
// already exists and is not the parent's (another parent's child, something made by hand), its create fails and it
// says nothing to the hook (dynamic apply swallows AlreadyExists; server-side apply would even take the object
// over). The hook would then report a child it does not have, and the clients of that name would reach the other
// owner's pods. So a kind asks for each name its children may take as a related object (customize, by name, in the
// parent's namespace: `namedRules`), and before anything depends on a name, checks who holds it (`takenNames`):
// an object of that name that is neither observed as the parent's child nor owned by the parent's UID belongs to
// someone else, and the parent answers Ready=False `<Kind>NameTaken` naming the holder, creating and changing
// nothing (`heldForTakenNames`). A held parent remembers who held each name (status.heldBy): when the name is free
// for a moment (its object deleted), it stays held while that holder still exists and wants the name, for the kinds
// whose holders it can judge (`HolderWants`: a kind whose parents can want one name, such as two S3 resources
// naming one secretName, asks customize for the parents of its kind and judges them by their childNames).
import { conditionsFor, currentStatus } from './hook.js';
import type { ConditionInput } from './conditions.js';
import type {
  CompositeSyncRequest,
  CompositeSyncResponse,
  KubeObject,
  ParentObject,
  RelatedResourceRule,
  Status,
} from './metacontroller.js';
import { allObserved, keepObserved, observedNamed } from './objects.js';

/** A child a parent may want, by type and name. */
export interface ChildName {
  apiVersion: string;
  kind: string;
  name: string;
}

/** The API resource of each child kind the operators make (the plural a customize rule names). */
const RESOURCES: Readonly<Record<string, string>> = {
  ConfigMap: 'configmaps',
  CronJob: 'cronjobs',
  Deployment: 'deployments',
  Job: 'jobs',
  PersistentVolumeClaim: 'persistentvolumeclaims',
  Pod: 'pods',
  PodDisruptionBudget: 'poddisruptionbudgets',
  Secret: 'secrets',
  Service: 'services',
  StatefulSet: 'statefulsets',
};

/** Seconds before a parent held by a taken name looks again (the holder may be gone by then). */
export const TAKEN_RESYNC_SECONDS = 30;

/**
 * The customize rules that ask for the objects these names name, whoever owns them: one rule per type, in the
 * parent's namespace (a rule naming objects without one lists every namespace in Metacontroller v4.17), names
 * sorted and without repeats.
 */
export function namedRules(namespace: string, names: readonly ChildName[]): RelatedResourceRule[] {
  const byType = new Map<string, { apiVersion: string; resource: string; names: Set<string> }>();
  for (const n of names) {
    const resource = RESOURCES[n.kind];
    if (!resource) throw new Error(`lib/ownership: no resource known for kind ${n.kind}`);
    const key = `${n.apiVersion} ${resource}`;
    let entry = byType.get(key);
    if (!entry) byType.set(key, (entry = { apiVersion: n.apiVersion, resource, names: new Set() }));
    entry.names.add(n.name);
  }
  return [...byType.keys()].sort().map((key) => {
    const e = byType.get(key)!;
    return { apiVersion: e.apiVersion, resource: e.resource, namespace, names: [...e.names].sort() };
  });
}

interface OwnerRef {
  apiVersion?: unknown;
  kind?: unknown;
  name?: unknown;
  uid?: unknown;
  controller?: unknown;
}

/** The controller reference of an object (observed data: any entry may be malformed). */
export function controllerOf(obj: KubeObject): OwnerRef | undefined {
  const refs = (obj.metadata as { ownerReferences?: unknown }).ownerReferences;
  if (!Array.isArray(refs)) return undefined;
  return (refs as unknown[]).find((r): r is OwnerRef => (r as OwnerRef | null)?.controller === true);
}

/** A name another owner holds: the child wanted, and who holds it, in words. */
export interface TakenName {
  child: ChildName;
  holder: string;
  /** The holder's controller reference, when it names one: remembered while held (status.heldBy). */
  ref?: HolderRef;
  /** The holder, recorded, was not among the related objects: since when (HeldRecord.unseenSince). */
  unseenSince?: string;
  /**
   * The object was left behind by a parent of the same name (kubectl delete --cascade=orphan): no controller, the
   * labels metaops gives this parent's children, and the `controller-uid` label of the parent before (its value).
   */
  orphanOf?: string;
}

/** The `controller-uid` of the parent before, when `obj` is a child it left behind (TakenName.orphanOf). */
function orphanOf(parent: ParentObject, obj: KubeObject): string | undefined {
  if (controllerOf(obj) || obj.metadata.deletionTimestamp) return undefined;
  const labels = obj.metadata.labels;
  if (!labels || typeof labels !== 'object') return undefined;
  const uid = labels['controller-uid'];
  const mine =
    labels['app.kubernetes.io/instance'] === parent.metadata.name &&
    labels['app.kubernetes.io/managed-by'] === 'metaops';
  return mine && typeof uid === 'string' && uid !== '' && uid !== parent.metadata.uid ? uid.slice(0, 63) : undefined;
}

/** Who holds an object, in words: its controller (kind, name, uid), or nobody. */
export function holderOf(obj: KubeObject): string {
  const ref = controllerOf(obj);
  const going = obj.metadata.deletionTimestamp ? ' (being deleted)' : '';
  if (!ref) return `no controller (made by hand, or left behind)${going}`;
  const text = (v: unknown) => (typeof v === 'string' && v ? v.slice(0, 253) : '?');
  return `${text(ref.kind)} ${text(ref.name)} (uid ${text(ref.uid)})${going}`;
}

/** A controller reference, complete: who holds a name. */
export interface HolderRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
}

/**
 * What a held parent remembers in its status (`status.heldBy`, heldBySchema): each taken name and who held it. A
 * name that is free for a moment (its object deleted, by hand or by a clean-up) is still the holder's while the
 * holder exists and wants it: the holder makes it again, and a parent that took it meanwhile would serve the
 * holder's clients (and the holder would be the one held). At most LISTED records.
 */
export interface HeldRecord {
  child: ChildName;
  holder: HolderRef;
  /**
   * The name free and the holder not among the related objects since this time (RFC 3339): held until
   * HOLDER_UNSEEN_SECONDS after it, unless the holder is seen (HolderJudge.askedFor tells when "not sent" is "gone").
   */
  unseenSince?: string;
}

/**
 * How long a recorded holder that the related objects do not show keeps a free name, from the first sync that did
 * not see it. Customize asks for a holder whose name the parent's own name makes whatever the status (lib/holders.ts
 * holderRules); one whose kind's spec chooses the name (an S3 resource's spec.secretName) only because status.heldBy
 * records it. Metacontroller keeps each customize answer per parent uid and generation (v4.17.2
 * pkg/controller/common/customize/manager.go, 20 minutes) and a status write does not change the generation: a
 * holder recorded since the answer was asked is not sent, though it exists. Longer than that cache keeps an answer:
 * by then v4 has asked customize again, and sends the holder if it exists (v1.5.20 keeps the answer until the
 * generation changes: there the bound is what lets a holder gone for good go). lib/schemas.ts heldBySchema says it.
 */
export const HOLDER_UNSEEN_SECONDS = 30 * 60;

/** The status field of the records (HeldRecord). */
export const HELD_BY = 'heldBy';

/** The longest string a record keeps (a Kubernetes name). */
const NAME_MAX = 253;

function refOf(obj: KubeObject): HolderRef | undefined {
  const ref = controllerOf(obj);
  const ok = (v: unknown): v is string => typeof v === 'string' && v !== '' && v.length <= NAME_MAX;
  if (!ref || !ok(ref.apiVersion) || !ok(ref.kind) || !ok(ref.name) || !ok(ref.uid)) return undefined;
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid };
}

/**
 * The records a held answer keeps: each taken name whose holder is a controller, at most LISTED, the first of each
 * holder before a second of any: a holder of many names (a StatefulSet's pods) does not crowd out another's record
 * (its parent's Service), which is what keeps the parent held while all of them are gone at once.
 */
export function heldRecords(taken: readonly TakenName[]): HeldRecord[] {
  const all = taken.flatMap((t) =>
    t.ref ? [{ child: t.child, holder: t.ref, ...(t.unseenSince ? { unseenSince: t.unseenSince } : {}) }] : [],
  );
  const seen = new Set<string>();
  const first = all.filter((r) => !seen.has(r.holder.uid) && seen.add(r.holder.uid));
  return [...first, ...all.filter((r) => !first.includes(r))].slice(0, LISTED);
}

/** The records of the parent's status (observed data: an entry that is not a complete record is ignored). */
export function heldRecordsOf(parent: ParentObject): HeldRecord[] {
  const list = (parent.status as Record<string, unknown> | undefined)?.[HELD_BY];
  if (!Array.isArray(list)) return [];
  const ok = (v: unknown): v is string => typeof v === 'string' && v !== '' && v.length <= NAME_MAX;
  return (list as unknown[])
    .filter((r): r is HeldRecord => {
      const c = (r as Partial<HeldRecord> | null)?.child;
      const h = (r as Partial<HeldRecord> | null)?.holder;
      return (
        !!c &&
        !!h &&
        ok(c.apiVersion) &&
        ok(c.kind) &&
        ok(c.name) &&
        ok(h.apiVersion) &&
        ok(h.kind) &&
        ok(h.name) &&
        ok(h.uid)
      );
    })
    .slice(0, LISTED)
    .map((r) => {
      const record: HeldRecord = {
        child: { apiVersion: r.child.apiVersion, kind: r.child.kind, name: r.child.name },
        holder: { apiVersion: r.holder.apiVersion, kind: r.holder.kind, name: r.holder.name, uid: r.holder.uid },
      };
      const since = unseenTime(r.unseenSince);
      return since === undefined ? record : { ...record, unseenSince: since };
    });
}

/** A recorded unseen time, when it is one (RFC 3339, as this module writes it; observed data). */
function unseenTime(v: unknown): string | undefined {
  if (typeof v !== 'string' || v.length > 40 || !/^\d{4}-\d{2}-\d{2}T[0-9:.]+Z$/.test(v)) return undefined;
  return Number.isFinite(Date.parse(v)) ? v : undefined;
}

/** The status without the records (a parent no longer held). */
export function withoutHeldRecords<T extends Record<string, unknown>>(status: T): T {
  if (!(HELD_BY in status)) return status;
  const { [HELD_BY]: _records, ...rest } = status;
  return rest as T;
}

/**
 * The names a holder wants, by the holder's object (its kind's childNames): undefined when the kind is not one the
 * caller can judge (then a record of it holds nothing).
 */
export type HolderWants = (holder: KubeObject) => readonly ChildName[] | undefined;

/**
 * How a parent judges the holders it recorded: what a holder wants (HolderWants), whether customize asks for a holder
 * whatever the parent's status (`askedFor`: then a holder not sent does not exist), and the time of the sync (a
 * holder customize asks for only because the status records it, not sent, keeps the name HOLDER_UNSEEN_SECONDS).
 */
export interface HolderJudge {
  wants: HolderWants;
  /** `always`: asked for whatever the status (not sent is gone); `recorded`: only as status.heldBy records it. */
  askedFor: (parent: ParentObject, holder: HolderRef) => 'always' | 'recorded' | undefined;
  now: Date;
}

/** The judge's parts: a bare HolderWants judges only the holders sent (a caller that judges the others itself). */
function judgeOf(judge: HolderWants | HolderJudge | undefined): Partial<HolderJudge> {
  return typeof judge === 'function' ? { wants: judge } : (judge ?? {});
}

/**
 * A name free now that the parent's status records as held by another owner that still exists (among the related
 * objects, the same UID, not being deleted) and still wants it (`wants`).
 */
function stillHeld(
  request: CompositeSyncRequest,
  child: ChildName,
  records: readonly HeldRecord[],
  judge: Partial<HolderJudge>,
): TakenName | undefined {
  const { wants } = judge;
  if (!wants) return undefined;
  const namespace = request.parent.metadata.namespace ?? '';
  const same = (a: ChildName, b: ChildName) => a.kind === b.kind && a.apiVersion === b.apiVersion && a.name === b.name;
  for (const { child: recorded, holder, unseenSince } of records) {
    if (!same(recorded, child) || holder.uid === request.parent.metadata.uid) continue;
    const obj = observedNamed(request.related, holder.kind, holder.apiVersion, holder.name, namespace);
    const judged = obj ? wants(obj) : undefined;
    if (obj && judged !== undefined) {
      if (obj.metadata.uid !== holder.uid || obj.metadata.deletionTimestamp) continue;
      if (!judged.some((c) => same(c, child))) continue;
      return {
        child,
        holder: `${holder.kind} ${holder.name} (uid ${holder.uid}), which still exists and wants it (the ${child.kind} is gone for a moment: it makes it again)`,
        ref: holder,
      };
    }
    const parent = wantingParent(
      request,
      { apiVersion: holder.apiVersion, kind: holder.kind, name: holder.name },
      child,
      wants,
    );
    if (!parent) {
      const unseen = obj ? undefined : unseenHolder(request.parent, child, holder, unseenSince, judge);
      if (unseen) return unseen;
      continue;
    }
    return {
      child,
      holder: `${holder.kind} ${holder.name} (uid ${holder.uid}) of ${parent.kind} ${parent.metadata.name} (uid ${String(parent.metadata.uid)}), which still exists and wants it (the ${child.kind} is gone for a moment: it makes it again)`,
      ref: holder,
    };
  }
  return undefined;
}

/**
 * A recorded holder the related objects do not show. Gone when customize asks for it whatever the parent's status
 * (askedFor `always`), or when it is of a kind that declared no names; otherwise it may be a holder recorded after
 * Metacontroller asked customize for this generation (HOLDER_UNSEEN_SECONDS): the name stays its own until that long
 * after the first sync that did not see it. Without a time (a caller that judges such holders itself), not judged.
 */
function unseenHolder(
  parent: ParentObject,
  child: ChildName,
  holder: HolderRef,
  unseenSince: string | undefined,
  { askedFor, now }: Partial<HolderJudge>,
): TakenName | undefined {
  if (!askedFor || !now || askedFor(parent, holder) !== 'recorded') return undefined;
  // A recorded time after this sync's (a clock gone back, a status written by hand) counts from now: never longer.
  const since = unseenSince && Date.parse(unseenSince) <= now.getTime() ? unseenSince : now.toISOString();
  const until = new Date(Date.parse(since) + HOLDER_UNSEEN_SECONDS * 1000);
  if (now.getTime() > until.getTime()) return undefined;
  return {
    child,
    holder: `${holder.kind} ${holder.name} (uid ${holder.uid}), which the related objects do not show since ${since}: Metacontroller keeps its customize answer for this generation (v4.17: 20 minutes), so a holder recorded since is not sent although it exists; the name stays its own until ${until.toISOString()} unless it is seen gone`,
    ref: holder,
    unseenSince: since,
  };
}

/**
 * A holder of a kind no parent's hook judges (a StatefulSet that makes a MySQLCluster's pods: a pod's controller is
 * the StatefulSet, not its parent) is judged by the parent that makes it: a related object, in the parent's
 * namespace, not being deleted and not the parent itself, that still wants both the holder (by its kind's child
 * names) and the name. At most the related objects customize asked for, for at most LISTED records.
 */
function wantingParent(
  request: CompositeSyncRequest,
  holder: ChildName,
  child: ChildName,
  wants: HolderWants,
): KubeObject | undefined {
  const namespace = request.parent.metadata.namespace ?? '';
  const same = (a: ChildName, b: ChildName) => a.kind === b.kind && a.apiVersion === b.apiVersion && a.name === b.name;
  return allObserved(request.related).find((obj) => {
    if (obj.metadata.uid === request.parent.metadata.uid || obj.metadata.deletionTimestamp) return false;
    if ((obj.metadata.namespace ?? '') !== namespace) return false;
    const names = wants(obj);
    return !!names && names.some((c) => same(c, holder)) && names.some((c) => same(c, child));
  });
}

/**
 * The wanted names that another owner holds: an object of that type and name in the parent's namespace (among the
 * related objects customize asked for) that is not the parent's. The parent's own are those observed as its
 * children, those whose controller reference is the parent's UID, and those `ours` accepts (objects another of the
 * parent's children makes, such as a StatefulSet's pods). Names not seen at all are free, unless the parent's status
 * records them as held by an owner that still exists and wants them (`wants` judges the holder: stillHeld).
 */
export function takenNames(
  request: CompositeSyncRequest,
  wanted: readonly ChildName[],
  ours?: (child: ChildName, obj: KubeObject) => boolean,
  wants?: HolderWants | HolderJudge,
): TakenName[] {
  const parent = request.parent;
  const namespace = parent.metadata.namespace ?? '';
  const judge = judgeOf(wants);
  const records = judge.wants ? heldRecordsOf(parent) : [];
  const taken: TakenName[] = [];
  for (const child of wanted) {
    const obj = observedNamed(request.related, child.kind, child.apiVersion, child.name, namespace);
    if (!obj) {
      const held = records.length > 0 ? stillHeld(request, child, records, judge) : undefined;
      if (held && !observedNamed(request.children, child.kind, child.apiVersion, child.name, namespace))
        taken.push(held);
      continue;
    }
    if (observedNamed(request.children, child.kind, child.apiVersion, child.name, namespace)) continue;
    const ref = controllerOf(obj);
    if (ref && parent.metadata.uid !== undefined && ref.uid === parent.metadata.uid) continue;
    if (ours?.(child, obj)) continue;
    const before = orphanOf(parent, obj);
    const held = refOf(obj);
    taken.push({
      child,
      holder: holderOf(obj),
      ...(held ? { ref: held } : {}),
      ...(before ? { orphanOf: before } : {}),
    });
  }
  return taken;
}

/** Taken names listed in a condition message, at most this many (a PodSet may want a thousand pods). */
const LISTED = 3;

/**
 * Ready=False `<Kind>NameTaken` (the kind of the first name taken) naming each holder, and what the user can do.
 */
export function takenCondition(parent: ParentObject, taken: readonly TakenName[]): ConditionInput {
  const what = String(parent['kind'] ?? 'parent');
  const listed = taken
    .slice(0, LISTED)
    .map((t) => `${t.child.kind} ${t.child.name} belongs to ${t.holder}`)
    .join('; ');
  const more = taken.length > LISTED ? ` (and ${taken.length - LISTED} more)` : '';
  // Left behind by a parent of this name (kubectl delete --cascade=orphan, to re-create it without touching what runs):
  // Metacontroller adopts an object without a controller once it carries this parent's controller-uid. One command
  // per resource, naming every such object.
  const orphans = taken.filter((t) => t.orphanOf !== undefined);
  const ns = parent.metadata.namespace ?? 'default';
  const byResource = new Map<string, string[]>();
  for (const o of orphans) {
    const resource = RESOURCES[o.child.kind] ?? o.child.kind.toLowerCase();
    byResource.set(resource, [...(byResource.get(resource) ?? []), o.child.name]);
  }
  const commands = [...byResource]
    .map(
      ([r, names]) =>
        `kubectl -n ${ns} label ${r} ${[...names].sort().join(' ')} controller-uid=${parent.metadata.uid ?? ''} --overwrite`,
    )
    .join(' && ');
  const adopt =
    orphans.length === 0
      ? ''
      : `${orphans.length} of them ${orphans.length === 1 ? 'carries' : 'carry'} this ${what}'s labels and another controller-uid (${[...new Set(orphans.map((o) => o.orphanOf))].slice(0, LISTED).join(', ')}): left behind by a ${what} of this name deleted with --cascade=orphan. If they are this ${what}'s, let Metacontroller adopt them: ${commands}`;
  const advice = `rename this ${what}, or delete or rename what holds the name`;
  return {
    type: 'Ready',
    status: false,
    reason: `${taken[0]!.child.kind}NameTaken`,
    message:
      `${listed}${more}: this ${what} does not take or serve another owner's objects, and creates nothing that ` +
      `depends on them; ${orphans.length === taken.length ? adopt : adopt ? `${advice}. ${adopt}` : advice}`,
  };
}

/**
 * The answer of a parent whose children's names another owner holds: every observed child kept as it is (nothing is
 * created, changed or deleted), the status the hook computed (or the parent's own) with Ready replaced by
 * takenCondition and without the fields that name a taken object, and a look again in TAKEN_RESYNC_SECONDS.
 */
export function heldForTakenNames(
  request: CompositeSyncRequest,
  taken: readonly TakenName[],
  now: Date,
  status: Status = currentStatus(request.parent),
  /** Record the holders in status.heldBy (an operator that judges holders: HolderWants; its status has the field). */
  remember = false,
): CompositeSyncResponse {
  const parent = request.parent;
  const [ready] = conditionsFor(parent, [takenCondition(parent, taken)], now);
  const before = Array.isArray(status['conditions']) ? (status['conditions'] as Array<{ type?: unknown }>) : [];
  const others = before.filter((c) => c && typeof c === 'object' && c.type !== 'Ready');
  // A status field that names a taken object (status.writeService, serviceName, ...) would send the clients and tools
  // that read it to the other owner's: it is left out while held.
  const names = new Set(taken.map((t) => t.child.name));
  const kept = Object.fromEntries(
    Object.entries(status).filter(([, v]) => !(typeof v === 'string' && names.has(v))),
  ) as Status;
  const records = remember ? heldRecords(taken) : [];
  return {
    status: {
      ...withoutHeldRecords(kept),
      ...(records.length ? { [HELD_BY]: records } : {}),
      conditions: [ready, ...others],
    },
    children: allObserved(request.children).map(keepObserved),
    resyncAfterSeconds: TAKEN_RESYNC_SECONDS,
  };
}

/** The names of an answer's children that another owner holds (takenNames). */
export function takenIn(
  request: CompositeSyncRequest,
  response: CompositeSyncResponse,
  wants?: HolderWants | HolderJudge,
): TakenName[] {
  if (!request.related) return [];
  // The hook's own children: each with its kind and name (what else an answer may hold names nothing).
  const wanted = response.children.flatMap((c: KubeObject | null) =>
    c?.metadata?.name ? [{ apiVersion: c.apiVersion, kind: c.kind, name: c.metadata.name }] : [],
  );
  return takenNames(request, wanted, undefined, wants);
}

/**
 * The answer as it stands when none of its children's names is held by another owner; otherwise held
 * (heldForTakenNames), with the status the hook computed. Children observed as the parent's are not looked up.
 */
export function guardAnswer(
  request: CompositeSyncRequest,
  response: CompositeSyncResponse,
  now: Date,
  wants?: HolderWants | HolderJudge,
): CompositeSyncResponse {
  const taken = takenIn(request, response, wants);
  if (taken.length === 0) return response;
  return heldForTakenNames(request, taken, now, (response.status as Status | null) ?? undefined, wants !== undefined);
}
