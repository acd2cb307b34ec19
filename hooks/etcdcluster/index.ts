import {
  defineComposite,
  STORAGE_CLASS_HOOK_VERSION,
  type KubeObject,
  jsonBytes,
  kib,
  namesBytes,
  type ParentObject,
  podSeLinuxLevelAllowed,
  podSeLinuxLevelProblems,
  type RelatedResourceRule,
  serviceRule,
} from '../../lib/index.js';
import { etcdClients, etcdSettings, etcdSettingsProblems } from '../etcdcommon/index.js';
import {
  COMPLEMENT_POLICIES_BYTES,
  MAX_COMPLEMENT_SELECTORS,
  namespacePolicyRules,
  storageClassRule,
} from '../../lib/index.js';
import { tlsSecretNames } from './tls.js';
import { ETCDCLUSTER_EVENTS, upgradeEvents } from './events.js';
import { MAX_SIZE, resource } from './schema.js';
import { finalize, servicesSelectOwn, sync } from './sync.js';
import { etcdChildNames } from './names.js';
import { networkSettings, networkSettingsProblems, withMemberPolicy, type EtcdClusterSettings } from './network.js';
import {
  claimClassName,
  etcdNameProblem,
  etcdParentProblem,
  etcdSettingsProblem,
  storageTakenOutProblem,
  etcdValueProblem,
  parser,
} from './spec-checks.js';

// The spec's checks live in spec-checks.ts (the sync runs them on a restore's record too, status.restore.checked).
export { etcdNameProblem, etcdParentProblem, etcdValueProblem };

export { etcdChildNames };

/** The largest member list: the most members a cluster may have, and as many being replaced. */
const MAX_LISTED = 2 * MAX_SIZE;
/** The policies with `-egress-` complement policies of their own: the members' and the restore check pod's. */
const COMPLEMENT_SETS = 2;

/** The pod names an EtcdCluster wants: the members its status lists, of its own name (lib/podholders.ts). */
function listedMembers(holder: KubeObject): string[] {
  const list = (holder['status'] as { memberList?: unknown } | undefined)?.memberList;
  const prefix = `${holder.metadata.name ?? ''}-`;
  return (Array.isArray(list) ? (list as Array<{ name?: unknown } | null>).slice(0, MAX_LISTED) : [])
    .map((m) => m?.name)
    .filter((n): n is string => typeof n === 'string' && n.startsWith(prefix));
}

