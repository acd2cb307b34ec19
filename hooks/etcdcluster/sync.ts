// EtcdCluster sync and finalize: observe etcd (member list, health), decide (plan.ts, pure), make the one
// membership change decided, answer with the pods and Services and an etcd-operator style status.
import {
  isRecord,
  claimClassUnseen,
  claimsHeldCondition,
  CLASS_NOT_SEEN,
  type CompositeSyncRequest,
  type CompositeSyncResponse,
  type ConditionInput,
  conditionsFor,
  currentStatus,
  containersStarted,
  heldForTakenNames,
  holderWants,
  isPodReady,
  isTerminating,
  keepObserved,
  servedByStatus,
  wantedByFirst,
  type KubeObject,
  observed,
  observedNamed,
  type ParentObject,
  holderJudge,
  RETRY_SECONDS,
  RetryLaterError,
  type SyncHook,
  waitingForShare,
  takenIn,
  takenNames,
  typeKey,
} from '../../lib/index.js';
import {
  ETCD_CALLS_PER_PERIOD,
  ETCD_CALLS_PERIOD_SECONDS,
  EtcdError,
  type DialScope,
  type EtcdClient,
} from '../etcdcommon/etcd.js';
import {
  alreadyRestored,
  restoresCarriedOutKnown,
  withRestoreCarriedOut,
  RESTORES_CARRIED_OUT,
  restoresCarriedOutAnnotation,
  type RestoreCarriedOut,
  refusedByCheck,
  RESTORE_SLACK_SECONDS,
  type EtcdClients,
  type EtcdSettings,
  type RestoreState,
} from '../etcdcommon/index.js';
import {
  clusterGovernance,
  checkComplementPolicies,
  clusterEgressHandover,
  memberComplementPolicies,
  memberNetworkPolicy,
  networkPolicyCreated,
  policiesKeptAtDeletion,
  restoreCheckNetworkPolicy,
  withMemberPolicy,
  type EtcdClusterSettings,
} from './network.js';
import { restoreSourceProblem, STRICT_TENANCY, tenancyOf, type BackupTenancy } from '../etcdcommon/tenancy.js';
import { checkedRecordOf } from '../etcdcommon/pin.js';
import {
  CLIENT_PORT,
  clientURL,
  clusterOf,
  disruptionBudget,
  memberClaim,
  memberIndex,
  etcdVersion,
  INSTANCE_LABEL,
  selector,
  selectorText,
  services,
  type RestoreSource,
  RESTORED_BY,
  RESTORED_NAME,
  ownKey,
  podOfMember,
  withMemberLabels,
} from './members.js';
import { memberEvent, podsCreated } from './events.js';
import { disarmStrangers, disarmedEvent } from './alarms.js';
import { checkClusterDomain, dialScope, domainsOf, type MemberNamesInput, namedSpec } from './identity.js';
import { MAX_DIALLED_PODS, MAX_MEMBER_NAMES, memberWindow, observe, type Ignored, type Observed } from './observe.js';
import { checkPodName, recordedSource } from './restore.js';
import { decide, sanitize, type Decision, type Observation } from './plan.js';
import { heldForNamesNotChecked, memberOrdinals, namesAskedWith, notAskedFor, withNamesAskedWith } from './names.js';
import { holdForQuota } from './quota.js';
import { settleReport } from './settle.js';
import { lastIndexSeen, type Previous } from './plan/view.js';
import { restoredFrom } from './plan/restore-check.js';
import type { EtcdClusterSpec } from './schema.js';
import { type TlsState, tlsSecretNames, tlsState } from './tls.js';
import { checkedRecordProblem, parser } from './spec-checks.js';

// The spec's parser (spec-checks.ts), where the tests and tools have always taken it.
export { parser };

/**
 * Seconds before the next step while the cluster converges, and after a failed call to etcd: `soon`, not
 * `failure`, since a member that restarts answers again within seconds and a call to etcd is cheap.
 */
export const ETCD_STEP_SECONDS = RETRY_SECONDS.step;
export const ETCD_RETRY_SECONDS = RETRY_SECONDS.soon;
/**
 * Seconds before the next sync of a cluster none of whose members answered any call of this sync, some of them
 * timing out (silent members: each such sync waits a call deadline): `failure`, not the 5 s of a converging cluster.
 */
export const ETCD_SILENT_RETRY_SECONDS = RETRY_SECONDS.failure;

/** A client that dials nothing: the operator's TLS material is unusable, every call fails with why. */
function noDial(why: string): EtcdClient {
  const fail = () => Promise.reject(new EtcdError(why, 'TLS'));
  return {
    memberList: fail,
    memberAdd: fail,
    memberRemove: fail,
    memberPromote: fail,
    health: async () => ({ healthy: false, error: why, tls: why }),
  };
}

const byOrdinal = (cluster: string) => (a: string, b: string) =>
  (memberIndex(cluster, a) ?? 0) - (memberIndex(cluster, b) ?? 0);

/**
 * The restore recorded in status past its check (Replacing, Restoring) with the snapshot checked, its source checked
 * again against the tenancy rules: plan.ts carries it on if its EtcdRestore is deleted after the old members
 * were dropped (its snapshot is then the only data left).
 */
function carriedOn(
  request: CompositeSyncRequest,
  image: string,
  policy: BackupTenancy,
): Observation['restore'] | undefined {
  const record = (request.parent.status as { restore?: RestoreState } | undefined)?.restore;
  if (!record?.s3?.path || (record.phase !== 'Replacing' && record.phase !== 'Restoring')) return undefined;
  const own = { metadata: { namespace: request.parent.metadata.namespace }, spec: { s3: record.s3 } };
  if (restoreSourceProblem(own, policy) !== undefined) return undefined;
  return {
    uid: record.uid,
    name: record.name,
    source: recordedSource(record as RestoreState, image),
    ...(record.created ? { created: record.created } : {}),
  };
}

/**
 * The unfinished EtcdRestore the member pods were started for (RESTORED_BY: one uid on every pod that carries it),
 * when the status records another restore or none (its record lost): its source checked again against the tenancy
 * rules. plan.ts finds the running restore's record again from it and the pods (plan/restore-rebuilt.ts).
 */
function restoreOfPods(
  request: CompositeSyncRequest,
  image: string,
  policy: BackupTenancy,
): Observation['restore'] | undefined {
  const uids = new Set(
    observed(request.children, 'Pod', 'v1')
      .map((p) => p.metadata.annotations?.[RESTORED_BY])
      .filter((u): u is string => typeof u === 'string'),
  );
  const record = (request.parent.status as { restore?: RestoreState } | undefined)?.restore;
  const [uid] = [...uids];
  if (uids.size !== 1 || uid === undefined || record?.uid === uid) return undefined;
  const r = observed(request.related, 'EtcdRestore', 'etcd.database.coreos.com/v1beta2').find(
    (x) =>
      (x.metadata.uid ?? x.metadata.name) === uid &&
      (x.metadata.namespace ?? '') === (request.parent.metadata.namespace ?? '') &&
      (x['spec'] as { etcdCluster?: { name?: string } } | undefined)?.etcdCluster?.name ===
        request.parent.metadata.name &&
      typeof (x['status'] as { succeeded?: unknown } | undefined)?.succeeded !== 'boolean',
  );
  const source = r ? checkedSource(r, uid, image, policy) : undefined;
  if (!r || !source) return undefined;
  return {
    uid,
    name: r.metadata.name,
    source,
    ...(r.metadata.creationTimestamp ? { created: r.metadata.creationTimestamp } : {}),
  };
}

/**
 * Where an EtcdRestore found again without the cluster's record of it fetches from: what its own status kept of its
 * check (status.checked: the source checked and the pin, hooks/etcdbackup/restore.ts), so that its members fetch
 * only the bytes checked, from the source checked (not the spec as edited since). A status written before that was
 * kept: its spec, unpinned (as before). Either is checked again against the tenancy rules.
 */
function checkedSource(r: KubeObject, uid: string, image: string, policy: BackupTenancy): RestoreSource | undefined {
  const checked = checkedRecordOf(r['status'], uid);
  const s3 = checked?.s3 ?? (r['spec'] as { s3?: RestoreSource['s3'] } | undefined)?.s3;
  if (!s3?.path || restoreSourceProblem({ metadata: r.metadata, spec: { s3 } }, policy) !== undefined) return undefined;
  return { s3, image, ...(checked?.snapshot ? { snapshot: checked.snapshot } : {}) };
}

