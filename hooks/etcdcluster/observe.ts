// What one EtcdCluster sync sees of etcd: the member list and each member's health, read from the cluster's own
// members only (identity.ts), within a bounded number of dials.
//
// Bounds: a sync dials at most MAX_DIALLED_PODS pods (a cluster has at most MAX_SIZE members, and one addition or
// leftover at a time), whatever the namespace holds: pods that carry the cluster's labels beyond that are not
// dialled (they are not members, and the plan drops them). The client caps the calls in flight per sync and per
// server (etcdcommon/etcd.ts).
import {
  type CompositeSyncRequest,
  isTerminating,
  type KubeObject,
  observed,
  type ObservedObject,
  type ParentObject,
  typeKey,
} from '../../lib/index.js';
import { EtcdError, type EtcdClient, type MemberHealth, type MemberListAnswer } from '../etcdcommon/etcd.js';
import { idOf } from '../etcdcommon/identity.js';
import { clusterIdentity } from './identity.js';
import { clientURL, clusterOf, memberIndex, podOfMember, type Cluster } from './members.js';
import type { Observation } from './plan.js';
import { checkPodName } from './restore.js';
import { MAX_SIZE, type EtcdClusterSpec } from './schema.js';

/** The most pods one sync dials: every member of the largest cluster, and room for an addition and leftovers. */
export const MAX_DIALLED_PODS = MAX_SIZE + 3;

/** What observe adds to the plan's observation: why etcd could not be read, for the conditions. */
export interface Observed extends Observation {
  /** Every member failed the TLS handshake: what that means. */
  tls?: string;
  /** etcd refused the member list for want of credentials (its authentication is on): what it said. */
  auth?: string;
  /** Pods whose address answered as a member of another etcd cluster (or as another member): never used. */
  foreign: string[];
  /** Pods not dialled in this sync (beyond MAX_DIALLED_PODS). */
  undialled: number;
  /** The cluster ID etcd's member list carried, when it is this cluster's. */
  clusterId?: string;
  /** Why the member list answered was refused (more members or bytes than any cluster has): nothing read from it. */
  invalidList?: string;
}

interface StatusMemory {
  memberList?: unknown;
  lastMemberIndex?: unknown;
  clusterID?: unknown;
}

/**
 * The pods a sync dials, at most MAX_DIALLED_PODS: the members the status knows first, then the newest ordinals
 * this cluster gave out, then any others (lowest first). Pods whose names are not member names are never dialled.
 */
export function podsToDial(name: string, pods: KubeObject[], status: StatusMemory): KubeObject[] {
  const known = new Set(
    (Array.isArray(status.memberList) ? status.memberList : []).map((m) => (m as { name?: unknown } | null)?.name),
  );
  const last = typeof status.lastMemberIndex === 'number' ? status.lastMemberIndex : -1;
  const rank = (p: KubeObject): [number, number] => {
    const i = memberIndex(name, p.metadata.name!)!;
    if (known.has(p.metadata.name)) return [0, i];
    return i <= last ? [1, -i] : [2, i];
  };
  return pods
    .filter((p) => memberIndex(name, p.metadata.name!) !== undefined)
    .map((p) => ({ p, r: rank(p) }))
    .sort((a, b) => a.r[0] - b.r[0] || a.r[1] - b.r[1])
    .slice(0, MAX_DIALLED_PODS)
    .map((x) => x.p);
}

/** The most member names (pods and claims) one sync considers: as many as it dials. */
export const MAX_MEMBER_NAMES = MAX_DIALLED_PODS;

/** The member names of a group of children, with their ordinals (one pass, own keys only). */
function memberNames(cluster: string, group: Record<string, KubeObject>): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  for (const key of Object.keys(group)) {
    const n = group[key]?.metadata?.name;
    const i = typeof n === 'string' ? memberIndex(cluster, n) : undefined;
    if (i !== undefined) out.push([n!, i]);
  }
  return out;
}

/** What memberWindow left out of a request: pods and claims that cannot be this cluster's members. */
export interface Ignored {
  pods: number;
  claims: number;
}

/**
 * The request as the sync considers it: of the pods and claims that carry the cluster's selector (Metacontroller
 * adopts whatever a tenant labels so), only those named as members this cluster can have, at most MAX_MEMBER_NAMES
 * names, ranked as podsToDial ranks them (the members the status knows, the newest ordinals given out, then the
 * lowest others); a claim without a pod counts only at an ordinal this cluster gave out (status.lastMemberIndex,
 * when it is known). The restore's check pod is kept. Everything else is left out before any work is done on it, so
 * that the plan's work and its answer are bounded whatever the namespace holds; what was left out is counted (a
 * condition says so) and, not being answered, is removed by Metacontroller as any child the plan drops.
 */
