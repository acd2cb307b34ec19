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
// naming one secretName, asks customize for the parents of its kind and judges them by what their answers make now).
// A free name is also kept from a parent whose status holds no record (lost, or never written), while a parent made
// before it, sent by customize, not held itself, makes the name (`keptByEarlier`): the first made keeps the name. A
// parent held for names (`<Kind>NameTaken`) creates nothing, so it keeps no free name from anyone, recorded or not:
// held parents never wait for one another in a circle.
import { conditionsFor, currentStatus } from './hook.js';
import { previousConditions, type Condition, type ConditionInput } from './conditions.js';
import type {
  CompositeSyncRequest,
  CompositeSyncResponse,
  KubeObject,
  ParentObject,
  RelatedResourceRule,
  Status,
} from './metacontroller.js';
import { HELD_BY, heldRecordsOf, NAME_MAX, type ChildName, type HeldRecord, type HolderRef } from './held-records.js';
export { HELD_BY, heldRecordsOf, type ChildName, type HeldRecord, type HolderRef } from './held-records.js';
import { allObserved, keepObserved, observedNamed } from './objects.js';
import { heldDeadline, withheldIn, withheldText } from './replicas.js';

/** A child a parent may want, by type and name. */

/** The API resource of each child kind the operators make (the plural a customize rule names). */
const RESOURCES: Readonly<Record<string, string>> = {
  ConfigMap: 'configmaps',
  CronJob: 'cronjobs',
  Deployment: 'deployments',
  Job: 'jobs',
  NetworkPolicy: 'networkpolicies',
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
  /**
   * The holder is the parent this one replaced: a parent of its kind (API group), namespace and name with another uid
   * (replacedBy). It holds the name while its object is seen (its garbage collection deletes it), and is not recorded.
   */
  replaced?: true;
}

/** An API version's group (`apps` of `apps/v1`, `` of `v1`). */
const groupOf = (apiVersion: string) => apiVersion.slice(0, Math.max(0, apiVersion.lastIndexOf('/')));

/**
 * Whether `holder` is the parent `parent` replaced: of the parent's kind and API group, with the parent's name (a
 * holder's reference is in the parent's namespace: the child it controls is), and another uid. The API server keeps
 * one object per name: that parent is gone (deleted, and made again under its name: kubectl replace --force, a delete
 * and an apply), and nothing can make a child for it again. Its children still seen (being deleted by its garbage
 * collection, or in Metacontroller's informer cache a moment longer) hold their names while seen: never taken over;
 * once they are not seen, it holds nothing (no record: HOLDER_UNSEEN_SECONDS is for a holder that may exist).
 */
