// A newer EtcdRestore made while a restore is past its point of no return (plan.ts, decide): the old members are
// dropped and the cluster's only data is that restore's checked snapshot, so it is finished (or fails by its
// deadline) before the newer one is taken. The newer one waits: it is not checked, its record does not replace the
// running one's, and the Restore condition says it waits.
import { pastNoReturn, type RestoreState } from '../../etcdcommon/index.js';
import type { Decision, Observation } from './types.js';

/**
 * The observation the decision reads while a restore past its point of no return runs (`before`): the newest
 * EtcdRestore, when it is another, is set aside (`waiting`, its name) and the running restore is the one that acts,
 * from its record (its checked snapshot, whether or not its EtcdRestore is still there).
 */
export function behindRunning(
  before: RestoreState | undefined,
  obs: Observation,
): { obs: Observation; waiting?: string } {
  if (!before || !pastNoReturn(before) || !obs.restore || obs.restore.uid === before.uid) return { obs };
  const { restore: newer, ...rest } = obs;
  const own = obs.recordedRestore?.uid === before.uid ? obs.recordedRestore : undefined;
  return { obs: own ? { ...rest, restore: own } : rest, waiting: newer.name };
}

/** The Restore condition says which EtcdRestore waits, and for which. */
export function withWaiting(d: Decision, waiting: string | undefined, before: RestoreState | undefined): Decision {
  if (waiting === undefined) return d;
  const running = d.restore?.name ?? before?.name ?? '';
  const message =
    `EtcdRestore ${waiting} waits: EtcdRestore ${running} dropped the old members and restores the cluster from ` +
    `its snapshot; ${waiting} is checked once that restore has ended`;
  return {
    ...d,
    conditions: [
      ...d.conditions.filter((c) => c.type !== 'Restore'),
      { type: 'Restore', status: true, reason: 'RestoreWaiting', message },
    ],
  };
}
