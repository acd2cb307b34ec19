import {
  clusterDomainOf,
  clusterDomainProblems,
  type ConditionEventRules,
  defineComposite,
  STORAGE_CLASS_HOOK_VERSION,
  jsonBytes,
  namesBytes,
  ordinalPodNames,
  serviceRule,
} from '../../lib/index.js';
import { staticVolumesAllowed, staticVolumesProblems } from '../../lib/index.js';
import { MAX_SIZE, resource } from './schema.js';
import {
  childNames,
  currentNames,
  customize,
  namingsByStatus,
  invalid,
  mysqlEvents,
  served,
  parentProblem,
  parser,
  storageSettingsProblem,
  sync,
  versionProblem,
  type MySQLSettings,
} from './sync.js';

/** MySQLCluster condition reasons told as Warning events (lib/events.ts); created and scaled: sync.ts. */
export const MYSQLCLUSTER_EVENTS: ConditionEventRules = {
  action: 'Reconcile',
  warnings: new Set([
    'InvalidSpec',
    'CredentialsLost',
    'PrimaryBehind',
    'PrimaryUnverified',
    'ReplicaNotReplicating',
    'StorageImmutable',
    'ProgressDeadlineExceeded',
    'ServiceNameTaken',
    'StatefulSetNameTaken',
    'SecretNameTaken',
    'PodNameTaken',
    'PersistentVolumeClaimNameTaken',
    // Claims wait for a StorageClass not seen (a typo, a class not made yet): a new cluster (Ready=False) or a
    // scale-up (ClaimsHeld=True) waits for good without a deadline, so it is told.
    'StorageClassNotSeen',
  ]),
  trueIsFailure: new Set(['ClaimsHeld']),
};

export const mysqlcluster = defineComposite({
  name: 'mysqlcluster',
  // Its customize asks for the StorageClass its claims name (cluster-scoped): only version v2 sends it (lib/storage-class.ts).
  hookVersion: STORAGE_CLASS_HOOK_VERSION,
  resource,
  spec: parser,
  specProblem: versionProblem,
  parentProblem,
  childNames,
  // The names of the one naming it uses, by its status (a parent of another kind judges it by what it makes now).
  currentNames,
  // Made together with a parent made before it that wants its names, it yields when it never served.
  served,
  // The StatefulSet `<name>-mysql`, its Services `<name>-mysql`, `-mysql-read`, `-mysql-headless`, the Secret
  // `<name>-mysql`, the claims `data-<name>-mysql-<i>`, and the same without `-mysql` before the suffix
  // (lib/holders.ts): a parent of another kind held for one of them judges this cluster.
  nameShapes: [
    ...['-mysql', ''].flatMap((sts) => [
      { apiVersion: 'apps/v1', kind: 'StatefulSet', suffix: sts },
      ...['', '-read', '-headless'].map((s) => ({ apiVersion: 'v1', kind: 'Service', suffix: `${sts}${s}` })),
      { apiVersion: 'v1', kind: 'PersistentVolumeClaim', prefix: 'data-', suffix: sts, ordinal: true },
    ]),
    { apiVersion: 'v1', kind: 'Secret', suffix: '-mysql' },
  ],
  // Members are `<name>-mysql-<i>` (`<name>-<i>` before the `-mysql`), the ordinals below spec.size: a PodSet or an
  // EtcdCluster whose pod names a member's is judged by them (lib/podholders.ts), under the namings the cluster may
  // use (its status.writeService says which; both when its status is lost; none its name cannot make).
  podNames: {
    suffixes: ['-mysql', ''],
    wants: (holder) =>
      ordinalPodNames(
        holder,
        namingsByStatus(holder).map((legacy) => (legacy ? '' : '-mysql')),
        MAX_SIZE,
      ),
  },
  invalidSpec: invalid,
  // The cluster domain members name each other in (the server's one setting, lib/names.ts).
  settings: ({ env }): MySQLSettings => ({
    clusterDomain: clusterDomainOf(env),
    allowStaticVolumes: staticVolumesAllowed(env),
  }),
  configProblems: (env) => [...clusterDomainProblems(env), ...staticVolumesProblems(env)],
  settingsProblem: storageSettingsProblem,
  // A StatefulSet (with its scripts), three Services and a Secret: their fixed fields, the spec's strings, the names.
  answerBudget: {
    estimate: (spec, parent) => ({
      bytes: 32 * 1024 + 5 * namesBytes(parent) + 4 * jsonBytes(spec.version) + jsonBytes(spec.storage),
      what: 'a StatefulSet, its Services and Secret',
    }),
    advice: 'shorten spec.version or spec.storage',
  },
  childResources: [
    {
      apiVersion: 'apps/v1',
      resource: 'statefulsets',
      updateStrategy: { method: 'InPlace' },
      why: 'the StatefulSet rolls its members one at a time itself and keeps their volumes; it must never be recreated',
    },
    serviceRule,
    {
      apiVersion: 'v1',
      resource: 'secrets',
      updateStrategy: { method: 'InPlace' },
      why: 'the hook re-emits the observed password; in place keeps labels current without replacing the Secret',
    },
  ],
  events: MYSQLCLUSTER_EVENTS,
  eventsOf: mysqlEvents,
  sync,
  customize,
});