export function replacedBy(parent: ParentObject, holder: HolderRef): boolean {
  const uid = parent.metadata.uid;
  return (
    typeof uid === 'string' &&
    uid !== '' &&
    holder.uid !== uid &&
    holder.kind === parent.kind &&
    holder.name === parent.metadata.name &&
    groupOf(holder.apiVersion) === groupOf(String(parent.apiVersion))
  );
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

/** What a holder that is the parent replaced (replacedBy) is, in words, after holderOf. */
const replacedText = (parent: ParentObject) => `the ${String(parent['kind'] ?? 'parent')} of this name before this one`;

/** What the user can do about names the parent replaced holds (takenCondition): nothing but wait, or force a stuck one. */
function replacedAdvice(what: string): string {
  return (
    `the ${what} this one replaced (deleted, and made again under its name) is gone: the garbage collector deletes ` +
    `its children, never taken over, and this ${what} makes them at its next sync once they are gone (one that stays ` +
    `being deleted, a pod on a lost node, goes with kubectl delete --force)`
  );
}

/** Who holds an object, in words: its controller (kind, name, uid), or nobody. */
export function holderOf(obj: KubeObject): string {
  const ref = controllerOf(obj);
  const going = obj.metadata.deletionTimestamp ? ' (being deleted)' : '';
  if (!ref) return `no controller (made by hand, or left behind)${going}`;
  const text = (v: unknown) => (typeof v === 'string' && v ? v.slice(0, 253) : '?');
  return `${text(ref.kind)} ${text(ref.name)} (uid ${text(ref.uid)})${going}`;
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
export function heldRecords(
  taken: readonly TakenName[],
  yieldsTo: (t: TakenName) => HolderRef | undefined = () => undefined,
): HeldRecord[] {
  const all = taken.flatMap((t) => {
    if (!t.ref || t.replaced) return [];
    const to = yieldsTo(t);
    return [
      {
        child: t.child,
        holder: t.ref,
        ...(t.unseenSince ? { unseenSince: t.unseenSince } : {}),
        ...(to ? { yieldsTo: to } : {}),
      },
    ];
  });
  const seen = new Set<string>();
  const first = all.filter((r) => !seen.has(r.holder.uid) && seen.add(r.holder.uid));
  return [...first, ...all.filter((r) => !first.includes(r))].slice(0, LISTED);
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
 * objects, the same UID, not being deleted), still wants it (`wants`), and is not held for names itself (it would not
 * make the name again while held) unless the parent yields to it (keepsNothing).
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
  for (const { child: recorded, holder, unseenSince, yieldsTo: yielded } of records) {
    if (!same(recorded, child) || holder.uid === request.parent.metadata.uid) continue;
    // The parent this one replaced (a record written before it was known so): its children not seen, it holds nothing.
    if (replacedBy(request.parent, holder)) continue;
    const obj = observedNamed(request.related, holder.kind, holder.apiVersion, holder.name, namespace);
    const judged = obj ? wants(obj) : undefined;
    if (obj && judged !== undefined) {
      if (obj.metadata.uid !== holder.uid || obj.metadata.deletionTimestamp) continue;
      if (!judged.some((c) => same(c, child))) continue;
      if (releasedTo(obj, request.parent) || keepsNothing(obj, yielded)) continue;
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
    if (releasedTo(parent, request.parent) || keepsNothing(parent, yielded)) continue;
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
 * records them as held by an owner that still exists and wants them (`wants` judges the holder: stillHeld), or a
 * parent made before this one makes them, records or not (keptByEarlier).
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
  let earlier: readonly EarlierParent[] | undefined;
  const taken: TakenName[] = [];
  for (const child of wanted) {
    const obj = observedNamed(request.related, child.kind, child.apiVersion, child.name, namespace);
    if (!obj) {
      if (!judge.wants || observedNamed(request.children, child.kind, child.apiVersion, child.name, namespace))
        continue;
      earlier ??= earlierParents(request, judge.wants);
      const held =
        (records.length > 0 ? stillHeld(request, child, records, judge) : undefined) ??
        keptByEarlier(parent, child, earlier);
      if (held) taken.push(held);
      continue;
    }
    if (observedNamed(request.children, child.kind, child.apiVersion, child.name, namespace)) continue;
    const ref = controllerOf(obj);
    if (ref && parent.metadata.uid !== undefined && ref.uid === parent.metadata.uid) continue;
    if (ours?.(child, obj)) continue;
    taken.push(takenBy(parent, child, obj));
  }
  return taken;
}

/** The name `child` that `obj`, another owner's object, holds: who holds it, in words and as recorded. */
function takenBy(parent: ParentObject, child: ChildName, obj: KubeObject): TakenName {
  const before = orphanOf(parent, obj);
  const held = refOf(obj);
  const replaced = held !== undefined && replacedBy(parent, held);
  return {
    child,
    holder: replaced ? `${holderOf(obj)}, ${replacedText(parent)}` : holderOf(obj),
    ...(held ? { ref: held } : {}),
    ...(before ? { orphanOf: before } : {}),
    ...(replaced ? { replaced: true as const } : {}),
  };
}

/**
 * Whether a parent's own status says it is held for names another owner holds (Ready=False `<Kind>NameTaken`): it
 * creates nothing meanwhile, so a free name it wants keeps nobody else from it (keptByEarlier, stillHeld). Otherwise
 * parents each held for a name the next one makes, the last wanting a name the first never made, would wait for one
 * another for good. One that waits for names released to it (`<Kind>NameReleasing`) makes them once they are free,
 * and keeps them.
 */
function heldByNames(obj: KubeObject): boolean {
  const ready = previousConditions(obj['status']).find((c) => c.type === 'Ready');
  return ready?.status === 'False' && typeof ready.reason === 'string' && /NameTaken$/.test(ready.reason);
}

/**
 * Whether a recorded holder held for names itself keeps nothing free from the parent (heldByNames), unless the parent
 * yields to it (its record's yieldsTo names it): a parent that released its children to the first made waits for it,
 * else it would take the names again, the first would be held by them and it would release them again, round after
 * round.
 */
function keepsNothing(holder: KubeObject, yielded: HolderRef | undefined): boolean {
  return heldByNames(holder) && yielded?.uid !== holder.metadata.uid;
}

/** A parent made before the one judged, and the names its answer makes now (nameKey). */
interface EarlierParent {
  parent: KubeObject;
  ref: HolderRef;
  names: ReadonlySet<string>;
}

/**
 * The related parents that keep a free name from `request.parent` whatever its own status records (a status lost
 * with a restore from a backup, written over, or a parent made while the name is free for a moment): of a kind
 * `wants` judges, in the parent's namespace, made before it (firstMade: creationTimestamp, the same second the lower
 * uid), not being deleted, and not held for names themselves (heldByNames). Each is judged by the names its answer
 * makes now (lib/holders.ts holderWants: a kind's currentNames and its podNames, from its spec and status), never by
 * every name its kind may take. Customize sends the parents whose children can take the parent's names whatever its
 * status (lib/holders.ts holderRules): this does not depend on a record the parent may have lost. At most the related
 * objects customize asked for; each one's names computed once a sync.
 */
function earlierParents(request: CompositeSyncRequest, wants: HolderWants): EarlierParent[] {
  const parent = request.parent;
  const namespace = parent.metadata.namespace ?? '';
  const out: EarlierParent[] = [];
  for (const h of allObserved(request.related)) {
    const { name, uid } = h.metadata;
    if (!name || !uid || uid === parent.metadata.uid || h.metadata.deletionTimestamp) continue;
    if ((h.metadata.namespace ?? '') !== namespace || firstMade(parent, h) !== 'b' || heldByNames(h)) continue;
    const names = wants(h);
    if (!names || names.length === 0) continue;
    out.push({
      parent: h,
      ref: { apiVersion: h.apiVersion, kind: h.kind, name, uid },
      names: new Set(names.map(nameKey)),
    });
  }
  return out;
}

/**
 * A name free now (no object of it is observed) that a parent made before this one wants (earlierParents): the first
 * made keeps it, and this parent does not take it, whatever its own status records. The holder recorded is that
 * parent (status.heldBy): a parent made later that never served yields to it (heldForTakenNames).
 */
function keptByEarlier(
  parent: ParentObject,
  child: ChildName,
  earlier: readonly EarlierParent[],
): TakenName | undefined {
  const key = nameKey(child);
  const first = earlier.find((e) => e.names.has(key));
  if (!first) return undefined;
  const what = String(parent['kind'] ?? 'parent');
  return {
    child,
    holder: `${parentText(first.parent)}, made before this ${what}, which wants it (no object holds the name now: gone for a moment, or not made yet)`,
    ref: first.ref,
  };
}

/** Taken names listed in a condition message, at most this many (a PodSet may want a thousand pods). */
const LISTED = 3;

/**
 * Ready=False `<Kind>NameTaken` (the kind of the first name taken) naming each holder, and what the user can do; with
 * `side`, what this parent does about a parent that wants the same names (heldForTakenNames): `reason` replaces the
 * reason, `note` follows the message.
 */
export function takenCondition(
  parent: ParentObject,
  taken: readonly TakenName[],
  side?: { reason?: string; note: string },
): ConditionInput {
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
  const replaced = taken.some((t) => t.replaced) ? replacedAdvice(what) : '';
  const advice = taken.every((t) => t.replaced)
    ? replaced
    : `rename this ${what}, or delete or rename what holds the name${replaced ? `. ${replaced}` : ''}`;
  return {
    type: 'Ready',
    status: false,
    reason: side?.reason ?? `${taken[0]!.child.kind}NameTaken`,
    message: side?.reason
      ? `${listed}${more}: ${side.note}`
      : `${listed}${more}: this ${what} does not take or serve another owner's objects, and creates nothing that ` +
        `depends on them; ${orphans.length === taken.length ? adopt : adopt ? `${advice}. ${adopt}` : advice}` +
        (side ? `. ${side.note}` : ''),
  };
}

/**
 * Which of two parents was made first: the earlier creationTimestamp, then (made in the same second, as one
 * `kubectl apply` of a folder makes them, or neither with a time) the lower uid. Undefined when it cannot be told
 * (one has a time and the other not, a uid missing): then neither yields.
 */
export function firstMade(a: KubeObject, b: KubeObject): 'a' | 'b' | undefined {
  const time = (o: KubeObject) => {
    const v = (o.metadata as { creationTimestamp?: unknown }).creationTimestamp;
    return typeof v === 'string' ? Date.parse(v) : NaN;
  };
  const ta = time(a);
  const tb = time(b);
  if (Number.isFinite(ta) !== Number.isFinite(tb)) return undefined;
  if (Number.isFinite(ta) && ta !== tb) return ta < tb ? 'a' : 'b';
  const ua = a.metadata.uid;
  const ub = b.metadata.uid;
  if (typeof ua !== 'string' || typeof ub !== 'string' || !ua || !ub || ua === ub) return undefined;
  return ua < ub ? 'a' : 'b';
}

const nameKey = (c: { apiVersion?: unknown; kind?: unknown; name?: unknown }) =>
  `${String(c.apiVersion)}/${String(c.kind)}/${String(c.name)}`;

/**
 * The parent that holds a taken name: the holder itself when it is a parent of a kind `wants` judges (the same uid,
 * not being deleted), or the parent that makes the holder and wants the name (a StatefulSet's pods: wantingParent).
 */
function holdingParent(request: CompositeSyncRequest, t: TakenName, wants: HolderWants): KubeObject | undefined {
  const ref = t.ref;
  if (!ref) return undefined;
  const namespace = request.parent.metadata.namespace ?? '';
  const obj = observedNamed(request.related, ref.kind, ref.apiVersion, ref.name, namespace);
  const judged = obj ? wants(obj) : undefined;
  // The object's own controller, a parent: it holds the name (what it wants decides only a name free for a moment).
  if (obj && judged !== undefined)
    return obj.metadata.uid !== ref.uid || obj.metadata.deletionTimestamp ? undefined : obj;
  return wantingParent(request, { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name }, t.child, wants);
}

/**
 * The parent's observed children that `holder` wants: those of a name it wants (its kind's names, and those its
 * status.heldBy says it is held for), and those that make an object of such a name (a StatefulSet whose pod takes a
 * member name of the holder's), among the related objects.
 */
function childrenWantedBy(request: CompositeSyncRequest, holder: KubeObject, wants: HolderWants): KubeObject[] {
  const names = new Set([
    ...(wants(holder) ?? []).map(nameKey),
    ...heldRecordsOf(holder as ParentObject).map((r) => nameKey(r.child)),
  ]);
  const makers = new Set<unknown>();
  for (const o of allObserved(request.related))
    if (names.has(nameKey({ ...o, name: o.metadata.name }))) makers.add(controllerOf(o)?.uid);
  return allObserved(request.children).filter(
    (c) =>
      names.has(nameKey({ ...c, name: c.metadata.name })) ||
      (typeof c.metadata.uid === 'string' && c.metadata.uid !== '' && makers.has(c.metadata.uid)),
  );
}

/**
 * Whether a name free now that `holder` (a parent, or the parent that makes the recorded holder) still wants was
 * released to `parent`: the holder was made after it (firstMade) and its status says it yields to it (yieldsTo).
 * Two parents made together: the one made second leaves the names the first wants out of its answer and Metacontroller
 * deletes them; its kind still wants them (its childNames), but it does not make them again while it yields, so the
 * first takes them (else each would wait for the other for good: the first held by a name nobody holds).
 */
function releasedTo(holder: KubeObject, parent: ParentObject): boolean {
  return firstMade(parent, holder) === 'a' && yieldsTo(holder, parent);
}

/** Whether `holder`'s status says it yields to `parent` (HeldRecord.yieldsTo: its uid). */
function yieldsTo(holder: KubeObject, parent: ParentObject): boolean {
  return heldRecordsOf(holder as ParentObject).some((r) => r.yieldsTo?.uid === parent.metadata.uid);
}

/** How heldForTakenNames treats a parent that wants the names another parent wants. */
export interface HeldOptions {
  /** What parents want (HolderWants): finds the parent that holds a taken name, and what it wants of this one's. */
  wants?: HolderWants;
  /**
   * What this parent holds of value, in words (it served clients, a member holds data: from its status or its
   * children, so that a status lost does not hide it), or undefined when it holds nothing: only then does it yield
   * to a parent made before it. A kind that does not say is taken to hold something.
   */
  served?: (request: CompositeSyncRequest) => string | undefined;
  /** The children to keep instead of the observed ones (a kind whose children do not depend on one another). */
  children?: KubeObject[];
}

type Side = { reason?: string; note: string };
type Sides = { released: Set<KubeObject>; yieldTo: Map<TakenName, HolderRef>; side?: Side };

const parentText = (h: KubeObject) => `${h.kind} ${h.metadata.name} (uid ${String(h.metadata.uid)})`;

/**
 * Two parents that want the same names, each holding some (made together): the one made second (firstMade) yields
 * when it never served: it releases every child the first wants (left out of its answer: Metacontroller deletes it)
 * and records it (HeldRecord.yieldsTo); the first, held meanwhile by names its holder releases, says so
 * (`<Kind>NameReleasing`) and carries on once they are free. A second that holds something of value releases
 * nothing: both stay held, and each names the other and what the user can do.
 */
function sides(request: CompositeSyncRequest, taken: readonly TakenName[], options: HeldOptions): Sides {
  const { wants } = options;
  if (!wants) return { released: new Set(), yieldTo: new Map() };
  const holders = taken.map((t) => holdingParent(request, t, wants));
  const before = [...new Set(holders.filter((h): h is KubeObject => !!h && firstMade(request.parent, h) === 'b'))];
  if (before.length > 0) return laterSide(request, taken, holders, before, options);
  return firstSide(request.parent, taken, holders);
}

/** The parent made after `before`: it yields when it never served (HeldOptions.served), else it keeps what it has. */
/**
 * What a later parent that never releases a child (`served`: why) says beside the firsts it is held for: holding
 * something of one of them, neither can carry on; holding nothing of any, the firsts carry on and it takes none of
 * those names while they are wanted there (holdsNoneNote; never "neither": a user told so may delete the first, which
 * serves). A PodSet makes its pods whose names are free meanwhile, and says so (heldForTakenNames makesText).
 */
function keepsNote(
  request: CompositeSyncRequest,
  before: readonly KubeObject[],
  served: string,
  holdsOf: (h: KubeObject, wanted: readonly KubeObject[]) => boolean,
  wants: HolderWants,
): string {
  const what = String(request.parent['kind'] ?? 'parent');
  const first = before.map(parentText).join(', ');
  const holds = before.some((h) => holdsOf(h, childrenWantedBy(request, h, wants)));
  return holds
    ? `${first}, made before this ${what}, wants names this ${what} wants; this ${what} keeps what it holds ` +
        `because ${served}, so neither can carry on: delete or rename one of the two (the one made later is ` +
        `this ${what})`
    : holdsNoneNote(request.parent, before);
}

/** A later parent that holds none of the names the firsts want: they carry on, and it takes none of those names. */
function holdsNoneNote(parent: ParentObject, before: readonly KubeObject[]): string {
  const what = String(parent['kind'] ?? 'parent');
  return (
    `${before.map(parentText).join(', ')}, made before this ${what}, wants names this ${what} wants, and this ` +
    `${what} holds none of them: ${before.length === 1 ? 'it carries' : 'they carry'} on, and this ${what} takes ` +
    `none of those names while they are wanted there. To run both, rename this ${what}`
  );
}

function laterSide(
  request: CompositeSyncRequest,
  taken: readonly TakenName[],
  holders: ReadonlyArray<KubeObject | undefined>,
  before: readonly KubeObject[],
  options: HeldOptions,
): Sides {
  const released = new Set<KubeObject>();
  const yieldTo = new Map<TakenName, HolderRef>();
  const what = String(request.parent['kind'] ?? 'parent');
  const first = before.map(parentText).join(', ');
  const served = options.served
    ? options.served(request)
    : `a ${what} is not judged for what it serves (it never releases a child)`;
  // It holds something of a first: a child the first wants, or one the first is held by.
  const ours = new Set([request.parent.metadata.uid, ...allObserved(request.children).map((c) => c.metadata.uid)]);
  const holdsOf = (h: KubeObject, wanted: readonly KubeObject[]) =>
    wanted.length > 0 || heldRecordsOf(h as ParentObject).some((r) => ours.has(r.holder.uid));
  if (served !== undefined)
    return { released, yieldTo, side: { note: keepsNote(request, before, served, holdsOf, options.wants!) } };
  // It says it yields to a first it holds something of: the first waits for that; to a first it holds nothing of,
  // there is nothing to say. Once said, it keeps saying it while it yields to that first (its own status.heldBy): it
  // released the names, and waits for that first even while the first is held for other names (stillHeld,
  // keepsNothing), rather than take them again and release them again.
  const yielded = new Set(heldRecordsOf(request.parent).flatMap((r) => (r.yieldsTo ? [r.yieldsTo.uid] : [])));
  const told = new Set<KubeObject>();
  for (const h of before) {
    const wanted = childrenWantedBy(request, h, options.wants!);
    for (const c of wanted) released.add(c);
    if (yielded.has(h.metadata.uid!) || holdsOf(h, wanted)) told.add(h);
  }
  taken.forEach((t, i) => {
    const h = holders[i];
    if (h && told.has(h))
      yieldTo.set(t, { apiVersion: h.apiVersion, kind: h.kind, name: h.metadata.name!, uid: h.metadata.uid! });
  });
  // Nothing to release and nothing said before: it holds none of the names, whether or not it served (keepsNote).
  if (released.size === 0 && told.size === 0)
    return { released, yieldTo, side: { note: holdsNoneNote(request.parent, before) } };
  const names = [...released].map((c) => `${c.kind} ${c.metadata.name}`).sort();
  const more = names.length > LISTED ? ` (and ${names.length - LISTED} more)` : '';
  const releases = names.length
    ? `it releases ${names.slice(0, LISTED).join(', ')}${more} (Metacontroller deletes ${names.length === 1 ? 'it' : 'them'}), and `
    : '';
  return {
    released,
    yieldTo,
    side: {
      note:
        `${first}, made before this ${what}, wants names this ${what} wants: this ${what} never served, so it ` +
        `yields: ${releases}it stays held while the names are wanted there. To run both, rename this ${what}`,
    },
  };
}

/**
 * The parent made before every parent that holds its names: it waits (`<Kind>NameReleasing`) while each name is held
 * by such a parent that says it yields to it (HeldRecord.yieldsTo); otherwise it is held, naming those that do not.
 */
function firstSide(
  parent: ParentObject,
  taken: readonly TakenName[],
  holders: ReadonlyArray<KubeObject | undefined>,
): Sides {
  const none: Sides = { released: new Set(), yieldTo: new Map() };
  const what = String(parent['kind'] ?? 'parent');
  const after = [...new Set(holders.filter((h): h is KubeObject => !!h && firstMade(parent, h) === 'a'))];
  if (after.length === 0) return none;
  const keeping = after.filter((h) => !yieldsTo(h, parent));
  if (keeping.length > 0)
    return {
      ...none,
      side: {
        note:
          `${keeping.map(parentText).join(', ')}, made after this ${what}, wants names this ${what} wants and does ` +
          `not say it releases them (a parent made later releases them only when it never served; its Ready ` +
          `condition says why it keeps them): delete or rename one of the two`,
      },
    };
  if (!holders.every((h) => !!h && after.includes(h))) return none;
  return {
    ...none,
    side: {
      reason: `${taken[0]!.child.kind}NameReleasing`,
      note:
        `${after.map(parentText).join(', ')}, made after this ${what}, never served and releases them (its ` +
        `status.heldBy says yieldsTo this ${what}): this ${what} creates nothing that depends on them meanwhile, ` +
        `carries on once the names are free, and looks again in ${TAKEN_RESYNC_SECONDS} s`,
    },
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
  /**
   * Record the holders in status.heldBy (`true`, or `remember` of the options: an operator that judges holders,
   * HolderWants; its status has the field), and how a parent that wants the same names is treated (HeldOptions).
   */
  held: boolean | (HeldOptions & { remember?: boolean }) = false,
): CompositeSyncResponse {
  const parent = request.parent;
  const options: HeldOptions = typeof held === 'boolean' ? {} : held;
  const remember = typeof held === 'boolean' ? held : held.remember === true;
  const { released, yieldTo, side } = sides(request, taken, options);
  const children = options.children ?? allObserved(request.children).map(keepObserved);
  const gone = new Set([...released].map((c) => nameKey({ ...c, name: c.metadata.name })));
  const keptChild = (c: KubeObject | null) => !!c && !gone.has(nameKey({ ...c, name: c.metadata?.name }));
  const answered = children.filter(keptChild);
  // Children that do not depend on one another (a PodSet's pods): held for some names, it makes the others; what it
  // makes meanwhile is said, never left to a user to guess from "held".
  const independent = options.children !== undefined;
  const makes = independent ? makesText(parent, taken, answered) : undefined;
  const said = makes ? { ...side, note: side ? `${side.note}. ${makes}` : makes } : side;
  const [ready] = conditionsFor(parent, [takenCondition(parent, taken, said)], now);
  const before = Array.isArray(status['conditions']) ? (status['conditions'] as Array<{ type?: unknown }>) : [];
  // Progressing judged on what the parent makes while held (lib/replicas.ts heldDeadline: the members under held
  // names left out and named), else the hold. A workload kept as observed whose spec the hook's answer changes
  // (withheldIn) is never given it while held: its Progressing (the change under way, or a rest its counts show for
  // the spec it was given before) says the hold.
  const withheld = independent ? undefined : withheldIn(status);
  const judged = (): Condition =>
    heldDeadline(parent, status, { heldMembers: heldPods(taken), independent, hold: holdText(taken) }, now) ??
    heldProgressing(parent, ready!, now, withheld);
  const others = before
    .filter((c) => c && typeof c === 'object' && c.type !== 'Ready')
    .map((c) => (heldProgress(c) || (withheld !== undefined && c.type === 'Progressing') ? judged() : c));
  // A status field that names a taken object (status.writeService, serviceName, ...) would send the clients and tools
  // that read it to the other owner's: it is left out while held.
  const names = new Set([...taken.map((t) => t.child.name), ...[...released].map((c) => c.metadata.name)]);
  const kept = Object.fromEntries(
    Object.entries(status).filter(([, v]) => !(typeof v === 'string' && names.has(v))),
  ) as Status;
  const records = remember ? heldRecords(taken, (t) => yieldTo.get(t)) : [];
  return {
    status: {
      ...withoutHeldRecords(kept),
      ...(records.length ? { [HELD_BY]: records } : {}),
      conditions: [ready, ...others],
    },
    children: answered,
    resyncAfterSeconds: TAKEN_RESYNC_SECONDS,
  };
}

/**
 * What a parent whose children do not depend on one another (HeldOptions.children: a PodSet's pods) makes while held:
 * its children of the kinds of the taken names that its answer keeps (their names free, not released), at most
 * LISTED named; or that it makes none of that kind.
 */
function makesText(parent: ParentObject, taken: readonly TakenName[], answered: readonly KubeObject[]): string {
  const what = String(parent['kind'] ?? 'parent');
  const kinds = new Set(taken.map((t) => `${t.child.apiVersion}/${t.child.kind}`));
  const kindText = [...new Set(taken.map((t) => t.child.kind))].join(' or ');
  const made = answered
    .filter((c) => kinds.has(`${c.apiVersion}/${c.kind}`) && typeof c.metadata?.name === 'string')
    .map((c) => c.metadata.name!);
  if (made.length === 0) return `This ${what} makes no ${kindText} meanwhile`;
  const more = made.length > LISTED ? ` (and ${made.length - LISTED} more)` : '';
  return (
    `This ${what} makes its other ${kindText}s meanwhile, whose names are free: ` +
    `${made.slice(0, LISTED).join(', ')}${more}`
  );
}

/**
 * Whether a Progressing condition says members are missing (Creating, ScalingUp) or that making them is past the
 * progress deadline (lib/replicas.ts stalled): the hook judged that without the hold, which makes nothing under a
 * held name by design.
 */
function heldProgress(c: { type?: unknown; status?: unknown; reason?: unknown }): boolean {
  if (c.type !== 'Progressing') return false;
  if (c.status === 'True') return c.reason === 'Creating' || c.reason === 'ScalingUp' || c.reason === 'WaitingForReady';
  return c.status === 'False' && c.reason === 'ProgressDeadlineExceeded';
}

/** The member names (pods) among the taken names: members the parent cannot make while held. */
function heldPods(taken: readonly TakenName[]): number {
  return new Set(taken.filter((t) => t.child.kind === 'Pod' && t.child.apiVersion === 'v1').map((t) => t.child.name))
    .size;
}

/** The taken names in words, for a Progressing message (at most LISTED named, "and N more"). */
function holdText(taken: readonly TakenName[]): string {
  const names = [...new Set(taken.map((t) => `${t.child.kind} ${t.child.name}`))].sort();
  const more = names.length > LISTED ? ` and ${names.length - LISTED} more` : '';
  const one = names.length === 1;
  return `${names.slice(0, LISTED).join(', ')}${more} ${one ? 'is' : 'are'} another owner's, not made nor counted; Ready says whose`;
}

/**
 * Progressing while held (heldForTakenNames): members missing under a held name are the hold's, not a refused creation
 * (no ProgressDeadlineExceeded blaming the API server, no `Created` taken as asked before: lib/replicas.ts
 * creationAsked). False with Ready's reason (told once, as Ready's: lib/events.ts); once the name is free the reason
 * turns to Creating/ScalingUp again, and the progress deadline counts from then (lib/replicas.ts progressStamp).
 * `withheld`: the workload kept as observed with a spec it was never given (lib/replicas.ts withheldIn), said instead.
 */
function heldProgressing(parent: ParentObject, ready: { reason?: unknown }, now: Date, withheld?: string): Condition {
  const reason = typeof ready.reason === 'string' ? ready.reason : 'NameTaken';
  const message = withheld
    ? `${withheldText(withheld)} (Ready says which name is another owner's)`
    : 'no member is made under a name another owner holds (Ready says which) until that name is free';
  const [progressing] = conditionsFor(parent, [{ type: 'Progressing', status: false, reason, message }], now);
  return progressing!;
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

/** Whether an answer is one the hook held for taken names already (its Ready `<Kind>NameTaken` or `NameReleasing`). */
function heldAnswer(response: CompositeSyncResponse): boolean {
  const ready = previousConditions(response.status).find((c) => c.type === 'Ready');
  return typeof ready?.reason === 'string' && /Name(Taken|Releasing)$/.test(ready.reason);
}

/**
 * The names of this parent's children that a parent made before it (firstMade) is held for: that parent's
 * status.heldBy records this parent, or one of its children (a StatefulSet whose pod takes a member name), as their
 * holder. Two parents made together each create what they can; when the one made second got every name it wants
 * first, it is held by none, and would never learn that the first waits for it. Given as taken names (the holder:
 * the first parent), so that heldForTakenNames judges it as it judges a parent held by the first: it yields when it
 * never served (HeldOptions.served), else it keeps what it holds and both name each other. At most LISTED parents'
 * records, in the parent's namespace, not being deleted; the first's records are observed data.
 */
export function wantedByFirst(request: CompositeSyncRequest, wants: HolderWants): TakenName[] {
  const parent = request.parent;
  const namespace = parent.metadata.namespace ?? '';
  const ours = new Set(
    [parent.metadata.uid, ...allObserved(request.children).map((c) => c.metadata.uid)].filter(
      (u): u is string => typeof u === 'string' && u !== '',
    ),
  );
  const what = String(parent['kind'] ?? 'parent');
  const out: TakenName[] = [];
  for (const h of allObserved(request.related)) {
    if (h.metadata.uid === parent.metadata.uid || h.metadata.deletionTimestamp) continue;
    if ((h.metadata.namespace ?? '') !== namespace || wants(h) === undefined) continue;
    if (firstMade(parent, h) !== 'b' || !h.metadata.name || !h.metadata.uid) continue;
    const ref: HolderRef = { apiVersion: h.apiVersion, kind: h.kind, name: h.metadata.name, uid: h.metadata.uid };
    for (const r of heldRecordsOf(h as ParentObject)) {
      if (!ours.has(r.holder.uid)) continue;
      out.push({
        child: r.child,
        holder: `this ${what} now, and is wanted by ${parentText(h)}, made before it, which is held for it (its status.heldBy)`,
        ref,
      });
    }
    if (out.length >= LISTED * LISTED) break;
  }
  return out;
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
  options: {
    /** HeldOptions.served: what the parent holds of value, when it says (else it never yields). */
    served?: (request: CompositeSyncRequest) => string | undefined;
    /**
     * The children do not depend on one another (a PodSet's pods): only the taken names are held; every other child
     * of the answer is answered as the hook made it (a lost pod is made again under its free name).
     */
    independent?: boolean;
  } = {},
): CompositeSyncResponse {
  const judged = judgeOf(wants).wants;
  const taken = takenIn(request, response, wants);
  if (taken.length === 0) {
    // A parent made before this one waits for names this one holds: this one yields when it never served; one that
    // served carries on as it is (the first stays held, naming it). An answer the hook held already says so itself.
    if (heldAnswer(response)) return response;
    const first = judged && options.served ? wantedByFirst(request, judged) : [];
    if (first.length === 0 || options.served!(request) !== undefined) return response;
    // Children that do not depend on one another: every one but those the first wants is answered as the hook made it.
    return heldForTakenNames(request, first, now, (response.status as Status | null) ?? undefined, {
      wants: judged!,
      served: options.served!,
      ...(options.independent ? { children: answeredBut(response, first) } : {}),
      remember: true,
    });
  }
  const held: HeldOptions = {
    ...(judged ? { wants: judged } : {}),
    ...(options.served ? { served: options.served } : {}),
    ...(options.independent ? { children: answeredBut(response, taken) } : {}),
  };
  return heldForTakenNames(request, taken, now, (response.status as Status | null) ?? undefined, {
    ...held,
    remember: wants !== undefined,
  });
}

/** The answer's children but those of the taken names (HeldOptions.children of a kind whose children are independent). */
function answeredBut(response: CompositeSyncResponse, taken: readonly TakenName[]): KubeObject[] {
  const names = new Set(taken.map((t) => nameKey(t.child)));
  return response.children.filter(
    (c: KubeObject | null): c is KubeObject => !!c && !names.has(nameKey({ ...c, name: c.metadata?.name })),
  );
}

/**
 * What a parent's own status says it served (HeldOptions.served): Ready=True, or Ready members counted. Undefined
 * when it says neither (or the status is lost: a kind also judges its children).
 */
export function servedByStatus(parent: ParentObject): string | undefined {
  const status = (parent.status ?? {}) as { conditions?: unknown; readyReplicas?: unknown };
  const conditions = Array.isArray(status.conditions) ? (status.conditions as unknown[]) : [];
  if (
    conditions.some(
      (c) => (c as { type?: unknown } | null)?.type === 'Ready' && (c as { status?: unknown }).status === 'True',
    )
  )
    return 'its status says it is Ready';
  if (typeof status.readyReplicas === 'number' && status.readyReplicas > 0)
    return `its status counts ${status.readyReplicas} Ready member(s)`;
  return undefined;
}

/**
 * Whether a pod's containers (not its init containers) ever started: one runs or ended, or was restarted, or is
 * Ready. A member whose server never started holds no data (HeldOptions.served).
 */
export function containersStarted(pod: KubeObject): boolean {
  const statuses = (pod['status'] as { containerStatuses?: unknown } | undefined)?.containerStatuses;
  if (!Array.isArray(statuses)) return false;
  return (statuses as unknown[]).some((raw) => {
    const c = (raw ?? {}) as {
      state?: Record<string, unknown>;
      lastState?: Record<string, unknown>;
      restartCount?: unknown;
      ready?: unknown;
      started?: unknown;
    };
    return (
      c.ready === true ||
      c.started === true ||
      (typeof c.restartCount === 'number' && c.restartCount > 0) ||
      !!c.state?.['running'] ||
      !!c.state?.['terminated'] ||
      !!c.lastState?.['terminated'] ||
      !!c.lastState?.['running']
    );
  });
}
