// The Available / Progressing / Ready conditions of a replicated workload, from observed counts.
import type { ConditionInput } from './conditions.js';

export interface ReplicaCounts {
  /** The size the spec asks for. */
  desired: number;
  /** Members that exist (not being deleted). */
  current: number;
  /** Members that are Ready. */
  ready: number;
  /** Members already at the desired template, when the workload reports it. */
  updated?: number;
  /** False until the workload object itself has been observed. */
  exists: boolean;
}

export function replicaConditions(c: ReplicaCounts): ConditionInput[] {
  const summary = `${c.ready}/${c.desired} ready`;
  const available = c.exists && c.ready >= c.desired;
  let progressing: ConditionInput;
  if (!c.exists) {
    progressing = { type: 'Progressing', status: true, reason: 'Creating', message: 'waiting for the children to be created' };
  } else if (c.current < c.desired) {
    progressing = { type: 'Progressing', status: true, reason: 'ScalingUp', message: `${c.current} of ${c.desired} members exist` };
  } else if (c.current > c.desired) {
    progressing = { type: 'Progressing', status: true, reason: 'ScalingDown', message: `${c.current} members exist, ${c.desired} wanted` };
  } else if (c.updated !== undefined && c.updated < c.desired) {
    progressing = { type: 'Progressing', status: true, reason: 'Updating', message: `${c.updated} of ${c.desired} members updated` };
  } else if (c.ready < c.desired) {
    progressing = { type: 'Progressing', status: true, reason: 'WaitingForReady', message: summary };
  } else {
    progressing = { type: 'Progressing', status: false, reason: 'Complete', message: `all ${c.desired} members are up to date and ready` };
  }
  return [
    {
      type: 'Ready',
      status: available,
      reason: available ? 'Available' : 'NotAvailable',
      message: summary,
    },
    {
      type: 'Available',
      status: available,
      reason: available ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable',
      message: summary,
    },
    progressing,
  ];
}
