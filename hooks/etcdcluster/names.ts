// The names an EtcdCluster's children may take, and which of them the customize answer Metacontroller holds asked for.
//
// Customize asks for each child name by name, whoever owns it (lib/ownership.ts): a name another owner holds is then
// seen, and the cluster is held (`<Kind>NameTaken`) before it makes or adds anything under it. A member's name is
// `<name>-<ordinal>`, and ordinals only grow (a member replaced takes a new one), so the names a cluster may take
// next depend on its status (status.lastMemberIndex, status.memberList). Metacontroller keeps a customize answer per
// parent and generation (v1.5.20 until the generation changes; v4.17.2 up to 20 minutes, then asks again with the
// parent of that moment), and a status write does not change the generation: the answer in use was asked with the
// status of the first sync of the generation (or, on v4, a later one). A member name beyond what that answer asked
// for is not sent even when another owner holds it, and the collision check would be blind to it.
//
// So the cluster records, at the first sync of each generation, the status its answer was asked with
// (status.namesAskedWith: the generation, the last member index and the members then), and a sync that wants to make
// a pod or claim under a member name that answer did not ask for makes nothing and changes no membership: Ready=False
// `MemberNameNotChecked`, every observed child kept, until the generation changes (any spec change) and the name is
// asked for. Customize asks NAMES_AHEAD ordinals past the last one, so that this takes that many new member names
// without a spec change (members replaced, restores).
import {
  allObserved,
  type ChildName,
  type CompositeSyncRequest,
  type CompositeSyncResponse,
  conditionsFor,
  currentStatus,
  holderJudge,
  keepObserved,
  observedNamed,
  type ParentObject,
  type Status,
  takenNames,
} from '../../lib/index.js';
import { checkPodName } from './restore.js';
import { networkPolicyName, restoreCheckPolicyName } from './network.js';
import { MAX_SIZE } from './schema.js';

/** How many member ordinals past the last one customize asks for (member names a cluster may take next). */
export const NAMES_AHEAD = 8 * MAX_SIZE;

/** The most members a status lists (a cluster's members and as many being replaced). */
const MAX_LISTED = 2 * MAX_SIZE;

/** The status field of the record (NamesAskedWith). */
export const NAMES_ASKED_WITH = 'namesAskedWith';

/** What the customize answer of a generation was asked with: the parts of the status its names depend on. */
export interface NamesAskedWith {
  generation: number;
  lastMemberIndex: number;
  members: string[];
}

/** Seconds before a cluster held for a name it could not check looks again. */
export const NOT_CHECKED_RESYNC_SECONDS = 60;

/** The parts of a status the names depend on, as customize reads them (observed data: any field may be malformed). */
function askedWithOf(name: string, status: unknown, generation: number): NamesAskedWith {
  const s = (status ?? {}) as { lastMemberIndex?: unknown; memberList?: unknown };
  const last =
    typeof s.lastMemberIndex === 'number' && Number.isSafeInteger(s.lastMemberIndex) && s.lastMemberIndex >= 0
      ? s.lastMemberIndex
      : -1;
  const members = Array.isArray(s.memberList)
    ? (s.memberList as Array<{ name?: unknown } | null>)
        .slice(0, MAX_LISTED)
        .map((m) => m?.name)
        .filter((n): n is string => typeof n === 'string' && n.startsWith(`${name}-`) && n.length <= 253)
    : [];
  return { generation, lastMemberIndex: last, members };
}

/**
 * The names an EtcdCluster's children may take, asked for by name (lib/ownership.ts): its Services and budget, the
 * members its status lists, the next NAMES_AHEAD ordinals (a new member's pod and claim) and a restore's check pod
 * and its NetworkPolicy.
 */
