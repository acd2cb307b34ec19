// The shapes of the EtcdCluster plan: what it observes, what it decides, and how it reports each member.
import type { ConditionInput, KubeObject, ObservedObject } from '../../../lib/index.js';
import type { EtcdAlarm, EtcdMember, MemberHealth } from '../../etcdcommon/etcd.js';
import type { RestoreState } from '../../etcdcommon/index.js';
import type { RestoreSource } from '../members.js';
import type { UpgradeFailure } from '../upgrade.js';
import type { AdditionsFailed, AdditionsMemory } from '../additions.js';
import type { BootstrapFailed, BootstrapMemory } from '../bootstraps.js';

export type Action =
  | { type: 'add'; pod: string; peerURL: string; learner: boolean }
  | { type: 'remove'; id: string; pod: string; why: string }
  | { type: 'promote'; id: string; pod: string };

export interface Observation {
  /** Observed member pods that are not being deleted. */
  pods: ObservedObject[];
  /** Names of observed pods being deleted. */
  terminating: string[];
  /** The member list, when etcd answered. */
  etcd?: { members: EtcdMember[]; clusterVersion?: string };
  etcdError?: string;
  /** The time of this sync (for how long a member has been unhealthy); without it no member is replaced for that. */
  now?: Date;
  /** The upgrade soak the server is set to (METAOPS_ETCD_UPGRADE_SOAK_SECONDS); UPGRADE_SOAK_SECONDS when unset. */
  upgradeSoakSeconds?: number;
  /** Names of the observed member claims; undefined when the request did not say (then they are assumed). */
  claims?: string[];
  /** Names of observed claims that are being deleted (a subset of `claims`). */
  terminatingClaims?: string[];
  /** Health of each observed pod's member, by pod name. */
  health: Record<string, MemberHealth>;
  /**
   * The cluster's alarms etcd listed in this sync (those of no member disarmed: alarms.ts), read when a member
   * reported an alarm; which member each names (a CORRUPT alarm names the member whose data disagrees).
   */
  alarms?: EtcdAlarm[];
  /** Alarms of IDs no member has, listed in this sync and not disarmed: spec.paused stops every change (alarms.ts). */
  heldAlarms?: EtcdAlarm[];
  /** The newest EtcdRestore naming this cluster, if any. */
  restore?: { uid: string; name: string; source: RestoreSource; created?: string };
  /** The restore recorded in status with its checked snapshot (sync.ts, carriedOn): carried on once its EtcdRestore went. */
  recordedRestore?: {
    uid: string;
    name: string;
    source: RestoreSource;
    created?: string;
    /** Found from the EtcdRestore's own status saying the old members were dropped for it (sync.ts, restoreOfStatus). */
    membersDropped?: boolean;
  };
  /** The newest finished EtcdRestore of this cluster when it failed (its status.succeeded false), if any. */
  failedRestore?: { uid: string; name: string; reason: string; created?: string };
  /** The pod checking the restore's snapshot, as observed (restore.ts), if any. */
  restoreCheck?: KubeObject;
  /** The failed additions recorded for this EtcdCluster and spec (additions.ts); read in decideVersion. */
  additions?: AdditionsMemory;
  /** The failed starts of the bootstrap recorded for this EtcdCluster (bootstraps.ts); read by the bootstrap rules. */
  bootstrap?: BootstrapMemory;
  /**
   * This project's image of the moment (METAOPS_IMAGE): what a restored member's restore steps that wait for an
   * image take (member-pods.ts, withOperatorSteps). Without it, they stay as they were made.
   */
  operatorImage?: string;
  /**
   * What the spec's checks refuse of the restore's record of what its check started (status.restore.checked,
   * spec-checks.ts checkedRecordProblem), the record's field named: no restored member is made from it
   * (plan/restore-phases.ts recordRefused). Absent: no record, or one they accept.
   */
  checkedRefused?: string;
  /**
   * Why no new member claim can be made (their named StorageClass not seen: lib/storage-class.ts claimClassUnseen):
   * a restore whose snapshot passed its check waits there, its running members kept (restore-check.ts afterCheck).
   */
  claimsHeld?: string;
  /**
   * What a new member's ordinal may be (names.ts memberOrdinals): the last ordinal the customize answer in use asked
   * for, and the ordinals past the last one given out whose names another owner holds (skipped by new members,
   * plan/ordinals.ts freeRun). Without it, new members take the next ordinals.
   */
  ordinals?: { askedUpTo: number; taken: ReadonlyArray<{ ordinal: number; name: string; holder: string }> };
  /**
   * Members etcd lists that never started (etcd gave them no name: they joined nothing and hold no data), whose pod
   * is not observed as this cluster's and whose pod name, or (with storage) claim name while the claim is not observed
   * as this cluster's, another owner holds (sync.ts unstartedTaken; `what` says which): their pod can never be created,
   * or never on a volume of theirs. Such a member is not answered a pod; its addition is cancelled at once (members.ts
   * cancelAddition) and the cluster grows under the next free name. A member that started is never among them.
   */
  unstartedTaken?: ReadonlyArray<{ pod: string; holder: string; what?: 'pod' | 'claim' }>;
}

