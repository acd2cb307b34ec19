// The Available / Progressing / Ready conditions of a replicated workload, from observed counts.
import type { ConditionInput } from './conditions.js';
import { conditionsFor } from './hook.js';
import type { KubeObject, ObjectMap, ParentObject, Status } from './metacontroller.js';
import { isTerminating, observedUnordered, statusNumber } from './objects.js';

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

/** The counts a Deployment or StatefulSet reports in its status (all 0 until it exists). */
export function workloadCounts(workload: KubeObject | undefined, desired: number): ReplicaCounts {
  return {
    desired,
    current: statusNumber(workload, 'replicas'),
    ready: statusNumber(workload, 'readyReplicas'),
    updated: statusNumber(workload, 'updatedReplicas'),
    exists: workload !== undefined,
  };
}

/** The names of the live pods among the related objects Metacontroller sent. */
export function relatedPodNames(related: ObjectMap | null | undefined): string[] {
  // Sorting the names (the default string order) rather than the objects keeps thousands of pods cheap.
  return observedUnordered(related, 'Pod', 'v1')
    .filter((p) => !isTerminating(p))
    .map((p) => p.metadata.name!)
    .sort();
}

/**
 * The status of a replicated parent: member names, counts, `ready` as kubectl shows it, the generation it
 * describes and the replica conditions; `ready` replaces the Ready condition when something else decides it.
 */
export function memberStatus(
  parent: ParentObject,
  counts: ReplicaCounts,
  nodes: string[],
  now: Date,
  options: { extra?: ConditionInput[]; ready?: ConditionInput; selector?: string } = {},
): Status {
  const inputs = replicaConditions(counts);
  if (options.ready) inputs[0] = options.ready;
  const status: Status = {
    nodes,
    replicas: counts.current,
    readyReplicas: counts.ready,
    ready: `${counts.ready}/${counts.desired}`,
    observedGeneration: parent.metadata.generation ?? 0,
    conditions: conditionsFor(parent, [...inputs, ...(options.extra ?? [])], now),
  };
  if (options.selector !== undefined) status['selector'] = options.selector;
  return status;
}
