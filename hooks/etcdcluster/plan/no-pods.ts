// The membership rules when no member pod is observed, in order: wait for the pods being deleted to go; start
// again on the claims of a cluster whose status was lost; restart the known members on their volumes (or say a
// majority lost its data); say every member was lost with its data; else bootstrap.
import { bootstrapStopped, bootstrapStoppedMessage, BOOTSTRAP_FAILED_REASON, currentRecord } from '../bootstraps.js';
import { neverCreated } from '../events.js';
import { memberName, memberPod } from '../members.js';
import { available, majorityLostMessage, recovering, scaling } from './conditions.js';
import { lostForGood } from './evidence.js';
import { initialCluster } from './member-pods.js';
import type { Decision } from './types.js';
import { firstDecision, type View } from './view.js';

export function noPods(v: View): Decision {
  return (
    firstDecision(v, [
      waitingForTermination,
      bootstrapStoppedWithoutPods,
      bootstrapOnItsClaims,
      restartOnClaims,
      restartOnVolumes,
      allMembersLost,
    ]) ?? bootstrap(v)
  );
}

/** Pods being deleted: nothing is started beside them. */
function waitingForTermination(v: View): Decision | undefined {
  if (v.obs.terminating.length === 0) return undefined;
  return {
    ...v.base,
    pods: [],
    phase: 'Creating',
    conditions: [scaling(true, 'WaitingForTermination', `waiting for ${v.obs.terminating.join(', ')} to go`)],
    members: v.known,
    converging: true,
    // (Between a failed start and the next, the status alone holds their record.)
    ...(bootstrapRecord(v) ? { bootstrapFailed: bootstrapRecord(v) } : {}),
  };
}

/** The failed starts recorded for the spec of the moment while no member is known (a bootstrap's), if any. */
function bootstrapRecord(v: View) {
  return v.known.length === 0 ? currentRecord(v.obs.bootstrap) : undefined;
}

/**
 * A bootstrap that stopped (bootstraps.ts) whose pods were deleted since: still stopped, nothing started, until the
 * spec changes or a retry is asked for.
 */
function bootstrapStoppedWithoutPods(v: View): Decision | undefined {
  const record = bootstrapRecord(v);
  if (!record || !bootstrapStopped(record)) return undefined;
  const message = bootstrapStoppedMessage(record);
  return {
    ...v.base,
    pods: [],
    phase: 'Failed',
    reason: BOOTSTRAP_FAILED_REASON,
    conditions: [available(false, BOOTSTRAP_FAILED_REASON, message), scaling(false, BOOTSTRAP_FAILED_REASON, message)],
    members: [],
    converging: false,
    bootstrapFailed: record,
  };
}

/**
 * Whether the cluster ever held data: it ran, or it already reported every member lost (its own status fed back: a
 * second sync must not bootstrap an empty cluster over the first one's verdict).
 */
function everRan(v: View): boolean {
  const storedOnClaims = v.storage && v.claimsSeen.length > 0;
  return (
    v.previous.phase === 'Running' || v.previous.reason === 'AllMembersLost' || v.known.length > 0 || storedOnClaims
  );
}

/**
 * A bootstrap whose claims exist and whose pods are not made yet: with storage a new member's pod is answered only
 * once its claim is observed as the cluster's (sync.ts childrenOf), so the bootstrap's first answer makes its claims
 * and the next its pods. The status says a bootstrap runs (phase Creating, no member known) and every claim seen is
 * one of the names it gave out (the spec.size ordinals up to lastMemberIndex): the same bootstrap goes on under those
 * names, all started together (--initial-cluster-state=new), as bootstrap() answered them.
 */
function bootstrapOnItsClaims(v: View): Decision | undefined {
  if (!v.storage || v.known.length > 0 || v.claimsSeen.length === 0 || v.previous.phase !== 'Creating')
    return undefined;
  const first = v.lastMemberIndex - v.spec.size + 1;
  if (first < 0) return undefined;
  const initial = Array.from({ length: v.spec.size }, (_, i) => memberName(v.c.name, first + i));
  if (!v.claimsSeen.every((n) => initial.includes(n))) return undefined;
  return bootstrapOf(v, initial, v.lastMemberIndex);
}

/**
 * Claims but no known member (status lost, or the members never reported): each claim's member starts again on it
 * under its name; etcd restarts from the data where there is some, and the initial cluster of those names is the
 * one they were bootstrapped with, so nothing is made empty over data.
 */