/**
 * What the decision reads beside etcd and the pods: the restores, the time, this project's image, and why no new
 * member claim can be made (claimsUnseen), if so.
 */
function withContext(
  obs: Observation,
  request: CompositeSyncRequest,
  spec: EtcdClusterSpec,
  settings: EtcdSettings,
  now: Date,
): void {
  withRestores(obs, request, settings);
  obs.now = now;
  obs.operatorImage = settings.image;
  if (settings.upgradeSoakSeconds !== undefined) obs.upgradeSoakSeconds = settings.upgradeSoakSeconds;
  const held = claimsUnseen(request, spec, settings);
  if (held) obs.claimsHeld = held;
  // The ordinals a new member may take: those asked for whose names no other owner holds (names.ts memberOrdinals).
  obs.ordinals = memberOrdinals(request, Boolean(spec.pod?.persistentVolumeClaimSpec), now);
}

/**
 * The members etcd lists that never started (etcd gives a member its name when it starts: one without joined
 * nothing and holds no data) whose pod is not observed as this cluster's and whose pod name another owner holds
 * (lib/ownership.ts takenNames, the holders judged as heldForNames judges them): a pod another parent made under
 * the name between the sync that added the member and Metacontroller's create. That pod can never be made, so the
 * member never starts; plan/members.ts cancels its addition. With storage the same for the member's claim name
 * while no claim of that name is observed as this cluster's (a claim another owner made under it before
 * Metacontroller's create: a StatefulSet `x` of template `data` names its claims `data-x-<i>`): its pod is never
 * answered on that claim (childrenOf answers a new member pod only once its claim is observed as the cluster's), so
 * the member never starts either. At most MAX_DIALLED_PODS members are looked at.
 */
