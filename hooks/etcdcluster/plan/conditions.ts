// What the plan answers in words: the conditions, a failed restore's answer, and the outcomes of an action.
import type { ConditionInput } from '../../../lib/index.js';
import type { RestoreState } from '../../etcdcommon/index.js';
import type { Decision, MemberReport } from './types.js';

/** A restore that failed: Failed/RestoreFailed, no pod, until the user creates a new EtcdRestore. */
export function restoreFailed(lastMemberIndex: number, restore: RestoreState): Decision {
  const message = `EtcdRestore ${restore.name} failed (${restore.reason ?? 'a restored member did not start'}); fix the cause and create a new EtcdRestore`;
  return {
    pods: [],
    fallbackPods: [],
    phase: 'Failed',
    reason: 'RestoreFailed',
    conditions: [
      { type: 'Available', status: false, reason: 'RestoreFailed', message },
      { type: 'Recovering', status: true, reason: 'RestoreFailed', message },
    ],
    members: [],
    lastMemberIndex,
    converging: false,
    restore,
  };
}

/** The answer for either outcome of the decision's action, decided here rather than edited by the caller. */
export function withOutcomes(d: Decision): Decision {
  const a = d.action;
  if (!a) return d;
  return {
    ...d,
    onSuccess: { members: membersAfter(d.members, a) },
    onFailure: { pods: d.fallbackPods, lastMemberIndex: a.type === 'add' ? d.lastMemberIndex - 1 : d.lastMemberIndex },
  };
}

/**
 * The members once the action succeeded: a removed one leaves the list; an added one is recorded at once with what it
 * is, so that should etcd stop answering before it lists the new member, a learner is still known as one that votes
 * in no quorum (silent.ts learnerNames), a voter (etcd 3.3, no learners) as a voter.
 */
function membersAfter(members: MemberReport[], a: NonNullable<Decision['action']>): MemberReport[] {
  if (a.type === 'remove') return members.filter((m) => m.name !== a.pod);
  if (a.type === 'add') return [...members, { name: a.pod, healthy: false, ...(a.learner ? { learner: true } : {}) }];
  return members;
}

/** What Available says when a majority lost its data: who, how, and the way out. */
export function majorityLostMessage(
  lost: Array<{ name: string; how: string }>,
  members: number,
  storage = false,
): string {
  return (
    `${lost.length} of ${members} members lost with their data (${lost.map((l) => `${l.name}: ${l.how}`).join(', ')}` +
    `${storage ? '' : '; no storage'}): quorum cannot come back; restore from a backup (EtcdRestore) or delete and recreate the EtcdCluster`
  );
}

/** How a quorum stands: who is down (if any) and how many more failures it tolerates. */
export function degraded(q: { members: number; healthy: number; needed: number; down: string[] }): string {
  const spare = q.healthy - q.needed;
  const tolerance =
    spare === 0 ? 'one more failure loses quorum' : `${spare} more failure${spare > 1 ? 's' : ''} tolerated`;
  const down = q.down.length ? ` (down: ${q.down.join(', ')})` : '';
  return `${q.healthy} of ${q.members} members healthy${down}: ${tolerance}`;
}

const tolerates = (n: number) => n - (Math.floor(n / 2) + 1);
const failures = (n: number) => `${n} failure${n === 1 ? '' : 's'}`;

/**
 * What a cluster with fewer voting members than `size` misses, when that costs fault tolerance (its voters, all
 * healthy, tolerate fewer failures than `size` members would): '' when it does not.
 */
export function shortOfSize(q: { members: number }, size: number): string {
  if (tolerates(q.members) >= tolerates(size)) return '';
  return `; ${size - q.members} of the ${size} members asked for missing: tolerating ${failures(Math.max(0, tolerates(q.members)))} where ${size} members tolerate ${failures(tolerates(size))}`;
}

export function available(status: boolean, reason: string, message: string): ConditionInput {
  return { type: 'Available', status, reason, message };
}
export function scaling(status: boolean, reason: string, message: string): ConditionInput {
  return { type: 'Scaling', status, reason, message };
}
export function recovering(status: boolean, reason: string, message: string): ConditionInput {
  return { type: 'Recovering', status, reason, message };
}