export const etcdcluster = defineComposite({
  name: 'etcdcluster',
  // Its customize asks for the StorageClass its claims name (cluster-scoped): only version v2 sends it (lib/storage-class.ts).
  hookVersion: STORAGE_CLASS_HOOK_VERSION,
  resource,
  spec: parser,
  parentProblem: etcdParentProblem,
  childNames: etcdChildNames,
  // A name refused for its children (InvalidSpec for good: a name cannot change) makes nothing: it holds no name from
  // a parent of another kind (lib/holders.ts holderWants).
  nameRefused: (holder) => etcdNameProblem(holder as ParentObject) !== undefined,
  // Its peer Service is `<name>`, its client Service `<name>-client`, its budget `<name>`, its policies
  // `<name>-members` and `<name>-restore-check`, a member's claim `<name>-<i>` (lib/holders.ts): a parent of another
  // kind held for one of them judges this cluster.
  nameShapes: [
    { apiVersion: 'v1', kind: 'Service' },
    { apiVersion: 'v1', kind: 'Service', suffix: '-client' },
    { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' },
    { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', suffix: '-members' },
    { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', suffix: '-restore-check' },
    { apiVersion: 'v1', kind: 'PersistentVolumeClaim', ordinal: true },
  ],
  // Members are `<name>-<i>`, the ones its status lists (a member replaced under a new name releases the old one).
  podNames: { suffixes: [''], wants: listedMembers },
  clients: etcdClients,
  // The etcd family's settings, and who may reach the members (network.ts).
  settings: (environment): EtcdClusterSettings => ({
    ...etcdSettings(environment),
    ...networkSettings(environment.env),
    allowSeLinuxLevel: podSeLinuxLevelAllowed(environment.env),
  }),
  // A member claim with no class, or of a class of pre-made volumes, binds pre-made volumes: only where the server
  // allows static binding (lib/storage-class.ts; customize asks for the named class). A named class not seen is no
  // invalid spec: the sync makes no new claim until it is seen, and keeps what exists (sync.ts holdForStorageClass).
  // Secrets, ConfigMaps and volume sources the spec names for its members: only where the server allows them
  // (references.ts); a running cluster so refused keeps its members (InvalidSpec keeps every child).
  // A spec without persistentVolumeClaimSpec while member claims exist: refused, every claim kept (spec-checks.ts).
  settingsProblem: (spec, settings: EtcdClusterSettings, _parent, request) =>
    storageTakenOutProblem(spec, request) ?? etcdSettingsProblem(spec, settings, request),
  // Up to one pod (and claim) more than the most members a cluster may have, each repeating spec.pod, the image and
  // the names; two Services, a PodDisruptionBudget and a NetworkPolicy; and the `-egress-` complement policies of the
  // members' and the restore check's policies (lib/network-policy.ts: at most MAX_COMPLEMENT_SELECTORS each, of
  // MAX_COMPLEMENT_VALUES values in all, COMPLEMENT_POLICIES_BYTES a set).
  answerBudget: {
    estimate: (spec, parent) => {
      // A pod repeats spec.pod (its claim spec goes to the claim instead), the image twice, the TLS Secrets' names.
      const perMember =
        8192 +
        namesBytes(parent) +
        jsonBytes(spec.pod) +
        jsonBytes(spec.pod?.persistentVolumeClaimSpec) +
        2 * (jsonBytes(spec.repository) + jsonBytes(spec.version)) +
        2 * jsonBytes(spec.TLS);
      return {
        // (And a restore's record of what its check started, status.restore.checked: at most spec.pod again.)
        bytes:
          (MAX_SIZE + 1) * perMember +
          4 * (2048 + namesBytes(parent)) +
          jsonBytes(spec.pod) +
          COMPLEMENT_SETS * (COMPLEMENT_POLICIES_BYTES + MAX_COMPLEMENT_SELECTORS * namesBytes(parent)),
        what: `${MAX_SIZE + 1} members of ~${kib(perMember)} each (spec.pod) and their NetworkPolicies`,
      };
    },
    advice: 'make spec.pod smaller',
  },
  configProblems: (env) => [
    ...etcdSettingsProblems(env),
    ...networkSettingsProblems(env),
    ...podSeLinuxLevelProblems(env),
  ],
  childResources: [
    {
      apiVersion: 'v1',
      resource: 'pods',
      updateStrategy: { method: 'InPlace' },
      why: 'the hook rolls members itself, one at a time; in place changes only the image of the member it chose (a pod image is mutable), every other field stays as the pod was created',
    },
    serviceRule,
    {
      apiVersion: 'policy/v1',
      resource: 'poddisruptionbudgets',
      updateStrategy: { method: 'InPlace' },
      why: 'the budget follows the size (a quorum of it stays through node drains); changing it in place never evicts anything',
    },
    {
      apiVersion: 'v1',
      resource: 'persistentvolumeclaims',
      updateStrategy: { method: 'OnDelete' },
      why: 'a member data volume is never replaced or changed under a running member',
    },
    {
      apiVersion: 'networking.k8s.io/v1',
      resource: 'networkpolicies',
      updateStrategy: { method: 'InPlace' },
      why: 'who may reach the members and what they may reach (the metrics and peer ports, the instance metadata service); changing it in place restarts nothing',
    },
  ],
  resyncPeriodSeconds: 30,
  effects: true,
  // Events (lib/events.ts): the membership changes made, the upgrade steps answered, the conditions changed.
  events: ETCDCLUSTER_EVENTS,
  eventsOf: upgradeEvents,
  // Every answer of the sync that keeps the observed children (a refused spec, a name held, an error, an answer not
  // given: lib/operator.ts) keeps the members' and the check pod's NetworkPolicy while they run, and says which is
  // missing (network.ts withMemberPolicy).
  kept: (request, response, settings, now) =>
    withMemberPolicy(request, response, settings ?? {}, servicesSelectOwn(request), now),
  sync,
  finalize: ({ request, settings, now }) => finalize(request, settings ?? {}, now),
  customize: (request) => {
    // The EtcdRestores of the namespace (a restore naming this cluster replaces it), and the TLS Secrets (checked
    // before any pod that mounts them is made, and the operator's client certificate).
    const names = [...new Set(Object.values(tlsSecretNames(request.parent?.['spec'])))].sort();
    // Confined to the cluster's namespace: a rule without one lists every namespace in v4.17
    // (pkg/controller/common/customize/manager.go L665-683), with names or without.
    const namespace = request.parent?.metadata.namespace ?? '';
    const rules: RelatedResourceRule[] = [
      { apiVersion: 'etcd.database.coreos.com/v1beta2', resource: 'etcdrestores', namespace },
    ];
    if (names.length) rules.push({ apiVersion: 'v1', resource: 'secrets', namespace, names });
    // The StorageClass the member claims name (cluster-scoped): whether it provisions volumes (settingsProblem).
    const pod = (request.parent?.['spec'] as { pod?: { persistentVolumeClaimSpec?: unknown } } | undefined)?.pod;
    rules.push(...storageClassRule(claimClassName(pod?.persistentVolumeClaimSpec)));
    // The NetworkPolicies of the namespace: where they govern the members' egress or ingress, the members' policy
    // adds no way out and lets in only what the cluster needs (network.ts clusterGovernance).
    rules.push(...namespacePolicyRules(request.parent));
    return { relatedResources: rules };
  },
});