function unstartedTaken(
  request: CompositeSyncRequest,
  c: ReturnType<typeof clusterOf>,
  obs: Observed,
  now: Date,
  storage: boolean,
): Array<{ pod: string; holder: string; what: 'pod' | 'claim' }> {
  if (!request.related) return [];
  const namespace = request.parent.metadata.namespace ?? '';
  const pods = (obs.etcd?.members ?? [])
    .filter((m) => !m.name)
    .slice(0, MAX_DIALLED_PODS)
    .map((m) => podOfMember(c, m))
    .filter((pod): pod is string => pod !== undefined && !observedNamed(request.children, 'Pod', 'v1', pod, namespace));
  if (pods.length === 0) return [];
  const wanted = [
    ...pods.map((pod) => ({ apiVersion: 'v1', kind: 'Pod', name: pod })),
    ...(storage
      ? pods
          .filter((pod) => !observedNamed(request.children, 'PersistentVolumeClaim', 'v1', pod, namespace))
          .map((pod) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', name: pod }))
      : []),
  ];
  const seen = new Set<string>();
  return takenNames(request, wanted, undefined, holderJudge(now))
    .filter((t) => !seen.has(t.child.name) && Boolean(seen.add(t.child.name)))
    .map((t) => ({ pod: t.child.name, holder: t.holder, what: t.child.kind === 'Pod' ? 'pod' : 'claim' }));
}

/**
 * The unfinished EtcdRestore whose own status says the cluster's old members were dropped for it (its sticky
 * `membersDropped`, hooks/etcdbackup/restore.ts), when the cluster's status records no restore (its record lost
 * before any restored member was made; a record of another restore, a failure of this one not yet read by its hook
 * included, is not overruled by that word): exactly one such (of this namespace, naming this cluster, not
 * older than it), its source checked again against the tenancy rules. plan.ts carries it on only where no member pod
 * or claim is left (plan/restore-rebuilt.ts).
 */
function restoreOfStatus(
  request: CompositeSyncRequest,
  image: string,
  policy: BackupTenancy,
): Observation['recordedRestore'] | undefined {
  const record = (request.parent.status as { restore?: RestoreState } | undefined)?.restore;
  const born = Date.parse(request.parent.metadata.creationTimestamp ?? '');
  const dropped = observed(request.related, 'EtcdRestore', 'etcd.database.coreos.com/v1beta2').filter((x) => {
    const status = x['status'] as { succeeded?: unknown; membersDropped?: unknown } | undefined;
    return (
      status?.membersDropped === true &&
      typeof status.succeeded !== 'boolean' &&
      (x.metadata.namespace ?? '') === (request.parent.metadata.namespace ?? '') &&
      (x['spec'] as { etcdCluster?: { name?: string } } | undefined)?.etcdCluster?.name ===
        request.parent.metadata.name &&
      (Number.isNaN(born) || Date.parse(x.metadata.creationTimestamp ?? '') >= born - RESTORE_SLACK_SECONDS * 1000)
    );
  });
  const r = dropped.length === 1 ? dropped[0] : undefined;
  const uid = r ? (r.metadata.uid ?? r.metadata.name) : undefined;
  const source = r && uid ? checkedSource(r, uid, image, policy) : undefined;
  if (record || !r || !uid || !source) return undefined;
  return {
    uid,
    name: r.metadata.name,
    source,
    membersDropped: true,
    ...(r.metadata.creationTimestamp ? { created: r.metadata.creationTimestamp } : {}),
  };
}

/** The restores the decision reads: the one pending, the one recorded past its check, the last failed one. */
function withRestores(obs: Observation, request: CompositeSyncRequest, settings: EtcdSettings): void {
  const restore = pendingRestore(request, settings.image, tenancyOf(settings));
  if (restore) obs.restore = restore;
  const recorded =
    carriedOn(request, settings.image, tenancyOf(settings)) ??
    restoreOfPods(request, settings.image, tenancyOf(settings)) ??
    restoreOfStatus(request, settings.image, tenancyOf(settings));
  if (recorded) obs.recordedRestore = recorded;
  const failed = failedRestore(request);
  if (failed) obs.failedRestore = failed;
}

/**
 * The newest finished EtcdRestore of this cluster (its namespace, naming it, not older than it), when it failed: the
 * record of a failure that outlives the EtcdCluster's status (a failed restore may have dropped every member).
 */
export function failedRestore(request: CompositeSyncRequest): Observation['failedRestore'] {
  const name = request.parent.metadata.name;
  const born = Date.parse(request.parent.metadata.creationTimestamp ?? '');
  const finished = observed(request.related, 'EtcdRestore', 'etcd.database.coreos.com/v1beta2')
    .filter((r) => (r.metadata.namespace ?? '') === (request.parent.metadata.namespace ?? ''))
    .filter((r) => (r['spec'] as { etcdCluster?: { name?: string } } | undefined)?.etcdCluster?.name === name)
    .filter((r) => typeof (r['status'] as { succeeded?: unknown } | undefined)?.succeeded === 'boolean')
    .filter(
      (r) =>
        Number.isNaN(born) || Date.parse(r.metadata.creationTimestamp ?? '') >= born - RESTORE_SLACK_SECONDS * 1000,
    )
    .sort((a, b) => (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? ''));
  const r = finished[0];
  const status = r?.['status'] as { succeeded?: boolean; reason?: unknown } | undefined;
  if (!r || status?.succeeded !== false) return undefined;
  return {
    uid: r.metadata.uid ?? r.metadata.name,
    name: r.metadata.name,
    reason: sanitize(typeof status.reason === 'string' ? status.reason : 'the restore failed', 200),
    ...(r.metadata.creationTimestamp ? { created: r.metadata.creationTimestamp } : {}),
  };
}

/**
 * The restores the cluster carried out, as its status and its member pods record them (etcdcommon
 * RESTORES_CARRIED_OUT: found again after a lost status), but for those whose restored members run (judged from them).
 */
function knownRestores(request: CompositeSyncRequest) {
  const pods = observed(request.children, 'Pod', 'v1');
  const results = pods.map((p) => ({ name: p.metadata.annotations?.[RESTORED_NAME], path: restoredFrom(p) }));
  return restoresCarriedOutKnown(request.parent, pods, results);
}

/**
 * The EtcdRestore that should act on this cluster, if any: the newest naming it that has not finished. The
 * record of a restore lives on the EtcdRestore: one that succeeded or failed (status.succeeded set), or that
 * is older than the cluster (a cluster deleted and recreated under the same name, or whose status was lost),
 * never acts again.
 */
export function pendingRestore(
  request: CompositeSyncRequest,
  image: string,
  policy: BackupTenancy = STRICT_TENANCY,
): Observation['restore'] {
  const name = request.parent.metadata.name;
  const born = request.parent.metadata.creationTimestamp ?? '';
  const last = (request.parent.status as { restore?: Partial<RestoreState> } | undefined)?.restore;
  const restores = observed(request.related, 'EtcdRestore', 'etcd.database.coreos.com/v1beta2')
    // In the cluster's own namespace only: with hook version v2, Metacontroller v4.17 lists a rule without a
    // namespace across every namespace (pkg/controller/common/customize/manager.go L665-683).
    .filter((r) => (r.metadata.namespace ?? '') === (request.parent.metadata.namespace ?? ''))
    .filter(
      (r) =>
        !isTerminating(r) && (r['spec'] as { etcdCluster?: { name?: string } } | undefined)?.etcdCluster?.name === name,
    )
    .filter((r) => typeof (r['status'] as { succeeded?: unknown } | undefined)?.succeeded !== 'boolean')
    // Only from a source of the restore's own namespace (hooks/etcdcommon/tenancy.ts).
    .filter((r) => restoreSourceProblem(r, policy) === undefined)
    // Not older than the cluster (within RESTORE_SLACK_SECONDS: one `kubectl apply` of both may stamp the
    // restore a second earlier): a restore made for a cluster since deleted never acts on its successor.
    .filter(
      (r) =>
        !born ||
        !r.metadata.creationTimestamp ||
        Date.parse(r.metadata.creationTimestamp) >= Date.parse(born) - RESTORE_SLACK_SECONDS * 1000,
    )
    // Only a restore newer than the last one this cluster made acts (or that one itself, while it runs): an
    // older one left unfinished (superseded, or its status lost) never replaces what the newer one restored.
    // Creation times have a resolution of one second: another EtcdRestore (another UID) under the name and of the
    // very second of one its check refused (it restored nothing) is a new request (that one deleted and recreated),
    // not an older one. (Another name of that second, made with it, was not taken: hooks/etcdbackup/restore.ts.)
    .filter(
      (r) =>
        !last?.created ||
        (r.metadata.uid ?? r.metadata.name) === last.uid ||
        Date.parse(r.metadata.creationTimestamp ?? '') > Date.parse(last.created) ||
        (Date.parse(r.metadata.creationTimestamp ?? '') === Date.parse(last.created) &&
          r.metadata.name === last.name &&
          refusedByCheck(last)),
    )
    // The restore this cluster already carried out, made again under its name with its snapshot (a GitOps tool after
    // the advised delete, a namespace restore of object backups): never replayed over the writes made since (its
    // EtcdRestore hook ends it AlreadyRestored; a new name restores again on purpose).
    .filter(
      (r) =>
        (r.metadata.uid ?? r.metadata.name) === last?.uid ||
        !alreadyRestored(
          last,
          r.metadata.name,
          (r['spec'] as { s3?: { path?: unknown } } | undefined)?.s3,
          knownRestores(request),
        ),
    )
    .sort((a, b) => (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? ''));
  const r = restores[0];
  const s3 = (r?.['spec'] as { s3?: RestoreSource['s3'] } | undefined)?.s3;
  if (!r || !s3?.path) return undefined;
  const found: NonNullable<Observation['restore']> = {
    uid: r.metadata.uid ?? r.metadata.name,
    name: r.metadata.name,
    source: { s3, image },
  };
  if (r.metadata.creationTimestamp) found.created = r.metadata.creationTimestamp;
  return found;
}

/**
 * What an EtcdCluster served (lib/ownership.ts HeldOptions.served), from its status and, the status lost, from etcd
 * and its children: Ready, a cluster ID or member IDs recorded, members that answer, a member pod whose etcd started,
 * a member claim bound to a volume. Undefined when none: no member ever bootstrapped, so no data is lost when its pods go.
 */
export function served(request: CompositeSyncRequest, obs: Observation): string | undefined {
  const said = servedByStatus(request.parent);
  if (said) return said;
  const status = (request.parent.status ?? {}) as { clusterID?: unknown; memberList?: unknown };
  if (typeof status.clusterID === 'string' && status.clusterID) return `its status records cluster ${status.clusterID}`;
  if (Array.isArray(status.memberList) && status.memberList.some((m) => (m as { id?: unknown } | null)?.id))
    return 'its status records etcd members';
  if ((obs.etcd?.members.length ?? 0) > 0) return 'its etcd members answer';
  if (Object.values(obs.health).some((h) => h?.healthy === true)) return 'a member of it is healthy';
  const started = observed(request.children, 'Pod', 'v1').find((p) => isPodReady(p) || containersStarted(p));
  if (started) return `its member pod ${started.metadata.name} ran etcd`;
  // Its status lost and its pods not started (Pending after a node drain): its own member claims (its children),
  // bound to a volume, say a member kept data there; it does not release its pods and Services on that doubt.
  const bound = observed(request.children, 'PersistentVolumeClaim', 'v1')
    .filter((c) => {
      const phase = (c['status'] as { phase?: unknown } | undefined)?.phase;
      const volumeName = (c['spec'] as { volumeName?: unknown } | undefined)?.volumeName;
      return phase === 'Bound' || (typeof volumeName === 'string' && volumeName !== '');
    })
    .map((c) => c.metadata.name)
    .sort();
  if (bound.length === 0) return undefined;
  return `its member claim ${bound[0]} is bound${bound.length > 1 ? ` (and ${bound.length - 1} more)` : ''}`;
}

/** What says which names a cluster's members are made with (identity.ts namedSpec). */
function memberNames(request: CompositeSyncRequest, tls: TlsState | undefined): MemberNamesInput {
  return {
    pods: observed(request.children, 'Pod', 'v1'),
    status: request.parent.status,
    certificates: Object.values(tls?.members ?? {}).map((f) => f.cert),
  };
}

/**
 * The cluster's sync; every answer records what the customize answer of this generation was asked with
 * (names.ts namesAskedWith), so that a later sync of the generation knows which member names it checked.
 */
export async function sync(
  hook: SyncHook<EtcdClusterSpec, EtcdClients, EtcdClusterSettings>,
): Promise<CompositeSyncResponse> {
  // What members say settles before the status says it again (settle.ts): no sync loop on a member that flaps.
  return settleReport(hook.parent, withNamesAskedWith(hook.parent, await syncCluster(hook)), hook.now);
}

async function syncCluster(
  hook: SyncHook<EtcdClusterSpec, EtcdClients, EtcdClusterSettings>,
): Promise<CompositeSyncResponse> {
  const { parent, now, clients, settings } = hook;
  // Only pods and claims that can be this cluster's members are considered at all (observe.ts memberWindow): the
  // work of the sync and its answer are bounded whatever a tenant labels with the cluster's selector.
  const { request, ignored } = memberWindow(hook.request, parent.metadata.name, (parent.status ?? {}) as object);
  // A cluster domain the server does not allow steers no dial and no pod: nothing is done until it is fixed.
  checkClusterDomain(hook.spec, settings);
  // The Secrets of TLS.static, checked before anything is dialled (tls.ts); the operator's certificate, when
  // usable, is the client's identity.
  const tls = tlsState(parent.spec, request.related, parent.metadata.namespace ?? '', now);
  // The names members are made with: fully qualified in the server's domain, unless the cluster's members were
  // made with relative ones or its certificates carry only those (identity.ts namedSpec).
  const spec = namedSpec(hook.spec, parent, settings, memberNames(request, tls));
  const c = clusterOf(parent, spec);
  // A sync dials at most MAX_DIALLED_PODS pods: a member list and three calls each, and the membership change.
  const pods = Math.min(observed(request.children, 'Pod', 'v1').length, MAX_DIALLED_PODS);
  const client = syncClient(clients.etcd(tls?.operator, parent.metadata.namespace ?? ''), {
    ...dialScope(c, settings, hook.signal),
    maxCalls: 4 * pods + 1,
  });
  // Members serve TLS but the operator's certificate is unusable: nothing is dialled with it.
  const operatorUnusable = Boolean(tls && c.clientTLS && !tls.operator);
  const etcd = operatorUnusable ? noDial(tls!.problems.join('; ')) : client;
  // The sync's room in its namespace's share of calls to etcd (etcd.ts TENANT_MAX_CALLS) and its part of the server's
  // (lib/shares.ts fairTake), taken before anything is dialled, or the sync is answered at once with 429 and
  // Retry-After, nothing done: the namespace's other syncs hold the share, or other namespaces' syncs the server's
  // calls (their members slow or silent), and this one would otherwise wait for them in the hook, holding one of the
  // workers Metacontroller shares between every namespace.
  // The namespace's budget of calls to etcd over time (etcd.ts ETCD_CALLS_PER_PERIOD): spent, the sync is answered at
  // once, nothing dialled, every child and the status kept as they are (Ready too) but Synced, which says so
  // (lib/namespace-calls.ts waitingForShare), asked again once the budget holds this sync's calls (4 a pod and one).
  const budgetWait = pods > 0 && !operatorUnusable ? (client.budgetWait?.(4 * pods + 1, now) ?? 0) : 0;
  if (budgetWait > 0) {
    const retry = Math.max(RETRY_SECONDS.soon, budgetWait);
    return waitingForShare(
      hook.request,
      `waiting for this namespace's share of calls to etcd: its EtcdClusters' syncs have made the ${ETCD_CALLS_PER_PERIOD} calls a namespace may make in ${ETCD_CALLS_PERIOD_SECONDS / 60} minutes (in each of the hook server's replicas); nothing was dialled and nothing changed, asked again in ${retry} s`,
      retry,
      now,
    );
  }
  if (pods > 0 && !operatorUnusable && client.hold && !client.hold())
    throw new RetryLaterError(
      `no call to etcd free for namespace ${parent.metadata.namespace ?? ''}: its share is held by its other clusters' syncs, or the server's calls by other namespaces' syncs: retried later, nothing done`,
    );
  try {
    return await dialled(hook, { request, ignored, tls, spec, c, client, etcd, operatorUnusable });
  } finally {
    client.release?.();
  }
}

/** What the sync has made before it dials: its request's member window, TLS state, named spec, cluster and clients. */
interface Prepared {
  request: CompositeSyncRequest;
  ignored: Ignored;
  tls: TlsState | undefined;
  spec: EtcdClusterSpec;
  c: ReturnType<typeof clusterOf>;
  client: EtcdClient;
  etcd: EtcdClient;
  operatorUnusable: boolean;
}

/**
 * A TLS problem holds the cluster as it is: no membership change, no pod made or changed, a condition says which
 * Secret and what; fixing the Secret lets the next sync carry on. etcd's authentication on is held the same way.
 */
function holdForAccess(
  decision: Decision,
  obs: Observed,
  {
    namespace,
    spec,
    tls,
    operatorUnusable,
    known,
  }: { namespace: string; spec: EtcdClusterSpec; tls: Prepared['tls']; operatorUnusable: boolean; known: boolean },
): void {
  const tlsProblems = [...(tls?.problems ?? [])];
  if (obs.tls && !operatorUnusable) {
    const name = tlsSecretNames(spec).operatorSecret;
    tlsProblems.push(`etcd cannot be reached with Secret ${namespace}/${name} (TLS.static.operatorSecret): ${obs.tls}`);
  }
  if (tlsProblems.length > 0) holdForTls(decision, tlsProblems, !obs.etcd);
  // etcd's authentication on: its members serve, the hook (no credentials) cannot read or change its membership;
  // held as a TLS problem is (nothing removed or replaced as "not answering"), a condition names the cause.
  else if (obs.auth)
    holdForTls(
      decision,
      [
        `etcd's authentication is enabled (${sanitize(obs.auth, 80)}): metaops has no credentials for the cluster and cannot manage it; disable it (etcdctl auth disable) for metaops to manage the members`,
      ],
      true,
      true,
    );
  // An EtcdCluster that has not yet known its etcd cluster (no status.clusterID: a new object), every pod that
  // answered answering as another etcd cluster's member (deleted with --cascade=orphan and applied again over its
  // running members: their cluster was made under the old UID): they serve, nothing is read or changed through them
  // (ForeignMember), and they are not said down nor the quorum lost. A cluster that knew its own etcd and now finds
  // another at its names (identity.ts) has lost its own members from view: QuorumLost stays.
  else if (!known && !obs.etcd && obs.foreign.length > 0 && decision.reason === 'QuorumLost')
    notSaidDown(decision, obs.foreign);
}

/** A wait for a quorum whose members answered, as another cluster's: said as such, its quorum not reported. */
function notSaidDown(d: Decision, foreign: string[]): void {
  const names = foreign.slice(0, 5).join(', ') + (foreign.length > 5 ? ` and ${foreign.length - 5} more` : '');
  const message = `${names} answered as members of an etcd cluster this EtcdCluster did not make (an EtcdCluster deleted with --cascade=orphan and created again: its members' cluster was made under the old object's UID): they are not reported down, nothing is read from them or changed through them, and this cluster's quorum is not known`;
  const held = ['Available', 'Recovering'];
  d.conditions = [
    { type: 'Available', status: 'Unknown' as const, reason: 'ForeignMember', message },
    ...d.conditions.filter((x) => !held.includes(x.type)),
  ];
  delete d.quorum;
  d.reason = 'ForeignMember';
}

/**
 * What the sync settles on the observation before it decides: the restore's record of what its check started
 * (the status's, which whoever may write it can change) checked as the spec is, before any restored member is made
 * from it; and alarms kept under member IDs no member has (a snapshot restored that was taken under NOSPACE)
 * disarmed and said.
 */
async function beforeDecision(
  hook: SyncHook<EtcdClusterSpec, EtcdClients, EtcdClusterSettings>,
  request: Prepared['request'],
  obs: Observed,
  c: Prepared['c'],
  etcd: Prepared['etcd'],
): Promise<void> {
  const { parent, settings, log } = hook;
  const restore = (parent.status as { restore?: unknown } | undefined)?.restore;
  const refused = checkedRecordProblem(
    parent,
    hook.spec,
    isRecord(restore) ? restore['checked'] : undefined,
    settings,
    request,
  );
  if (refused) obs.checkedRefused = refused;
  const alarms = await disarmStrangers(c, obs, etcd, Boolean(hook.spec.paused));
  if (alarms?.disarmed.length) hook.event(disarmedEvent(alarms));
  if (alarms?.error) log.warn({ error: alarms.error }, 'disarming the alarms of non-members failed');
}

/** The sync once its room to dial is held: observe, decide, make the one change decided, answer. */
async function dialled(
  hook: SyncHook<EtcdClusterSpec, EtcdClients, EtcdClusterSettings>,
  { request, ignored, tls, spec, c, client, etcd, operatorUnusable }: Prepared,
): Promise<CompositeSyncResponse> {
  const { parent, now, settings, log } = hook;
  const obs = await observe(parent, request, etcd, spec, domainsOf(settings).allowed);
  withContext(obs, request, spec, settings, now);
  await beforeDecision(hook, request, obs, c, etcd);
  const unstarted = unstartedTaken(request, c, obs, now, Boolean(spec.pod?.persistentVolumeClaimSpec));
  if (unstarted.length > 0) obs.unstartedTaken = unstarted;
  const decision = decide(withOrdinalFloor(parent, request), spec, obs);
  holdForAccess(decision, obs, {
    namespace: parent.metadata.namespace ?? 'default',
    spec,
    tls,
    operatorUnusable,
    known: clusterIdOf(parent, {}) !== undefined,
  });
  // A named StorageClass not seen (lib/storage-class.ts: not created yet, or not yet sent by Metacontroller after an
  // upgrade of metaops): no new claim is made. The members and claims that exist stay as they are and every step
  // that makes no new claim goes on; a step that would (a bootstrap, an addition, a replacement's new member, a
  // restore's members) waits, and ClaimsHeld says why.
  const classUnseen = holdForClass(request, spec, settings, decision, heldState(c, obs, request));
  // A backend quota (spec.pod.etcdEnv) at or under the data the members hold: no member pod is made with it (it would
  // raise NOSPACE at its first write and the whole cluster refuse writes); the running members keep serving (quota.ts).
  holdForQuota(decision, spec, obs, heldState(c, obs, request).lastSeen);
  // A child name another owner holds, or one the customize answer in use did not ask for: nothing is made, and no
  // member is added for a pod that could not be created or checked. Made together with a parent made before it that
  // wants the same names, a cluster that never served yields (lib/ownership.ts): it releases the pods and Services
  // that parent wants.
  const held = heldForNames(request, respond(request, spec, { ...decision, classUnseen, settings }, now), now, obs);
  // Held, its running members keep (or get) their NetworkPolicy where its name is free (network.ts).
  if (held) return withMemberPolicy(request, held, settings ?? {}, servicesSelectOwn(request), now);
  // A change goes only through members that proved, in this sync, to be this cluster's and healthy (observe.ts):
  // their addresses were looked up once, so the change reaches the member that answered.
  const endpoints = obs.pods
    .filter((p) => obs.health[p.metadata.name]?.healthy === true)
    .map((p) => clientURL(c, p.metadata.name));

  let answer: Decision = decision;
  let failure: string | undefined;
  if (decision.action) {
    const a = decision.action;
    try {
      await unlessWanted(hook.turnWanted, () => {
        if (a.type === 'add') return client.memberAdd(endpoints, a.peerURL, a.learner);
        if (a.type === 'remove') return client.memberRemove(endpoints, a.id);
        return client.memberPromote(endpoints, a.id);
      });
      answer = { ...decision, ...decision.onSuccess };
      hook.event(memberEvent(a, decision.skipped));
    } catch (err) {
      // The condition names the kind of failure; etcd's own rejection is short and stable, a network error is
      // not (it alternates between syncs): that detail goes to the log only.
      log.warn({ err, action: a.type, pod: a.pod }, 'etcd membership call failed');
      failure = `${a.type} ${a.pod} failed: ${failureKind(err)}`;
      answer = { ...decision, ...decision.onFailure };
    }
  }
  if (obs.etcdError) log.debug({ error: obs.etcdError }, 'etcd member list failed');
  const response = respond(
    request,
    spec,
    { ...withIdentity(answer, obs), ignored, classUnseen, settings },
    now,
    failure,
  );
  // Not one member answered and some were silent: the next look waits longer than a step (each costs a deadline).
  if (
    client.silent?.() &&
    response.resyncAfterSeconds !== undefined &&
    response.resyncAfterSeconds < ETCD_SILENT_RETRY_SECONDS
  )
    response.resyncAfterSeconds = ETCD_SILENT_RETRY_SECONDS;
  return response;
}

/**
 * The answer of a cluster whose planned answer wants a child name it cannot take or could not check, else undefined:
 * a name another owner holds (lib/ownership.ts; the holder of a pod name is remembered in status.heldBy: while it
 * exists and wants the name, the cluster stays held even when that pod is gone for a moment, lib/podholders.ts), or a
 * member name the customize answer in use did not ask for (it was asked with an older status: names.ts), which is not
 * checked for another owner. Nothing is made under it and no member is added for it.
 */
function heldForNames(
  request: CompositeSyncRequest,
  planned: CompositeSyncResponse,
  now: Date,
  obs: Observed,
): CompositeSyncResponse | undefined {
  const taken = takenIn(request, planned, holderJudge(now));
  if (taken.length > 0)
    return heldForTakenNames(request, taken, now, undefined, {
      remember: true,
      wants: holderWants,
      served: () => served(request, obs),
    });
  // Held by none, but a parent made before it waits for names it holds (lib/ownership.ts wantedByFirst): it yields
  // when it never served.
  const first = wantedByFirst(request, holderWants);
  if (first.length > 0 && served(request, obs) === undefined)
    return heldForTakenNames(request, first, now, undefined, {
      remember: true,
      wants: holderWants,
      served: () => served(request, obs),
    });
  const asked = namesAskedWith(request.parent);
  const unchecked = notAskedFor(request, planned, asked);
  return unchecked.length > 0 ? heldForNamesNotChecked(request, unchecked, asked, now) : undefined;
}

/**
 * The answer with what the observation says of identity: the cluster ID this sync read (kept in status, with the
 * last one when etcd was not read), and a condition naming pods whose address answered as another cluster.
 */
function withIdentity(d: Decision, obs: Observed): Answer {
  const out: Answer = { ...d };
  if (obs.clusterId) out.clusterId = obs.clusterId;
  if (obs.foreign.length > 0) out.foreign = obs.foreign;
  if (obs.invalidList) out.invalidList = obs.invalidList;
  return out;
}

/**
 * The sync's view of the client: every etcd call of it stops when the route's deadline passes, reaches only
 * this cluster's member names, and counts against the sync's and the server's caps on calls in flight.
 */
function syncClient(shared: EtcdClient, scope: DialScope): EtcdClient {
  if (shared.scoped) return shared.scoped(scope);
  return shared.withSignal?.(scope.signal) ?? shared;
}

/**
 * What a held decision keeps as it was: the highest ordinal seen, the observed member pods and member claims (not
 * being deleted).
 */
interface HeldState {
  lastSeen: number;
  pods: KubeObject[];
  claims: string[];
}

/**
 * Whether the claims' named StorageClass is not seen (claimClassUnseen): the decision held when it would make a new
 * claim (holdForStorageClass). A restore waits at its passed check before it drops a member (`claimsUnseen`).
 */
function holdForClass(
  request: CompositeSyncRequest,
  spec: EtcdClusterSpec,
  settings: EtcdSettings,
  decision: Decision,
  kept: HeldState,
): boolean {
  const unseen = claimsUnseen(request, spec, settings);
  if (unseen === undefined) return false;
  if (makesNewClaims(request, spec, decision)) holdForStorageClass(decision, unseen, kept, request.parent);
  return true;
}

/** The decision held for a TLS problem: the observed pods as they are, no action, the problem as conditions. */
function holdForTls(d: Decision, problems: string[], blind: boolean, auth = false): void {
  const message = `${problems.join('; ')}; no change is made until this is fixed`;
  delete d.action;
  d.pods = d.fallbackPods;
  d.converging = true;
  const held = ['Scaling', 'Upgrading', 'Recovering', ...(blind ? ['Available'] : [])];
  d.conditions = [
    ...(blind
      ? [
          {
            type: 'Available',
            status: 'Unknown' as const,
            reason: auth ? 'AuthenticationEnabled' : 'TLSFailed',
            message,
          },
        ]
      : []),
    ...d.conditions.filter((x) => !held.includes(x.type)),
    { type: 'Synced', status: false, reason: auth ? 'AuthenticationEnabled' : 'TLSFailed', message },
  ];
  if (blind) {
    // etcd was not seen: its quorum is not known, and the cluster is not reported lost.
    delete d.quorum;
    d.reason = auth ? 'AuthenticationEnabled' : 'TLSFailed';
  }
}

/** Why no new member claim is made: their named StorageClass not seen (lib/storage-class.ts), if so. */
function claimsUnseen(
  request: CompositeSyncRequest,
  spec: EtcdClusterSpec,
  settings: EtcdSettings,
): string | undefined {
  if (!spec.pod?.persistentVolumeClaimSpec) return undefined;
  return claimClassUnseen(
    'spec.pod.persistentVolumeClaimSpec.storageClassName',
    claimClassOf(spec),
    request.related,
    settings.allowStaticVolumes,
  );
}

/** The storage class the member claims name, as the spec gives it (undefined: the default class). */
function claimClassOf(spec: EtcdClusterSpec): unknown {
  const claim = spec.pod?.persistentVolumeClaimSpec as { storageClassName?: unknown } | undefined;
  return claim && typeof claim === 'object' ? claim.storageClassName : undefined;
}

/**
 * Whether the decision makes a claim that does not exist: a member pod not observed whose claim is not observed
 * either (a new member; a pod started again on its observed claim makes none). Without storage, none.
 */
function makesNewClaims(request: CompositeSyncRequest, spec: EtcdClusterSpec, d: Decision): boolean {
  if (!spec.pod?.persistentVolumeClaimSpec) return false;
  const live = liveClaims(request);
  const pods = new Set(observed(request.children, 'Pod', 'v1').map((p) => p.metadata.name));
  return d.pods.some((p) => !pods.has(p.metadata.name!) && (live === undefined || !live.has(p.metadata.name!)));
}

/**
 * What a held decision keeps (HeldState): the highest ordinal seen (status.lastMemberIndex, at least the Service's
 * record, and every member observed), the observed member pods and claims not being deleted.
 */
function heldState(c: ReturnType<typeof clusterOf>, obs: Observed, request: CompositeSyncRequest): HeldState {
  const previous = (withOrdinalFloor(request.parent, request).status ?? {}) as Previous;
  return {
    lastSeen: lastIndexSeen(c, obs, previous),
    pods: obs.pods,
    claims: (obs.claims ?? []).filter((n) => !obs.terminatingClaims?.includes(n)),
  };
}

/**
 * The decision held for a StorageClass not seen: no membership change, the observed pods and claims as they are, no
 * ordinal given out, a running restore's record as it was (its step is taken again once the class is seen); the
 * steps held (Scaling, Recovering) give way to ClaimsHeld, and a cluster with no member pod is not Available for that
 * reason. Everything observed stays: Metacontroller deletes a child the answer leaves out.
 */
function holdForStorageClass(d: Decision, message: string, kept: HeldState, parent: ParentObject): void {
  delete d.action;
  delete d.onSuccess;
  delete d.onFailure;
  // The pods the decision keeps if its step fails, and every other observed member pod as it is (a restore's
  // fallback has none: its step drops them); every observed member claim.
  const answered = new Set(d.fallbackPods.map((p) => p.metadata.name!));
  d.pods = [...d.fallbackPods, ...kept.pods.filter((p) => !answered.has(p.metadata.name!)).map(keepObserved)];
  d.keepClaims = [...new Set([...(d.keepClaims ?? []), ...kept.claims])];
  d.lastMemberIndex = kept.lastSeen;
  // Nothing to step through: the resync period (and the class's own events, once customize asks for it) looks again.
  d.converging = false;
  // A restore past its check does not move to its next phase (its members are not made): its record stays as it was.
  const before = (parent.status as { restore?: RestoreState } | undefined)?.restore;
  if (before && d.restore?.uid === before.uid) d.restore = before;
  const fresh = d.pods.length === 0;
  const held = ['Scaling', 'Recovering', 'ClaimsHeld', ...(fresh ? ['Available'] : [])];
  d.conditions = [
    ...(fresh ? [{ type: 'Available', status: false, reason: CLASS_NOT_SEEN, message }] : []),
    ...d.conditions.filter((x) => !held.includes(x.type)),
    claimsHeldCondition(message),
  ];
}

/** What went wrong, as a stable kind plus etcd's own (sanitised) rejection; never a changing network error. */
/** A membership change stopped (not waited for) because another namespace waits for the body budget this sync holds. */
class GaveWay extends Error {}

/**
 * `change` waited for until it settles, or until `wanted` aborts (lib/hook.ts turnWanted: another namespace's
 * request has waited half its wait for the body budget this sync's request holds, ~2.1 s), whichever is first:
 * then the sync answers the change as failed (`gave way to another namespace`, tried again at the next sync, as a
 * change whose members did not answer in time) and its turn goes to the other namespace. A change is made within
 * MUTATION_BUDGET_MS (3 s) and the sync's reads first take up to a call deadline (1.5 s): a namespace whose members
 * answer reads just in time and never answer a change otherwise held the budget ~4.6 s, past the other namespace's
 * wait (half the hook deadline). The call left running ends within its own budget; it holds no request body.
 */
async function unlessWanted(wanted: AbortSignal | undefined, change: () => Promise<unknown>): Promise<void> {
  if (!wanted) {
    await change();
    return;
  }
  if (wanted.aborted) throw new GaveWay('another namespace waits for the server');
  const running = change();
  let stop: (() => void) | undefined;
  const gaveWay = new Promise<never>((_, reject) => {
    stop = () => reject(new GaveWay('another namespace waits for the server'));
    wanted.addEventListener('abort', stop, { once: true });
  });
  try {
    await Promise.race([running, gaveWay]);
  } finally {
    wanted.removeEventListener('abort', stop!);
    running.catch(() => undefined);
    gaveWay.catch(() => undefined);
  }
}

function failureKind(err: unknown): string {
  if (err instanceof GaveWay) return 'gave way to another namespace waiting for the server';
  if (err instanceof EtcdError && err.code === 'TLS') return `TLS: ${sanitize(err.message, 160)}`;
  if (err instanceof EtcdError)
    return err.code === 'Rejected'
      ? `etcd refused: ${sanitize(err.message, 120)}`
      : err.code === 'Timeout'
        ? 'etcd did not answer in time'
        : 'no etcd member answered';
  return 'the call failed';
}

type Answer = Decision & {
  clusterId?: string;
  foreign?: string[];
  invalidList?: string;
  ignored?: Ignored;
  /** The claims' named StorageClass was not seen: no claim is answered that is not observed (childrenOf). */
  classUnseen?: boolean;
  /** The server's settings the children are answered under (the members' NetworkPolicy: network.ts). */
  settings?: EtcdClusterSettings;
};

function respond(
  request: CompositeSyncRequest,
  spec: EtcdClusterSpec,
  d: Answer,
  now: Date,
  failure?: string,
): CompositeSyncResponse {
  const parent = request.parent;
  const name = parent.metadata.name;
  const own = servicesSelectOwn(request);
  const ready = d.members.filter((m) => m.healthy).map((m) => m.name);
  const unready = d.members.filter((m) => !m.healthy).map((m) => m.name);
  const status: Record<string, unknown> = {
    phase: d.phase,
    controlPaused: Boolean(spec.paused),
    size: d.members.length,
    selector: selectorText(name, own),
    serviceName: `${name}-client`,
    clientPort: CLIENT_PORT,
    members: { ready, unready },
    targetVersion: d.targetVersion ?? '',
    ready: `${ready.length}/${spec.size}`,
    memberList: d.members,
    lastMemberIndex: d.lastMemberIndex,
    conditions: conditionsFor(parent, conditionsOf(request, d, now, failure), now),
  };
  if (d.reason) status['reason'] = d.reason;
  const clusterId = clusterIdOf(parent, d);
  if (clusterId) status['clusterID'] = clusterId;
  const current = d.currentVersion ?? (currentStatus(parent)['currentVersion'] as string | undefined);
  if (current) status['currentVersion'] = etcdVersion(current);
  const leader = d.members.find((m) => m.leader)?.name;
  if (leader) status['leader'] = leader;
  if (d.quorum) status['quorum'] = d.quorum;
  if (d.restore) status['restore'] = d.restore;
  // Those the member pods record are found again after a lost status (etcdcommon RESTORES_CARRIED_OUT).
  const carriedOut = withRestoreCarriedOut(knownRestores(request), d.restore);
  if (carriedOut.length > 0) status['restoresCarriedOut'] = carriedOut;
  if (d.upgradeFailed) status['upgradeFailed'] = d.upgradeFailed;
  if (d.additionsFailed) status['additionsFailed'] = d.additionsFailed;
  if (d.bootstrapFailed) status['bootstrapFailed'] = d.bootstrapFailed;
  const response: CompositeSyncResponse = {
    status,
    children: childrenOf(parent, spec, d, request, own),
  };
  if (failure) response.resyncAfterSeconds = ETCD_RETRY_SECONDS;
  else if (d.converging) response.resyncAfterSeconds = ETCD_STEP_SECONDS;
  return response;
}

/** The claims observed and not being deleted; undefined when the request does not say (then assumed). */
function liveClaims(request: CompositeSyncRequest): Set<string> | undefined {
  if (!request.children?.[typeKey('PersistentVolumeClaim', 'v1')]) return undefined;
  return new Set(
    observed(request.children, 'PersistentVolumeClaim', 'v1')
      .filter((x) => !isTerminating(x))
      .map((x) => x.metadata.name),
  );
}

/**
 * Whether the Services (and the budget, and the scale selector) select on INSTANCE_LABEL: once one of the Services
 * does (observed), for good; before, once every pod they select now (etcd-operator's labels; not being deleted)
 * carries it. A cluster made by an earlier metaops gets the label on its running members in place (childrenOf) and
 * switches at the sync after: switching earlier would take a member out of its Services (its DNS name, its clients)
 * until its label is applied. A new cluster (no such pod) at once.
 */
export function servicesSelectOwn(request: CompositeSyncRequest): boolean {
  const name = request.parent.metadata.name;
  for (const svc of [name, `${name}-client`]) {
    const observedSvc = observedNamed(request.children, 'Service', 'v1', svc);
    const sel = (observedSvc?.['spec'] as { selector?: Record<string, unknown> } | undefined)?.selector;
    if (sel?.[INSTANCE_LABEL] === name) return true;
  }
  const legacy = Object.entries(selector(name));
  return observed(request.children, 'Pod', 'v1')
    .filter((p) => !isTerminating(p) && legacy.every(([k, v]) => p.metadata.labels?.[k] === v))
    .every((p) => p.metadata.labels?.[INSTANCE_LABEL] === name);
}

/**
 * The pods decided (each carrying INSTANCE_LABEL: a running member takes it in place), their claims, the Services
 * and the PodDisruptionBudget (`own`: selecting on it, servicesSelectOwn).
 */
function childrenOf(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  d: Answer,
  request: CompositeSyncRequest,
  own: boolean,
): KubeObject[] {
  // The history of restores carried out, as the status written with these children lists it.
  const history = withRestoreCarriedOut(knownRestores(request), d.restore);
  const pods = d.pods.map((p) => withRestoreHistory(withMemberLabels(p, parent.metadata.name), history));
  const children: KubeObject[] = [...pods, ...(d.restoreCheck ? [d.restoreCheck] : [])];
  if (spec.pod?.persistentVolumeClaimSpec) {
    // A member's claim stays as long as the member belongs to the cluster (its pod is answered, or it is in the
    // member list reported, which carries the last known members while etcd does not answer), whatever happened
    // to its pod; it goes only when the member is removed on purpose, or with the EtcdCluster (finalize).
    // A claim is made only with its pod: a member without a pod keeps the claim observed, never a new empty one
    // (its data went with the old one; a pod made on the new one would start empty under the member's identity).
    const live = liveClaims(request);
    const claims = new Set([
      ...pods.map((p) => p.metadata.name!),
      ...d.members.map((m) => m.name).filter((n) => live === undefined || live.has(n)),
      ...(d.keepClaims ?? []),
    ]);
    // While the claims' class is not seen (lib/storage-class.ts), only the claims observed are answered: a member pod
    // observed without its claim gets no new one (the decision made no new member: holdForStorageClass).
    for (const name of [...claims]
      .filter((n) => memberIndex(parent.metadata.name, n) !== undefined)
      .filter((n) => !d.classUnseen || live === undefined || live.has(n))
      .sort(byOrdinal(parent.metadata.name))) {
      children.push(memberClaim(parent, spec, name));
    }
    // A member pod not observed is answered only once its claim is observed as this cluster's (a child of it, not
    // being deleted): answered together, the pod would be made even where the claim's create fails because another
    // owner made a claim of that name first (a StatefulSet `x` of template `data` names its claims `data-x-<i>`), and
    // would run on that owner's volume (a restore's member would clear it: etcdcommon/snapshot.ts placeRestored).
    // The claim is answered now, the pod at the next sync (the claim's create brings it); a claim another owner holds
    // never becomes the cluster's, and a member that never started on it is removed (plan/members.ts cancelAddition).
    const seen = new Set(observed(request.children, 'Pod', 'v1').map((p) => p.metadata.name));
    const withheld = new Set(
      pods
        .map((p) => p.metadata.name!)
        .filter((n) => !seen.has(n) && (live === undefined || !live.has(n)) && mountsClaim(pods, n)),
    );
    if (withheld.size > 0) children.splice(0, pods.length, ...pods.filter((p) => !withheld.has(p.metadata.name!)));
  }
  // The budget follows the voters as well as the size: while a scale-down or a growth is under way, a drain may
  // take no more members than both the current voters and the desired size can lose.
  children.push(
    ...services(parent, own).map((svc) =>
      svc.metadata.name === parent.metadata.name ? withOrdinal(svc, madeOrdinal(parent, request)) : svc,
    ),
    disruptionBudget(parent, spec.size, d.quorum?.members ?? spec.size, pods.length, own),
  );
  // Who may reach the members and what they may reach (network.ts); none when the server's setting turns it off.
  // Without Egress where the namespace's own policies govern the pods' egress (ours would add to it).
  const governance = clusterGovernance(request, children, d.settings);
  const policy = memberNetworkPolicy(parent, d.settings ?? {}, own, governance.members);
  if (policy) children.push(policy);
  // Where they select some of the members: metaops' egress policies of the others (those none of them selects).
  children.push(...memberComplementPolicies(parent, d.settings ?? {}, own, governance.members));
  // The restore check pod runs the tenant's images too: its own policy while it is answered or still observed (a
  // check pod deleted runs its grace period; the policy goes once the pod is gone).
  if (d.restoreCheck || observedNamed(request.children, 'Pod', 'v1', checkPodName(parent.metadata.name))) {
    const check = restoreCheckNetworkPolicy(parent, d.settings ?? {}, governance.check);
    if (check) children.push(check);
    children.push(...checkComplementPolicies(parent, d.settings ?? {}, governance.check));
  }
  // While their egress changes hands between a policy and its `-egress-` policies, the observed ones are kept until
  // their replacements are observed (network.ts clusterEgressHandover).
  return clusterEgressHandover(request, children, d.settings ?? {}, own, governance);
}

/** Whether the answered pod `name` mounts a claim of its own name (a member's data volume: members.ts). */
function mountsClaim(pods: readonly KubeObject[], name: string): boolean {
  const pod = pods.find((p) => p.metadata.name === name);
  const volumes = ((pod?.['spec'] as { volumes?: unknown } | undefined)?.volumes ?? []) as Array<{
    persistentVolumeClaim?: { claimName?: unknown };
  }>;
  return Array.isArray(volumes) && volumes.some((v) => v?.persistentVolumeClaim?.claimName === name);
}

/**
 * A member pod made before the record of restores carried out (RESTORES_CARRIED_OUT) gets the history the status
 * lists, in place (a change of its metadata only: Metacontroller updates a pod in place, its containers run on), as
 * the instance label is given to pods made before it: after a lost status, an EtcdRestore made again under the name
 * of a restore carried out is then known by the members, never replayed over them. A pod restored for one of them
 * records those before its own (its own is judged from the pod itself: plan/restore-check.ts resultOf), as a restored
 * member is made. A pod that has the record keeps it as it is.
 */
function withRestoreHistory(pod: KubeObject, history: RestoreCarriedOut[]): KubeObject {
  if (pod.metadata.annotations?.[RESTORES_CARRIED_OUT] !== undefined) return pod;
  const name = pod.metadata.annotations?.[RESTORED_NAME];
  const path = restoredFrom(pod);
  const own = history.findIndex((e) => name !== undefined && e.name === name && e.path === path);
  const value = restoresCarriedOutAnnotation(own >= 0 ? history.slice(0, own) : history);
  // Bounded as it is read back (etcdcommon restoresCarriedOutKnown skips a longer one): status is observed data.
  if (!value || value.length > 64 * 1024) return pod;
  return {
    ...pod,
    metadata: { ...pod.metadata, annotations: { ...pod.metadata.annotations, [RESTORES_CARRIED_OUT]: value } },
  };
}

/**
 * The highest ordinal of a member that existed is kept on the headless Service too (LAST_MEMBER_INDEX), beside
 * status: status can be lost (a status rewrite, an object restored from a backup) while the Service stays, and
 * ordinals must grow past every member ever made, pods gone included (a restore's dropped members: a new member with
 * a dropped one's name would carry its member ID). Only members seen to exist (a pod or a claim observed) count: an
 * ordinal given out whose pod was never made (refused by admission) carries no member ID, and a status read before
 * its last write (a cache behind) must not move a bootstrap that never started to a new name at every sync.
 */
export const LAST_MEMBER_INDEX = 'etcd.metaops.io/last-member-index';

/** The highest ordinal seen to exist: the Service's own record, or an observed member pod or claim past it. */
function madeOrdinal(parent: ParentObject, request: CompositeSyncRequest): number {
  let highest = ordinalFloor(parent, request) ?? -1;
  for (const kind of ['Pod', 'PersistentVolumeClaim']) {
    for (const child of observed(request.children, kind, 'v1')) {
      const i = memberIndex(parent.metadata.name, child.metadata.name ?? '');
      if (i !== undefined && i > highest) highest = i;
    }
  }
  return highest;
}

function withOrdinal(svc: KubeObject, made: number): KubeObject {
  if (made < 0) return svc;
  return {
    ...svc,
    metadata: { ...svc.metadata, annotations: { [LAST_MEMBER_INDEX]: String(made) } },
  };
}

/** The ordinal the observed headless Service keeps, if it keeps one. */
function ordinalFloor(parent: ParentObject, request: CompositeSyncRequest): number | undefined {
  const svc = observedNamed(request.children, 'Service', 'v1', parent.metadata.name);
  const text = svc?.metadata.annotations?.[LAST_MEMBER_INDEX];
  return typeof text === 'string' && /^\d{1,6}$/.test(text) ? Number(text) : undefined;
}

/** The parent as the decision reads it: status.lastMemberIndex at least the one the observed Service keeps. */
function withOrdinalFloor(parent: ParentObject, request: CompositeSyncRequest): ParentObject {
  const floor = ordinalFloor(parent, request);
  const status = (parent.status ?? {}) as { lastMemberIndex?: unknown };
  const recorded = typeof status.lastMemberIndex === 'number' ? status.lastMemberIndex : -1;
  if (floor === undefined || floor <= recorded) return parent;
  return { ...parent, status: { ...(parent.status ?? {}), lastMemberIndex: floor } };
}

/** The decision's conditions, with the failed call, foreign answers and whether the pods answered exist. */
function conditionsOf(request: CompositeSyncRequest, d: Answer, now: Date, failure?: string): ConditionInput[] {
  const conditions = [...d.conditions];
  if (failure) conditions.push({ type: 'Synced', status: false, reason: 'EtcdCallFailed', message: failure });
  if (d.foreign && !failure) conditions.push(foreignCondition(d.foreign));
  // A member list no cluster the CRD allows could answer (etcd.ts MAX_LISTED_MEMBERS, MAX_ANSWER_BYTES): refused.
  if (d.invalidList && !failure && !d.foreign)
    conditions.push({
      type: 'Synced',
      status: false,
      reason: 'InvalidMemberList',
      message: `${sanitize(d.invalidList, 300)}; nothing is read from it or changed through it (check what the member pods run: spec.repository)`,
    });
  // Pods and claims carrying the cluster's selector that cannot be its members (observe.ts memberWindow).
  if (d.ignored && d.ignored.pods + d.ignored.claims > 0) conditions.push(ignoredCondition(d.ignored));
  // spec.pod.annotations and labels naming the hook's own (members.ts ownKey): dropped, and said so.
  const own = [
    ...Object.keys(specPodMap(request.parent, 'annotations'))
      .filter(ownKey)
      .map((k) => `annotation ${k}`),
    ...Object.keys(specPodMap(request.parent, 'labels'))
      .filter(ownKey)
      .map((k) => `label ${k}`),
  ];
  conditions.push(
    own.length > 0
      ? {
          type: 'PodAnnotationsAccepted',
          status: false,
          reason: 'OwnAnnotationsDropped',
          message: `spec.pod ${own.slice(0, 5).join(', ')}${own.length > 5 ? ` and ${own.length - 5} more` : ''} not set on member pods: keys under metaops.io, metaops.dev (and their subdomains) and etcd.database.coreos.com are the operator's own`,
        }
      : {
          type: 'PodAnnotationsAccepted',
          status: true,
          reason: 'Accepted',
          message: 'spec.pod.annotations set on member pods',
        },
  );
  // Whether Metacontroller could create the member pods answered (admission may refuse one): events.ts.
  conditions.push(
    podsCreated(
      request.parent,
      observed(request.children, 'Pod', 'v1').map((p) => p.metadata.name),
      d.pods.map((p) => p.metadata.name!),
      now,
    ),
  );
  // Whether the members' NetworkPolicy exists beside running members (network.ts): said while it does not.
  const answered = d.pods.map((p) => withMemberLabels(p, request.parent.metadata.name));
  const policy = networkPolicyCreated(
    request,
    d.settings ?? {},
    now,
    clusterGovernance(request, answered, d.settings).members,
  );
  if (policy) conditions.push(policy);
  conditions.unshift(readyCondition(conditions, d, failure));
  return conditions;
}

/**
 * Ready: True when the cluster is at rest (nothing left to converge, no call failed) with every voting member healthy
 * and as many as spec.size (Available QuorumAvailable) on the spec.version asked for; else False, naming why (the
 * reason of the first condition that is not as it should be, or `Converging` while a step is pending). A
 * spec.version refused or whose upgrade failed (Upgrading=False UpgradeRefused, UpgradeFailed: the members are held
 * on the version they run) is Ready=False with that reason until spec.version is one the members can run, and member
 * pods held for a backend quota under the data (MembersHeld=True QuotaBelowData) until the quota is raised. A cluster
 * held for a name another owner holds, or one not checked, answers its own Ready=False (lib/ownership.ts, names.ts).
 */
function readyCondition(conditions: readonly ConditionInput[], d: Answer, failure?: string): ConditionInput {
  const available = conditions.find((x) => x.type === 'Available');
  const versionHeld = conditions.find(
    (x) =>
      x.type === 'Upgrading' && x.status === false && (x.reason === 'UpgradeFailed' || x.reason === 'UpgradeRefused'),
  );
  // Member pods held for a quota under the data (quota.ts): not at rest, whatever the members that run say.
  const membersHeld = conditions.find((x) => x.type === 'MembersHeld' && x.status === true);
  if (
    d.phase === 'Running' &&
    !d.converging &&
    !failure &&
    !versionHeld &&
    !membersHeld &&
    available?.status === true &&
    available.reason === 'QuorumAvailable'
  )
    return { type: 'Ready', status: true, reason: 'ClusterReady', message: available.message };
  const off = conditions.find(
    (x) => (x.type === 'Available' && x.status !== true) || (x.type === 'Synced' && x.status === false),
  );
  if (off) return { type: 'Ready', status: false, reason: off.reason, message: off.message };
  if (versionHeld) return { type: 'Ready', status: false, reason: versionHeld.reason, message: versionHeld.message };
  if (membersHeld) return { type: 'Ready', status: false, reason: membersHeld.reason, message: membersHeld.message };
  if (available?.status === true && available.reason !== 'QuorumAvailable')
    return { type: 'Ready', status: false, reason: available.reason, message: available.message };
  return {
    type: 'Ready',
    status: false,
    reason: 'Converging',
    message: `phase ${d.phase}: a step is pending (see Scaling, Recovering, Upgrading)`,
  };
}

function specPodMap(parent: ParentObject, field: 'annotations' | 'labels'): Record<string, unknown> {
  const a = ((parent['spec'] as { pod?: Record<string, unknown> } | undefined)?.pod?.[field] ?? {}) as unknown;
  return isRecord(a) ? a : {};
}

/** The ID of the etcd cluster this EtcdCluster made, as last read (identity.ts): only its answers count. */
function clusterIdOf(parent: ParentObject, d: { clusterId?: string }): string | undefined {
  const id = d.clusterId ?? currentStatus(parent)['clusterID'];
  return typeof id === 'string' && id ? id : undefined;
}

/** Pods and claims left out of the sync (observe.ts memberWindow): how many, and what becomes of them. */
function ignoredCondition(ignored: Ignored): ConditionInput {
  return {
    type: 'ChildrenIgnored',
    status: true,
    reason: 'NotMembers',
    message: `${ignored.pods} pods and ${ignored.claims} claims carry the cluster's selector but are not members it can have (at most ${MAX_MEMBER_NAMES} member names are considered: the members the status knows, then the newest ordinals given out): they are not considered, and not kept`,
  };
}

/** Pods whose address answered as another etcd cluster's member: named, and nothing read through them. */
function foreignCondition(pods: string[]): ConditionInput {
  const names = pods.slice(0, 5).join(', ') + (pods.length > 5 ? ` and ${pods.length - 5} more` : '');
  return {
    type: 'Synced',
    status: false,
    reason: 'ForeignMember',
    message: `the address of ${names} answered as a member of an etcd cluster this EtcdCluster did not make: nothing is read from it or changed through it (check the pods and Services of this namespace that carry the cluster's labels)`,
  };
}

/**
 * Finalize: the pods, their claims and the Services are deleted by answering no other children; the cluster's
 * NetworkPolicies are answered while pods they select are observed, for at most POLICY_KEPT_AT_DELETION_SECONDS
 * (network.ts policiesKeptAtDeletion: a pod in its grace period runs the tenant's image still). The parent is
 * released once no child is observed any more.
 */
export function finalize(
  request: CompositeSyncRequest,
  settings: Partial<EtcdClusterSettings> = {},
  now: Date = new Date(),
): CompositeSyncResponse {
  const left = Object.values(request.children ?? {}).reduce((n, group) => n + Object.keys(group).length, 0);
  const status = { ...currentStatus(request.parent), phase: 'Terminating' };
  return left === 0
    ? { status, children: [], finalized: true }
    : {
        status,
        children: policiesKeptAtDeletion(request, settings, now),
        finalized: false,
        resyncAfterSeconds: 2,
      };
}