export function memberWindow(
  request: CompositeSyncRequest,
  name: string,
  status: StatusMemory,
): { request: CompositeSyncRequest; ignored: Ignored } {
  const podKey = typeKey('Pod', 'v1');
  const claimKey = typeKey('PersistentVolumeClaim', 'v1');
  const pods = request.children?.[podKey] ?? {};
  const claims = request.children?.[claimKey];
  const check = checkPodName(name);
  const last = typeof status.lastMemberIndex === 'number' ? status.lastMemberIndex : undefined;
  const known = new Set(
    (Array.isArray(status.memberList) ? status.memberList : []).map((m) => (m as { name?: unknown } | null)?.name),
  );
  // One pass over each group (own keys only): the candidates' names with their ordinals.
  const candidates = new Map<string, number>();
  for (const [n, i] of memberNames(name, pods)) candidates.set(n, i);
  for (const [n, i] of memberNames(name, claims ?? {})) {
    if (!candidates.has(n) && (known.has(n) || last === undefined || i <= last)) candidates.set(n, i);
  }
  const rank = (n: string, i: number): [number, number] => {
    if (known.has(n)) return [0, i];
    return last !== undefined && i <= last ? [1, -i] : [2, i];
  };
  const kept = new Set(
    [...candidates]
      .map(([n, i]) => ({ n, r: rank(n, i) }))
      .sort((a, b) => a.r[0] - b.r[0] || a.r[1] - b.r[1])
      .slice(0, MAX_MEMBER_NAMES)
      .map((x) => x.n),
  );
  const ignored: Ignored = { pods: 0, claims: 0 };
  const keep = (group: Record<string, ObservedObject>, which: keyof Ignored, extra?: string) => {
    const out: Record<string, ObservedObject> = Object.create(null) as Record<string, ObservedObject>;
    for (const key of Object.keys(group)) {
      const n = group[key]?.metadata?.name;
      if (typeof n === 'string' && (kept.has(n) || n === extra)) out[key] = group[key]!;
      else ignored[which]++;
    }
    return out;
  };
  const children = { ...(request.children ?? {}) };
  children[podKey] = keep(pods, 'pods', check);
  if (claims) children[claimKey] = keep(claims, 'claims');
  return { request: { ...request, children }, ignored };
}

type Listed = { ok: true; v: MemberListAnswer } | { ok: false; e: Error } | undefined;

/** Whether a cluster ID is this cluster's: made here (its UID, its member names) or recorded in its status. */
function identityOf(parent: ParentObject, c: Cluster, pods: KubeObject[], status: StatusMemory, domains: string[]) {
  const seen = pods.map((p) => memberIndex(c.name, p.metadata.name!) ?? -1);
  const last = typeof status.lastMemberIndex === 'number' ? status.lastMemberIndex : -1;
  return clusterIdentity({
    cluster: c,
    token: parent.metadata.uid ?? c.name,
    lastMemberIndex: Math.max(last, ...seen, -1),
    recorded: typeof status.clusterID === 'string' ? status.clusterID : undefined,
    domains,
  });
}

/** The member list (through every dialled pod at once) and each dialled pod's own answer. */
async function read(
  etcd: EtcdClient,
  endpoints: Map<string, string>,
  accept: (clusterId: string | undefined) => boolean,
): Promise<{ list: Listed; answers: Map<string, MemberHealth> }> {
  const answers = new Map<string, MemberHealth>();
  const [list] = await Promise.all([
    endpoints.size
      ? etcd.memberList([...endpoints.values()], accept).then(
          (v): Listed => ({ ok: true, v }),
          (e: Error): Listed => ({ ok: false, e }),
        )
      : undefined,
    ...[...endpoints].map(async ([pod, url]) => {
      answers.set(pod, await etcd.health(url));
    }),
  ]);
  return { list, answers };
}