export interface MemberReport {
  name: string;
  id?: string;
  peerURL?: string;
  clientURL?: string;
  healthy: boolean;
  leader?: boolean;
  learner?: boolean;
  version?: string;
  /**
   * An etcd alarm the member's health names (NOSPACE: a backend reached the quota; CORRUPT: etcd's corruption check
   * found a member whose data disagrees): writes are refused.
   */
  alarm?: string;
  /** Since when a started member is seen unhealthy while etcd answers (kept as first seen: no churn). */
  unhealthySince?: string;
  /** Since when an addition (a learner, or a voter that never started) is seen waiting for its member to start. */
  pendingSince?: string;
  /**
   * Since when a sync first saw the etcd of a pending addition exited (CrashLoopBackOff), kept while the addition is
   * pending: it is cancelled as failed only once that has lasted EXIT_GRACE_SECONDS (pods.ts exitLasted).
   */
  exitedSince?: string;
  /**
   * When a sync last saw the member up while one of its clocks ran (the clock dropped then): a clock of it that starts
   * again within REPORT_HOLD_SECONDS waits for the report's hold (settle.ts).
   */
  seenUpAt?: string;
}

/** A started member unhealthy for longer than this, while the others keep quorum without it, is replaced. */
export const UNHEALTHY_REPLACE_SECONDS = 600;
/**
 * An addition whose member has not started (and caught up, for a learner) after this long is cancelled: its pod
 * cannot be scheduled, its image cannot be pulled, it crashes before it answers. The next sync adds a new member
 * with the spec of the moment, so nothing waits forever on one pod, and a fixed spec is taken at once.
 */
export const PENDING_ADD_SECONDS = 600;

export interface Decision {
  action?: Action;
  /** The pods that should exist once the action (if any) succeeded. */
  pods: KubeObject[];
  /** The pods to keep if the action fails. */
  fallbackPods: KubeObject[];
  phase: 'Creating' | 'Running' | 'Failed';
  reason?: string;
  conditions: ConditionInput[];
  members: MemberReport[];
  quorum?: { members: number; healthy: number; needed: number; ok: boolean; down: string[] };
  lastMemberIndex: number;
  currentVersion?: string;
  targetVersion?: string;
  /** Whether another step is pending (drives resyncAfterSeconds). */
  converging: boolean;
  restore?: RestoreState;
  /**
   * Observed claims kept although no pod or reported member names them: while etcd does not answer, every
   * member claim seen is kept (status may be lost or stale; a claim goes only on a recorded decision).
   */
  keepClaims?: string[];
  /** The pod that checks a pending restore's snapshot (restore.ts), answered beside the members. */
  restoreCheck?: KubeObject;
  /** A failed upgrade that holds the cluster at the version it ran (upgrade.ts), kept in status. */
  upgradeFailed?: UpgradeFailure;
  /** Additions that failed and were cancelled (additions.ts), kept in status and on the member pods. */
  additionsFailed?: AdditionsFailed;
  /** The failed starts of a bootstrap not formed yet (bootstraps.ts), kept in status and on its next start's pods. */
  bootstrapFailed?: BootstrapFailed;
  /** With an add: the member names it skipped, and who holds them, in words (said by its MemberAdded Event). */
  skipped?: string;
  /** With an action: the member list once it succeeded (a member removed on purpose leaves it at once). */
  onSuccess?: { members: MemberReport[] };
  /** With an action: the pods kept as they are when it fails, and the last ordinal (an add gives its one back). */
  onFailure?: { pods: KubeObject[]; lastMemberIndex: number };
}