export function etcdChildNames(parent: ParentObject): ChildName[] {
  const name = parent.metadata.name ?? '';
  const { lastMemberIndex: last, members } = askedWithOf(name, parent.status, 0);
  const pods = [...members, ...Array.from({ length: NAMES_AHEAD }, (_, i) => `${name}-${last + 1 + i}`)];
  return [
    { apiVersion: 'v1', kind: 'Service', name },
    { apiVersion: 'v1', kind: 'Service', name: `${name}-client` },
    { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', name },
    { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', name: networkPolicyName(name) },
    ...pods.map((p) => ({ apiVersion: 'v1', kind: 'Pod', name: p })),
    { apiVersion: 'v1', kind: 'Pod', name: checkPodName(name) },
    { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', name: restoreCheckPolicyName(name) },
    ...pods.map((p) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', name: p })),
  ];
}

/** The parent's generation (0 when it has none: a request made by hand). */
function generationOf(parent: ParentObject): number {
  const g = parent.metadata.generation;
  return typeof g === 'number' && Number.isSafeInteger(g) ? g : 0;
}

/** The record of the parent's status, when it is one of this generation (observed data). */
function recordOf(parent: ParentObject): NamesAskedWith | undefined {
  const r = (parent.status as Record<string, unknown> | undefined)?.[NAMES_ASKED_WITH] as
    { generation?: unknown; lastMemberIndex?: unknown; members?: unknown } | undefined;
  if (!r || typeof r !== 'object' || r.generation !== generationOf(parent)) return undefined;
  const memberList = Array.isArray(r.members) ? (r.members as unknown[]).map((n) => ({ name: n })) : [];
  return askedWithOf(
    parent.metadata.name ?? '',
    { lastMemberIndex: r.lastMemberIndex, memberList },
    generationOf(parent),
  );
}

/**
 * What the customize answer in use was asked with: the record of this generation, or, at the first sync of a
 * generation (no record of it yet), the status as it is, which is the one Metacontroller asked customize with (it
 * asks with the parent it then syncs; only a sync writes the status, and each writes the record).
 */
export function namesAskedWith(parent: ParentObject): NamesAskedWith {
  return recordOf(parent) ?? askedWithOf(parent.metadata.name ?? '', parent.status, generationOf(parent));
}

/** The answer's status with the record (namesAskedWith) of the parent's generation. */
export function withNamesAskedWith(parent: ParentObject, response: CompositeSyncResponse): CompositeSyncResponse {
  const status = (response.status ?? {}) as Status;
  return { ...response, status: { ...status, [NAMES_ASKED_WITH]: namesAskedWith(parent) } };
}

/**
 * The pods and claims the answer would make (not observed as the cluster's) under a name the customize answer in use
 * did not ask for: its names as of `asked`. On v4 a later answer may have asked for more (it is asked again with a
 * newer status); never fewer of the names still to come (ordinals only grow).
 */
export function notAskedFor(request: CompositeSyncRequest, answer: CompositeSyncResponse, asked: NamesAskedWith) {
  const parent = request.parent;
  const namespace = parent.metadata.namespace ?? '';
  const byAnswer = etcdChildNames({
    ...parent,
    status: { lastMemberIndex: asked.lastMemberIndex, memberList: asked.members.map((name) => ({ name })) },
  });
  const askedKeys = new Set(byAnswer.map((c) => `${c.apiVersion}/${c.kind}/${c.name}`));
  return answer.children.flatMap((c) => {
    const name = c?.metadata?.name;
    if (!name || (c.kind !== 'Pod' && c.kind !== 'PersistentVolumeClaim')) return [];
    if (observedNamed(request.children, c.kind, c.apiVersion, name, namespace)) return [];
    return askedKeys.has(`${c.apiVersion}/${c.kind}/${name}`)
      ? []
      : [{ apiVersion: c.apiVersion, kind: c.kind, name } as ChildName];
  });
}

/**
 * The answer of a cluster that wants to make a child under a name it could not check: every observed child kept as
 * it is (nothing made, changed or deleted, no membership change), the status as it was with Ready=False
 * `MemberNameNotChecked` naming the names, and the record kept.
 */
export function heldForNamesNotChecked(
  request: CompositeSyncRequest,
  names: readonly ChildName[],
  asked: NamesAskedWith,
  now: Date,
): CompositeSyncResponse {
  const parent = request.parent;
  const listed = names
    .slice(0, 3)
    .map((n) => `${n.kind} ${n.name}`)
    .join(', ');
  const more = names.length > 3 ? ` (and ${names.length - 3} more)` : '';
  const [ready] = conditionsFor(
    parent,
    [
      {
        type: 'Ready',
        status: false,
        reason: 'MemberNameNotChecked',
        message:
          `${listed}${more}: not made, and no member added for it, because Metacontroller's related objects for this ` +
          `generation were asked for when the last member ordinal was ${asked.lastMemberIndex} (up to ` +
          `${asked.lastMemberIndex + NAMES_AHEAD}), so another owner's object of that name would not be seen. ` +
          `It goes on once the generation changes (any change of the spec), for which Metacontroller asks again`,
      },
    ],
    now,
  );
  const status = currentStatus(parent);
  const before = Array.isArray(status['conditions']) ? (status['conditions'] as Array<{ type?: unknown }>) : [];
  const others = before.filter((c) => c && typeof c === 'object' && c.type !== 'Ready');
  return {
    status: { ...status, [NAMES_ASKED_WITH]: asked, conditions: [ready, ...others] },
    children: allObserved(request.children).map(keepObserved),
    resyncAfterSeconds: NOT_CHECKED_RESYNC_SECONDS,
  };
}

/**
 * The member names from ordinal `first` on, `count` of them, that the customize answer in use did not ask for (its
 * names as of namesAskedWith: the next NAMES_AHEAD ordinals past its last one, and the members it listed). A restore
 * asks this before it drops the running members (plan/restore-check.ts): restored members it could not make under
 * their names would leave the cluster with no member at all.
 */
export function memberNamesNotAskedFor(parent: ParentObject, first: number, count: number): string[] {
  const name = parent.metadata.name ?? '';
  const asked = namesAskedWith(parent);
  const listed = new Set(asked.members);
  return Array.from({ length: Math.max(0, count) }, (_, i) => `${name}-${first + i}`).filter(
    (n, i) => first + i > asked.lastMemberIndex + NAMES_AHEAD && !listed.has(n),
  );
}

/** A member ordinal a new member does not take: another owner holds its pod's (or claim's) name. */
export interface TakenOrdinal {
  ordinal: number;
  /** The child held, in words (`Pod web-pod-3`). */
  name: string;
  /** Who holds it, in words (lib/ownership.ts holderOf). */
  holder: string;
}

/**
 * The member ordinals a new member may take, as the sync sees them (plan/types.ts Observation.ordinals): the last
 * ordinal the customize answer in use asked for (namesAskedWith's last one plus NAMES_AHEAD: beyond it a name is
 * not checked, so not free), and the ordinals up to it, past that answer's last one, whose pod or (`storage`) claim
 * name another owner holds (lib/ownership.ts takenNames, the holders judged as heldForNames judges them: a holder's
 * object gone for a moment still holds its name). Member names are `<cluster>-<ordinal>` and only need be new: a
 * member added takes the lowest ordinal above the last one given out that is neither, rather than waiting, held, for
 * a name another parent took first (a PodSet `web` makes its pods `web-pod-<i>` at once, EtcdCluster `web-pod`'s
 * names for members it has not made yet among them).
 */
export function memberOrdinals(
  request: CompositeSyncRequest,
  storage: boolean,
  now: Date,
): { askedUpTo: number; taken: TakenOrdinal[] } {
  const parent = request.parent;
  const name = parent.metadata.name ?? '';
  const asked = namesAskedWith(parent);
  const askedUpTo = asked.lastMemberIndex + NAMES_AHEAD;
  const judge = holderJudge(now);
  const taken: TakenOrdinal[] = [];
  // (No related objects sent: no name is judged taken, as heldForNames judges none: lib/ownership.ts takenIn.)
  if (!request.related) return { askedUpTo, taken };
  for (let i = asked.lastMemberIndex + 1; i <= askedUpTo; i++) {
    const member = `${name}-${i}`;
    const wanted: ChildName[] = [
      { apiVersion: 'v1', kind: 'Pod', name: member },
      ...(storage ? [{ apiVersion: 'v1', kind: 'PersistentVolumeClaim', name: member }] : []),
    ];
    const held = takenNames(request, wanted, undefined, judge)[0];
    if (held) taken.push({ ordinal: i, name: `${held.child.kind} ${member}`, holder: held.holder });
  }
  return { askedUpTo, taken };
}