/** Reads the member list and each dialled pod's health, in parallel, within the client's deadlines and caps. */
export async function observe(
  parent: ParentObject,
  request: CompositeSyncRequest,
  etcd: EtcdClient,
  spec: EtcdClusterSpec,
  domains: string[],
): Promise<Observed> {
  const c = clusterOf(parent, spec);
  const status = (parent.status ?? {}) as StatusMemory;
  // The restore's check pod is no member (restore.ts): observed apart.
  const check = checkPodName(c.name);
  const all = observed(request.children, 'Pod', 'v1').filter((p) => p.metadata.name !== check);
  const pods = all.filter((p) => !isTerminating(p));
  const dialled = podsToDial(c.name, pods, status);
  const accept = identityOf(parent, c, pods, status, domains);
  const endpoints = new Map(dialled.map((p) => [p.metadata.name!, clientURL(c, p.metadata.name!)]));
  const { list, answers } = await read(etcd, endpoints, accept);
  const obs: Observed = {
    pods,
    terminating: all.filter(isTerminating).map((p) => p.metadata.name),
    health: Object.create(null) as Record<string, MemberHealth>,
    foreign: [],
    undialled: pods.length - dialled.length,
  };
  // A member list counts only when its cluster ID is this cluster's (a client may not have checked it).
  const listed = list?.ok && accept(list.v.clusterId) ? list.v : undefined;
  if (listed) {
    obs.etcd = listed.clusterVersion
      ? { members: listed.members, clusterVersion: listed.clusterVersion }
      : { members: listed.members };
    obs.clusterId = listed.clusterId!;
  } else if (list) {
    obs.etcdError = list.ok ? 'the member list came from another etcd cluster' : list.e.message;
  }
  verifyHealth({
    c,
    obs,
    answers: new Map(dialled.map((p) => [p.metadata.name!, answers.get(p.metadata.name!)!])),
    listed,
    accept,
    status,
  });
  listFailure(obs, c, list, [...endpoints.keys()]);
  const checkPod = observed(request.children, 'Pod', 'v1').find((p) => p.metadata.name === check);
  if (checkPod && !isTerminating(checkPod)) obs.restoreCheck = checkPod;
  return withClaims(obs, request);
}

/** What a failed member list says: foreign answers, a refused list, a TLS failure (tls.ts, tlsFailure). */
function listFailure(obs: Observed, c: Cluster, list: Listed, dialled: string[]): void {
  const failure = list && !list.ok && list.e instanceof EtcdError ? list.e : undefined;
  if (failure?.code === 'Foreign' && obs.foreign.length === 0) obs.foreign.push(...dialled);
  if (failure?.code === 'Invalid') obs.invalidList = failure.message;
  obs.foreign.sort((x, y) => memberIndex(c.name, x)! - memberIndex(c.name, y)!);
  // Every member failed the TLS handshake: what that means goes into a condition.
  if (failure?.code === 'TLS') obs.tls = failure.message;
  // etcd's authentication is on: its members serve, but not the hook, which has no credentials (docs/etcdcluster.md).
  if (failure?.code === 'Unauthenticated') obs.auth = failure.message;
}

/** The member claims observed, when the request says (undefined otherwise: then they are assumed). */
function withClaims(obs: Observed, request: CompositeSyncRequest): Observed {
  if (request.children?.[typeKey('PersistentVolumeClaim', 'v1')]) {
    const claims = observed(request.children, 'PersistentVolumeClaim', 'v1');
    obs.claims = claims.map((x) => x.metadata.name);
    obs.terminatingClaims = claims.filter(isTerminating).map((x) => x.metadata.name);
  }
  return obs;
}

/** The member IDs expected of each pod: the member list's (by peer URL, else name), or the status's. */
function expectedMembers(c: Cluster, listed: MemberListAnswer | undefined, status: StatusMemory): Map<string, string> {
  const expected = new Map<string, string>();
  const entries: Array<[unknown, unknown]> = listed
    ? listed.members.map((m) => [podOfMember(c, m), m.id])
    : (Array.isArray(status.memberList) ? status.memberList : []).map((m) => {
        const r = m as { name?: unknown; id?: unknown } | null;
        return [r?.name, r?.id];
      });
  for (const [pod, raw] of entries) {
    const id = idOf(raw);
    if (typeof pod === 'string' && id) expected.set(pod, id);
  }
  return expected;
}

/**
 * Each pod's health, as far as its answer proves it is this cluster's member: the cluster ID this cluster's
 * (the member list's, or one this cluster made when there is no list), and the member ID the list gives its peer
 * URL (or the status recorded for it). Anything else is unhealthy, and an answer of another cluster is named.
 */
function verifyHealth(v: {
  c: Cluster;
  obs: Observed;
  answers: Map<string, MemberHealth>;
  listed: MemberListAnswer | undefined;
  accept: (clusterId: string | undefined) => boolean;
  status: StatusMemory;
}): void {
  const expected = expectedMembers(v.c, v.listed, v.status);
  for (const [pod, h] of v.answers) {
    if (!h.clusterId) {
      // No status answer: whatever /health said, nothing proves whose member answered.
      v.obs.health[pod] = h.healthy ? { healthy: false, error: 'its identity could not be confirmed' } : h;
      continue;
    }
    const sameCluster = v.listed ? h.clusterId === v.listed.clusterId : v.accept(h.clusterId);
    const member = expected.get(pod);
    if (!sameCluster || (member !== undefined && h.memberId !== member)) {
      v.obs.health[pod] = {
        healthy: false,
        error: 'answered as a member of another etcd cluster, or as another member',
      };
      v.obs.foreign.push(pod);
      continue;
    }
    v.obs.health[pod] = h;
  }
}