function restartOnClaims(v: View): Decision | undefined {
  if (!v.storage || v.known.length > 0 || v.claimsSeen.length === 0) return undefined;
  const all = initialCluster(
    v.c,
    v.claimsSeen.map((pod) => ({ pod })),
  );
  const message = `every member pod is gone; starting ${v.claimsSeen.join(', ')} again on their volumes`;
  return {
    ...v.base,
    pods: v.claimsSeen.map((pod) =>
      memberPod({ parent: v.parent, spec: v.made, name: pod, initialCluster: all, state: 'new' }),
    ),
    phase: 'Running',
    reason: 'MembersRestarting',
    conditions: [available(false, 'MembersRestarting', message), recovering(true, 'RestartingMembers', message)],
    members: [],
    converging: true,
    ...(bootstrapRecord(v) ? { bootstrapFailed: bootstrapRecord(v) } : {}),
  };
}

/**
 * The known members restart on their volumes (those whose claim is gone are replaced once a quorum is back); when
 * those with their data left are no majority, the loss is said, and the survivors still restart.
 */
function restartOnVolumes(v: View): Decision | undefined {
  const { known, storage } = v;
  if (!everRan(v) || !storage || known.length === 0) return undefined;
  const lost = lostForGood(
    known.map((m) => m.name),
    v.obs,
    storage,
    v.claimGone,
  );
  const onClaims = known.filter((m) => !lost.some((l) => l.name === m.name));
  if (known.length - lost.length < Math.floor(known.length / 2) + 1) {
    const message = majorityLostMessage(lost, known.length, storage);
    return {
      ...v.base,
      pods: v.restartPods(onClaims),
      phase: 'Failed',
      reason: 'MajorityLost',
      conditions: [available(false, 'MajorityLost', message), recovering(true, 'MajorityLost', message)],
      members: known,
      converging: false,
    };
  }
  const message = `every member pod is gone; restarting ${onClaims.map((m) => m.name).join(', ')} on their volumes${lost.length ? ` (${lost.map((l) => l.name).join(', ')}: claim deleted, replaced once a quorum is back)` : ''}`;
  return {
    ...v.base,
    pods: v.restartPods(onClaims),
    phase: 'Running',
    reason: 'MembersRestarting',
    conditions: [available(false, 'MembersRestarting', message), recovering(true, 'RestartingMembers', message)],
    members: known,
    converging: true,
  };
}

/** A cluster that ran, with no member pod and no volume left: its data is gone, and nothing is started over it. */
function allMembersLost(v: View): Decision | undefined {
  if (!everRan(v)) return undefined;
  const message =
    'every member pod is gone and with them the data; restore from a backup (EtcdRestore) or delete and recreate the EtcdCluster';
  return {
    ...v.base,
    pods: [],
    phase: 'Failed',
    reason: 'AllMembersLost',
    conditions: [available(false, 'AllMembersLost', message), recovering(true, 'AllMembersLost', message)],
    members: v.known,
    converging: false,
  };
}

/**
 * Bootstrap: the initial members start together (--initial-cluster-state=new for all of them), so no single member
 * that never starts can cost a quorum that a one-by-one growth would have had to keep. A bootstrap refused by
 * admission (its pods never created) is answered again under the same names (events.ts).
 */
function bootstrap(v: View): Decision {
  const { spec } = v;
  const from = neverCreated(v.parent.status, v.obs) ? Math.max(-1, v.lastMemberIndex - spec.size) : v.lastMemberIndex;
  const initial = Array.from({ length: spec.size }, (_, i) => memberName(v.c.name, from + 1 + i));
  return bootstrapOf(v, initial, from + spec.size);
}

/** The bootstrap of the members `initial`, started together; `last`: the highest ordinal given out. */
function bootstrapOf(v: View, initial: string[], last: number): Decision {
  const { spec } = v;
  const all = initialCluster(
    v.c,
    initial.map((pod) => ({ pod })),
  );
  return {
    ...v.base,
    lastMemberIndex: last,
    pods: initial.map((pod) => memberPod({ parent: v.parent, spec, name: pod, initialCluster: all, state: 'new' })),
    phase: 'Creating',
    conditions: [
      available(false, 'Bootstrapping', `starting members ${initial.join(', ')}`),
      scaling(true, 'Bootstrapping', `${initial.length} initial members`),
    ],
    members: [],
    converging: true,
    ...(bootstrapRecord(v) ? { bootstrapFailed: bootstrapRecord(v) } : {}),
  };
}
