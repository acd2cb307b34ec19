// The EtcdCluster decisions, pure: given the parent, its observed pods and what etcd says about its members,
// which one membership change (if any) to make, which pods should exist, and what to report.
//
// Order of concerns, as etcd-operator reconciled: a lost quorum stops everything; then dead members are
// removed (their replacement is a later add); then the size; then the version, one member at a time.
// At most one membership change per sync; the next sync (resyncAfterSeconds) takes the next step.
import type { ConditionInput } from '../../lib/conditions.js';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { keepObserved } from '../../lib/objects.js';
import type { EtcdMember, MemberHealth } from './etcd.js';
import {
  clientURL,
  clusterOf,
  image,
  memberIndex,
  memberName,
  memberPod,
  normalizeVersion,
  peerURL,
  podOfPeerURL,
  type Cluster,
  type RestoreSource,
} from './members.js';
import type { EtcdClusterSpec } from './schema.js';

export type Action =
  | { type: 'add'; pod: string; peerURL: string; learner: boolean }
  | { type: 'remove'; id: string; pod: string; why: string }
  | { type: 'promote'; id: string; pod: string };

export interface Observation {
  /** Observed member pods that are not being deleted. */
  pods: KubeObject[];
  /** Names of observed pods being deleted. */
  terminating: string[];
  /** The member list, when etcd answered. */
  etcd?: { members: EtcdMember[]; clusterVersion?: string };
  etcdError?: string;
  /** Health of each observed pod's member, by pod name. */
  health: Record<string, MemberHealth>;
  /** The newest EtcdRestore naming this cluster, if any. */
  restore?: { uid: string; name: string; source: RestoreSource };
}

/** Progress of a restore, kept in status.restore: Replacing (old members dropped) -> Restoring -> Restored. */
export interface RestoreState {
  uid: string;
  name: string;
  phase: 'Replacing' | 'Restoring' | 'Restored';
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
}

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
}

const DEAD_PHASES = new Set(['Failed', 'Succeeded']);

function podImage(pod: KubeObject): string | undefined {
  const containers = (pod['spec'] as { containers?: Array<{ name?: string; image?: string }> } | undefined)?.containers;
  return containers?.find((c) => c.name === 'etcd')?.image ?? containers?.[0]?.image;
}

function withImage(pod: KubeObject, img: string, version: string): KubeObject {
  const copy = keepObserved(pod);
  const spec = copy['spec'] as { containers?: Array<{ name?: string; image?: string }> } | undefined;
  const container = spec?.containers?.find((c) => c.name === 'etcd') ?? spec?.containers?.[0];
  if (container) container.image = img;
  copy.metadata.annotations = { ...(copy.metadata.annotations ?? {}), 'etcd.version': version };
  return copy;
}

function versionOfImage(img: string | undefined): string | undefined {
  const tag = img?.split(':').pop();
  return tag ? normalizeVersion(tag) : undefined;
}

/** etcd supports learners (non-voting members that catch up before they count) from 3.4. */
export function supportsLearners(clusterVersion: string | undefined): boolean {
  if (!clusterVersion) return false;
  const [major, minor] = clusterVersion.split('.').map(Number);
  return (major ?? 0) > 3 || ((major ?? 0) === 3 && (minor ?? 0) >= 4);
}

function initialCluster(c: Cluster, members: Array<{ pod: string }>): string {
  return members.map((m) => `${m.pod}=${peerURL(c, m.pod)}`).join(',');
}

/**
 * A restore replaces the cluster: an explicit request, and the only decision that drops every member.
 * First the old members are dropped (their data goes with them), then a seed member starts from the snapshot,
 * then the cluster grows back to its size as usual.
 */
export function decide(parent: ParentObject, spec: EtcdClusterSpec, obs: Observation): Decision {
  const before = (parent.status as { restore?: RestoreState } | undefined)?.restore;
  const pending = obs.restore && before?.uid !== obs.restore.uid ? obs.restore : undefined;
  // While replacing: no member, no membership call, pods as `pods` says; the ordinals keep growing.
  const restoring = (pods: KubeObject[], lastMemberIndex: number, restore: RestoreState, message: string): Decision => ({
    pods,
    fallbackPods: pods,
    phase: 'Creating',
    reason: 'Restoring',
    conditions: [
      { type: 'Available', status: false, reason: 'Restoring', message },
      { type: 'Recovering', status: true, reason: 'Restoring', message },
    ],
    members: [],
    lastMemberIndex,
    converging: true,
    restore,
  });
  const c = clusterOf(parent, spec);
  const seen = [...obs.pods.map((p) => p.metadata.name!), ...obs.terminating].map((n) => memberIndex(c.name, n) ?? -1);
  const lastIndex = Math.max((parent.status as { lastMemberIndex?: number } | undefined)?.lastMemberIndex ?? -1, ...seen, -1);
  if (pending && !spec.paused) {
    return restoring([], lastIndex, { uid: pending.uid, name: pending.name, phase: 'Replacing' },
      `EtcdRestore ${pending.name}: replacing the cluster with the snapshot ${pending.source.s3.path}`);
  }
  if (before?.phase === 'Replacing' && obs.restore?.uid === before.uid) {
    if (obs.pods.length > 0 || obs.terminating.length > 0) return restoring([], lastIndex, before, 'waiting for the old members to go');
    const seed = memberName(c.name, lastIndex + 1);
    return restoring(
      [memberPod(parent, spec, seed, initialCluster(c, [{ pod: seed }]), 'new', obs.restore.source)],
      lastIndex + 1,
      { ...before, phase: 'Restoring' },
      `seed member ${seed} starts from the snapshot ${obs.restore.source.s3.path}`,
    );
  }
  const d = decideMembers(parent, spec, obs);
  if (before) {
    const restored = before.phase === 'Restored' || (!d.action && d.quorum?.ok === true && d.members.length === spec.size && d.members.every((m) => m.healthy));
    d.restore = { ...before, phase: restored ? 'Restored' : before.phase };
  }
  return d;
}

function decideMembers(parent: ParentObject, spec: EtcdClusterSpec, obs: Observation): Decision {
  const c = clusterOf(parent, spec);
  const targetImage = image(spec);
  const targetVersion = normalizeVersion(spec.version);
  const previous = (parent.status ?? {}) as { phase?: string; lastMemberIndex?: number; memberList?: unknown[] };
  const kept = obs.pods.map(keepObserved);

  // Ordinals only grow: the next member takes one more than any ever seen.
  const seen = [
    ...obs.pods.map((p) => p.metadata.name!),
    ...obs.terminating,
    ...(obs.etcd?.members ?? []).flatMap((m) => [m.name, podOfPeerURL(c, m.peerURLs[0] ?? '') ?? '']),
  ]
    .map((n) => memberIndex(c.name, n))
    .filter((i): i is number => i !== undefined);
  let lastMemberIndex = Math.max(typeof previous.lastMemberIndex === 'number' ? previous.lastMemberIndex : -1, ...seen, -1);

  const base = { fallbackPods: kept, lastMemberIndex, targetVersion: undefined as string | undefined };
  const podByName = new Map(obs.pods.map((p) => [p.metadata.name!, p]));

  // No pods at all.
  if (obs.pods.length === 0) {
    if (obs.terminating.length > 0) {
      return { ...base, pods: [], phase: 'Creating', conditions: [scaling(true, 'WaitingForTermination', `waiting for ${obs.terminating.join(', ')} to go`)], members: [], converging: true };
    }
    const everRan = previous.phase === 'Running' || (Array.isArray(previous.memberList) && previous.memberList.length > 0);
    if (everRan) {
      const message =
        'every member pod is gone and with them the data; restore from a backup (EtcdRestore) or delete and recreate the EtcdCluster';
      return {
        ...base,
        pods: [],
        phase: 'Failed',
        reason: 'AllMembersLost',
        conditions: [available(false, 'AllMembersLost', message), recovering(true, 'AllMembersLost', message)],
        members: [],
        converging: false,
      };
    }
    // Bootstrap a seed member; the others join one at a time.
    lastMemberIndex += 1;
    const seed = memberName(c.name, lastMemberIndex);
    return {
      ...base,
      lastMemberIndex,
      pods: [memberPod(parent, spec, seed, initialCluster(c, [{ pod: seed }]), 'new')],
      phase: 'Creating',
      conditions: [available(false, 'Bootstrapping', `starting seed member ${seed}`), scaling(true, 'Bootstrapping', `seed member ${seed}`)],
      members: [],
      converging: true,
    };
  }

  const healthOf = (pod: string) => obs.health[pod] ?? { healthy: false };
  // Pods exist but no member list: bootstrapping, or quorum lost. Nothing is changed either way.
  if (!obs.etcd) {
    const down = obs.pods.map((p) => p.metadata.name!).filter((n) => !healthOf(n).healthy);
    const creating = previous.phase !== 'Running';
    const members = obs.pods.map((p) => ({ name: p.metadata.name!, healthy: healthOf(p.metadata.name!).healthy }));
    const message = creating
      ? `waiting for the first members to answer (${obs.etcdError ?? 'no answer'})`
      : `etcd does not answer: ${down.length} of ${obs.pods.length} members down (${down.join(', ') || 'none'}); nothing is changed until a quorum is back (${obs.etcdError ?? 'no answer'})`;
    return {
      ...base,
      pods: kept,
      phase: creating ? 'Creating' : 'Running',
      reason: creating ? undefined : 'QuorumLost',
      conditions: creating
        ? [available(false, 'Bootstrapping', message), scaling(true, 'Bootstrapping', message)]
        : [available(false, 'QuorumLost', message), recovering(true, 'QuorumLost', message)],
      members,
      quorum: { members: obs.pods.length, healthy: obs.pods.length - down.length, needed: Math.floor(obs.pods.length / 2) + 1, ok: false, down },
      converging: true,
    };
  }

  // Match members and pods by peer URL (a member has no name until it starts).
  const members = obs.etcd.members.map((m) => {
    const pod = podOfPeerURL(c, m.peerURLs[0] ?? '') ?? (m.name || undefined);
    return { member: m, pod, observed: pod ? podByName.get(pod) : undefined };
  });
  const memberPods = new Set(members.map((m) => m.pod).filter(Boolean));
  const leaderId = Object.values(obs.health).find((h) => h.healthy && h.leader)?.leader;
  const reports: MemberReport[] = members.map(({ member, pod }) => {
    const h = pod ? healthOf(pod) : { healthy: false };
    const report: MemberReport = { name: pod ?? member.name, id: member.id, healthy: h.healthy };
    if (member.peerURLs[0]) report.peerURL = member.peerURLs[0];
    if (pod) report.clientURL = clientURL(c, pod);
    if (leaderId && member.id === leaderId) report.leader = true;
    if (member.isLearner) report.learner = true;
    if (h.version) report.version = h.version;
    return report;
  });
  const voting = members.filter((m) => !m.member.isLearner);
  const healthyVoting = voting.filter((m) => m.pod && healthOf(m.pod).healthy);
  const needed = Math.floor(voting.length / 2) + 1;
  const down = voting.filter((m) => !(m.pod && healthOf(m.pod).healthy)).map((m) => m.pod ?? m.member.id);
  const quorum = { members: voting.length, healthy: healthyVoting.length, needed, ok: healthyVoting.length >= needed, down };
  const versions = reports.filter((r) => r.healthy && r.version).map((r) => r.version!);
  const currentVersion = versions.sort(compareVersions)[0] ?? versionOfImage(podImage(obs.pods[0]!));
  const common = { ...base, members: reports, quorum, currentVersion };

  if (!quorum.ok) {
    const message = `${quorum.healthy} of ${quorum.members} members healthy, ${needed} needed; down: ${down.join(', ')}. Nothing is changed until they return.`;
    return { ...common, pods: kept, phase: 'Running', reason: 'QuorumLost', conditions: [available(false, 'QuorumLost', message), recovering(true, 'QuorumLost', message)], converging: true };
  }
  const runningConditions = (extra: ConditionInput[]): ConditionInput[] => [
    available(true, 'QuorumAvailable', `${quorum.healthy} of ${quorum.members} members healthy`),
    ...extra,
  ];

  if (spec.paused) {
    return {
      ...common,
      pods: kept,
      phase: 'Running',
      conditions: runningConditions([
        { type: 'Paused', status: true, reason: 'SpecPaused', message: 'spec.paused is true: no membership change or upgrade is made' },
      ]),
      converging: false,
    };
  }

  // Pods of members that were added but whose pod is missing (the create failed): recreate them.
  const recreated: KubeObject[] = [];
  for (const m of members) {
    if (!m.member.name && m.pod && !m.observed && !obs.terminating.includes(m.pod)) {
      const peers = members.filter((x) => x.pod && (x.member.name || x === m)).map((x) => ({ pod: x.pod! }));
      recreated.push(memberPod(parent, spec, m.pod, initialCluster(c, peers), 'existing'));
    }
  }
  // Pods that are not members (a removal whose pod delete failed, leftovers): not part of the cluster, dropped.
  const live = obs.pods.filter((p) => memberPods.has(p.metadata.name!) && !DEAD_PHASES.has(phaseOf(p)));
  const livePods = [...live.map(keepObserved), ...recreated];

  // 1. A dead member (its pod gone or finished): remove it; its replacement is a later add.
  const dead = members.find((m) => m.member.name && m.pod && (!m.observed || DEAD_PHASES.has(phaseOf(m.observed))) && !obs.terminating.includes(m.pod));
  if (dead) {
    return {
      ...common,
      action: { type: 'remove', id: dead.member.id, pod: dead.pod!, why: 'dead' },
      pods: livePods.filter((p) => p.metadata.name !== dead.pod),
      phase: 'Running',
      conditions: runningConditions([recovering(true, 'ReplacingDeadMember', `member ${dead.pod} is gone: removing it, a new member will replace it`)]),
      converging: true,
    };
  }

  const unhealthy = reports.filter((r) => !r.healthy).map((r) => r.name);
  const waiting = (reason: string, message: string, condition: (s: boolean, r: string, m: string) => ConditionInput): Decision => ({
    ...common,
    pods: livePods,
    phase: 'Running',
    conditions: runningConditions([condition(true, reason, message)]),
    converging: true,
  });

  // 2. A learner that caught up is promoted to a voting member.
  const learner = members.find((m) => m.member.isLearner);
  if (learner) {
    if (!learner.pod || !healthOf(learner.pod).healthy) {
      return waiting('WaitingForLearner', `waiting for learner ${learner.pod ?? learner.member.id} to start`, scaling);
    }
    return {
      ...common,
      action: { type: 'promote', id: learner.member.id, pod: learner.pod },
      pods: livePods,
      phase: 'Running',
      conditions: runningConditions([scaling(true, 'PromotingLearner', `promoting ${learner.pod} to a voting member`)]),
      converging: true,
    };
  }
  if (unhealthy.length > 0) {
    return waiting('WaitingForHealthy', `waiting for ${unhealthy.join(', ')} to be healthy before the next change`, scaling);
  }

  // 3. Size: add one member (as a learner where etcd supports it) or remove one.
  if (members.length < spec.size) {
    lastMemberIndex += 1;
    const pod = memberName(c.name, lastMemberIndex);
    const learnerAdd = supportsLearners(obs.etcd.clusterVersion);
    const peers = [...members.filter((m) => m.pod).map((m) => ({ pod: m.pod! })), { pod }];
    return {
      ...common,
      lastMemberIndex,
      action: { type: 'add', pod, peerURL: peerURL(c, pod), learner: learnerAdd },
      pods: [...livePods, memberPod(parent, spec, pod, initialCluster(c, peers), 'existing')],
      phase: 'Running',
      conditions: runningConditions([scaling(true, 'ScalingUp', `adding member ${pod} (${members.length + 1} of ${spec.size})`)]),
      converging: true,
    };
  }
  if (members.length > spec.size) {
    // The highest ordinal that is not the leader.
    const victim = [...members]
      .filter((m) => m.pod)
      .sort((a, b) => (memberIndex(c.name, b.pod!) ?? 0) - (memberIndex(c.name, a.pod!) ?? 0))
      .find((m) => m.member.id !== leaderId) ?? members[0]!;
    return {
      ...common,
      action: { type: 'remove', id: victim.member.id, pod: victim.pod!, why: 'scale down' },
      pods: livePods.filter((p) => p.metadata.name !== victim.pod),
      phase: 'Running',
      conditions: runningConditions([scaling(true, 'ScalingDown', `removing member ${victim.pod} (${members.length - 1} of ${spec.size})`)]),
      converging: true,
    };
  }

  // 4. Version: one member at a time, the leader last; the next only once the last one runs the new version.
  const outdated = live.filter((p) => podImage(p) !== targetImage);
  if (outdated.length > 0) {
    const upgraded = live.filter((p) => podImage(p) === targetImage);
    const lagging = upgraded.find((p) => reports.find((r) => r.name === p.metadata.name)?.version !== targetVersion);
    const next = lagging
      ? undefined
      : [...outdated].sort((a, b) => {
          const la = reports.find((r) => r.name === a.metadata.name)?.leader ? 1 : 0;
          const lb = reports.find((r) => r.name === b.metadata.name)?.leader ? 1 : 0;
          return la - lb || (memberIndex(c.name, a.metadata.name!) ?? 0) - (memberIndex(c.name, b.metadata.name!) ?? 0);
        })[0];
    const pods = livePods.map((p) => (next && p.metadata.name === next.metadata.name ? withImage(next, targetImage, targetVersion) : p));
    const message = next
      ? `upgrading ${next.metadata.name} to ${targetVersion} (${upgraded.length} of ${live.length} done)`
      : `waiting for ${lagging!.metadata.name} to run ${targetVersion}`;
    return {
      ...common,
      targetVersion,
      pods,
      phase: 'Running',
      conditions: runningConditions([{ type: 'Upgrading', status: true, reason: next ? 'UpgradingMember' : 'WaitingForMember', message }]),
      converging: true,
    };
  }

  return {
    ...common,
    pods: livePods,
    phase: 'Running',
    conditions: runningConditions([
      scaling(false, 'AtSize', `${members.length} members`),
      { type: 'Upgrading', status: false, reason: 'AtVersion', message: `every member runs ${targetVersion}` },
      recovering(false, 'Healthy', 'every member is healthy'),
    ]),
    converging: recreated.length > 0 || live.length !== obs.pods.length,
  };
}

function phaseOf(pod: KubeObject): string {
  return ((pod['status'] as { phase?: string } | undefined)?.phase) ?? '';
}

function available(status: boolean, reason: string, message: string): ConditionInput {
  return { type: 'Available', status, reason, message };
}
function scaling(status: boolean, reason: string, message: string): ConditionInput {
  return { type: 'Scaling', status, reason, message };
}
function recovering(status: boolean, reason: string, message: string): ConditionInput {
  return { type: 'Recovering', status, reason, message };
}

export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
