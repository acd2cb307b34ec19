// Memcached: a Deployment of `size` memcached pods and a Service in front of them.
// Pure decisions: request in, response out.
//
// Names: the Deployment is `<name>` (the tutorial's), the Service `<name>-memcached`, so that a Memcached, a
// MySQLCluster and an EtcdCluster of one name never want the same Service (lib/ownership.ts). A Memcached made
// before that keeps its Service `<name>`, which its clients use: the observed Service, else status.serviceName,
// says which (a child the answer left out would be deleted).
import {
  appliedTwiceBytes,
  childLabels,
  type ChildName,
  type CompositeSyncRequest,
  type CompositeSyncResponse,
  type ConditionInput,
  controllerOf,
  currentStatus,
  type CustomizeRequest,
  type CustomizeResponse,
  type DerivedName,
  type EventSpec,
  type FinalizeHook,
  finalizeKeepingPolicy,
  imageProblem,
  creationAsked,
  DEFAULT_PROGRESS_DEADLINE_SECONDS,
  degradedEvent,
  isTerminal,
  isTerminating,
  podsNotReady,
  goJsonBytes,
  kib,
  type KubeObject,
  INJECTED_POD_BYTES,
  MAX_REQUEST_BYTES,
  mib,
  memberStatus,
  observed,
  observedNamed,
  observedUnordered,
  namingsOf,
  parentNameProblem,
  parentRequestBytes,
  type ParentObject,
  livePodNames,
  notDegraded,
  podsFailing,
  previousConditions,
  parentLabelOf,
  type ParentLabelSettings,
  podSelected,
  policyMatchLabels,
  PODS_LABEL,
  recordedPodsLabel,
  relatedPodRules,
  templateLabelled,
  restrictedContainerSecurity,
  restrictedPodSecurity,
  selectorLabels,
  selectorString,
  serviceChild,
  specParser,
  statusNumber,
  type SyncHook,
  workloadCounts,
  workloadNetworkPolicy,
  type WorkloadNetworkSettings,
  podsPolicies,
  policyResync,
  takenIn,
  holderJudge,
  keptWithPolicies,
  namespaceGovernance,
  NAMESPACE_POLICIES_BYTES,
  COMPLEMENT_POLICIES_BYTES,
  namespaceGovernsCondition,
  namespacePolicyRules,
  complementPolicyNames,
  podsComplementPolicies,
  complementInFreeNames,
  egressHandover,
  egressDoubtCondition,
  workloadEgress,
  podLabelSets,
  withoutPolicy,
  type NamespaceGovernance,
  workloadFailure,
  workloadPending,
  workloadWithheld,
  servedByStatus,
  isPodReady,
} from '../../lib/index.js';
import { DEFAULT_PORT, MAX_SIZE, MEMCACHED_IMAGE, MemcachedSpec, type MemcachedSpec as Spec } from './schema.js';

const APP = 'memcached';
/** The `memcache` user of the official memcached images (Debian and Alpine). */
export const MEMCACHE_UID = 11211;
export const parser = specParser(MemcachedSpec, (spec) => {
  const problem = imageProblem(spec.image);
  return problem ? `spec.image ${JSON.stringify(spec.image)} ${problem}` : undefined;
});

/** The Service's name: `<name>-memcached`; `<name>` for a Memcached made before the suffix (`legacy`). */
export function serviceName(name: string, legacy = false): string {
  return legacy ? name : `${name}-memcached`;
}

/** The NetworkPolicy of its pods (lib/network-policy.ts): `<name>-memcached`, beside the Service of that name. */
export function networkPolicyName(name: string): string {
  return `${name}-memcached`;
}

/** The settings of a Memcached: the parent label's key (lib/parent-label.ts) and its pods' NetworkPolicy. */
export type MemcachedSettings = ParentLabelSettings & WorkloadNetworkSettings;

/**
 * The NetworkPolicy of the Memcached's pods, or undefined when the server's setting turns it off: selecting them as its
 * Service does (`own`: by INSTANCE_LABEL once every pod carries it, serviceSelectsOwn; before, every pod of its
 * Deployment's selector), their way out anywhere but the instance metadata service, who may reach them left to the
 * namespace (clients of the cache).
 */
export function networkPolicy(
  parent: ParentObject,
  own: boolean,
  settings: WorkloadNetworkSettings | undefined,
  governance?: NamespaceGovernance,
): KubeObject | undefined {
  // The namespace's own policies govern the pods' egress: ours would only add to what they allow (issue 29).
  if (governance?.egress) return undefined;
  const name = parent.metadata.name;
  return workloadNetworkPolicy(parent, { app: APP, suffix: '-memcached', pods: policyPods(name, own), settings });
}

/** The labels the Memcached's policies select its pods by (`own`: INSTANCE_LABEL too, networkPolicy). */
function policyPods(name: string, own: boolean): Record<string, string> {
  return own ? { ...selectorLabels(APP, name), [INSTANCE_LABEL]: name } : selectorLabels(APP, name);
}

/**
 * Where the namespace's own policies select some of the Memcached's pods for egress: metaops' egress policies of the
 * others (`<name>-memcached-egress-<i>`, lib/network-policy.ts egressComplementPolicies), each selecting its pods that
 * no such policy selects, with `<name>-memcached`'s way out; none when the server's setting turns it off.
 */
export function complementPolicies(
  parent: ParentObject,
  own: boolean,
  settings: WorkloadNetworkSettings | undefined,
  governance: NamespaceGovernance | undefined,
): KubeObject[] {
  const name = parent.metadata.name ?? '';
  return podsComplementPolicies(parent, networkPolicyName(name), policyPods(name, own), {
    app: APP,
    egress: workloadEgress(),
    governance,
    off: settings?.workloadNetworkPolicy === false,
  });
}

/** The names the Memcached's complement policies may take (lib/network-policy.ts complementPolicyNames). */
function complementNames(name: string): string[] {
  return complementPolicyNames(networkPolicyName(name));
}

/**
 * Whether the namespace's own NetworkPolicies govern the Memcached's pods (lib/network-policy.ts
 * namespaceGovernance): judged on the pod template of the Deployment answered and of the one observed, and on the
 * labels of its pods observed (`pods`, when customize asks for them).
 */
export function governanceOf(
  request: CompositeSyncRequest,
  children: readonly (KubeObject | null)[],
  pods: readonly KubeObject[] | undefined,
  settings: WorkloadNetworkSettings | undefined,
): NamespaceGovernance {
  const name = request.parent.metadata.name ?? '';
  const workload = observedNamed(request.children, 'Deployment', 'apps/v1', name);
  return namespaceGovernance(request, {
    pods: podLabelSets(children, workload ? [workload] : [], pods ?? []),
    own: [networkPolicyName(name)],
    // Its complement policies' names count as its own only when they are (lib ownPolicy): an admin's policy of such a
    // name governs.
    ownIfMarked: complementNames(name),
    parentKinds: settings?.parentKinds,
    // The labels every pod carries whichever selector its policies use (INSTANCE_LABEL or not).
    selector: selectorLabels(APP, name),
  });
}

/**
 * Whether this Memcached keeps the Service name of a metaops from before the suffix: its observed Service has that
 * name, or (none observed) its status records it. The status is only believed for one of the two names.
 */
export function legacyNames(request: CompositeSyncRequest): boolean {
  const name = request.parent.metadata.name ?? '';
  const has = (n: string) => observedNamed(request.children, 'Service', 'v1', n) !== undefined;
  if (has(serviceName(name))) return false;
  if (has(serviceName(name, true))) return true;
  return currentStatus(request.parent)['serviceName'] === serviceName(name, true);
}

/**
 * The label only this Memcached's pods carry. The recommended name/instance labels are not ownership: a Helm chart's
 * memcached installed as release `<name>` puts the same two on its pods. The Deployment's selector keeps those two
 * (a selector cannot change), its pod template adds this one, and the Service selects on it once every pod of the
 * Deployment carries it (see `serviceSelector`).
 */
export const INSTANCE_LABEL = 'memcached.metaops.io/instance';

/**
 * The parent label on the Memcached's pod template, by which customize asks for its pods (lib/parent-label.ts): a keyed
 * MAC of its kind, namespace and name, the same for a Memcached made again under its name and one no tenant can compute
 * for another namespace's. On Metacontroller v1.5.20 a rule by name/instance was matched by labels alone, so that a pod
 * of any namespace carrying them synced this Memcached as often as it was written. The Deployment's selector is not
 * changed (it cannot be): the label rolls the pods of a Memcached made before it once, and again when the key changes.
 */
export const PARENT_LABEL = 'memcached.metaops.io/parent-id';

/**
 * The container a Memcached's pods run of its own: the only one Degraded reads (lib/replicas.ts podFailure). A sidecar
 * an admission webhook injected (Istio's istio-proxy, Vault's agent) waiting for its image is not the cache failing, and
 * does not hide the cache's own failure.
 */
export const CONTAINERS: ReadonlySet<string> = new Set(['memcached']);

/**
 * The Memcached's Deployment; its pods carry the parent label with `podLabel` (parentLabelOf; by default the unkeyed
 * value, as long as any: what the size estimates need).
 */
export function deployment(parent: ParentObject, spec: Spec, podLabel = parentLabelOf(undefined, parent)): KubeObject {
  const name = parent.metadata.name;
  const labels = childLabels(APP, name, 'cache');
  const podLabels = { ...labels, [INSTANCE_LABEL]: name, ...(podLabel ? { [PARENT_LABEL]: podLabel } : {}) };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: parent.metadata.namespace, labels },
    spec: {
      replicas: spec.size,
      selector: { matchLabels: selectorLabels(APP, name) },
      template: {
        metadata: { labels: podLabels },
        spec: {
          // Pod Security `restricted`: the official image's own user, memcache (uid 11211).
          securityContext: restrictedPodSecurity(MEMCACHE_UID),
          // memcached calls no Kubernetes API: no token of the namespace's default ServiceAccount (issue 29).
          automountServiceAccountToken: false,
          containers: [
            {
              name: 'memcached',
              image: spec.image,
              command: ['memcached', '-m', '64', '-o', 'modern', '-v', '-p', String(spec.port)],
              ports: [{ name: 'memcached', containerPort: spec.port, protocol: 'TCP' }],
              securityContext: restrictedContainerSecurity(),
            },
          ],
        },
      },
    },
  };
}

export function service(parent: ParentObject, spec: Spec, legacy: boolean, own = true): KubeObject {
  const name = parent.metadata.name;
  const selector = own ? { ...selectorLabels(APP, name), [INSTANCE_LABEL]: name } : selectorLabels(APP, name);
  return serviceChild(parent, serviceName(name, legacy), childLabels(APP, name, 'cache'), selector, [
    { name: 'memcached', port: spec.port },
  ]);
}

/**
 * A pod of this Memcached's Deployment: the Deployment `<name>` is observed as this Memcached's own child (`deployment`,
 * from request.children: Metacontroller sends only objects the parent controls), and the pod's controller is a
 * ReplicaSet named `<name>-<pod-template-hash>`, as a Deployment names its ReplicaSets. Labels alone are not ownership
 * (`INSTANCE_LABEL`), and neither is the ReplicaSet's name alone: another owner's Deployment of that name (a Helm
 * release installed with fullnameOverride, which holds this Memcached `DeploymentNameTaken`) names its ReplicaSets
 * the same way, and its pods are not this Memcached's.
 */
export function ownPod(name: string, pod: KubeObject, deployment: KubeObject | undefined): boolean {
  if (!deployment) return false;
  const hash = pod.metadata.labels?.['pod-template-hash'];
  if (!hash) return false;
  const owner = controllerOf(pod);
  return owner?.kind === 'ReplicaSet' && owner.name === `${name}-${hash}`;
}

/**
 * Whether the Service selects on `INSTANCE_LABEL`: once it does (observed), for good; before, once the observed
 * Deployment's template carries it and every pod of the Deployment does (a Memcached from before the label rolls its
 * pods once; switching earlier would leave the Service without endpoints mid-rollout); a new Memcached at once.
 * `pods` undefined: the pods were not asked for (podsListed), and the Deployment's status says it instead (its
 * controller observed the template and every replica it has is updated).
 */
export function serviceSelectsOwn(
  request: CompositeSyncRequest,
  legacy: boolean,
  workload: KubeObject | undefined,
  pods: KubeObject[] | undefined,
): boolean {
  const name = request.parent.metadata.name;
  const svc = observedNamed(request.children, 'Service', 'v1', serviceName(name, legacy));
  const selector = (svc?.['spec'] as { selector?: Record<string, unknown> } | undefined)?.selector;
  if (selector?.[INSTANCE_LABEL] === name) return true;
  if (!workload) return true;
  const template = (workload['spec'] as { template?: { metadata?: { labels?: Record<string, unknown> } } } | undefined)
    ?.template;
  if (template?.metadata?.labels?.[INSTANCE_LABEL] !== name) return false;
  if (pods) return pods.every((p) => p.metadata.labels?.[INSTANCE_LABEL] === name);
  // The pods not asked for (podsListed): the Deployment says whether every pod it has runs the current template.
  const generation = workload.metadata.generation;
  const status = (workload['status'] ?? {}) as { observedGeneration?: unknown };
  return (
    typeof generation === 'number' &&
    status.observedGeneration === generation &&
    statusNumber(workload, 'updatedReplicas') === statusNumber(workload, 'replicas')
  );
}

/**
 * A name the Service cannot carry. Its rule (a DNS-1035 label) is the strictest of the names a Memcached's name makes:
 * a name that makes the Service also makes the Deployment (a DNS-1123 subdomain) and the pods' labels.
 */
export function nameProblem(parent: ParentObject, request: CompositeSyncRequest): string | undefined {
  const service: DerivedName = { what: 'Service', rule: 'dns1035', suffix: legacyNames(request) ? '' : '-memcached' };
  return parentNameProblem(parent.metadata.name ?? '', [service]);
}

/** Every name a Memcached's children may take (either Service name). */
export function childNames(parent: ParentObject): ChildName[] {
  const name = parent.metadata.name;
  return [
    { apiVersion: 'apps/v1', kind: 'Deployment', name },
    { apiVersion: 'v1', kind: 'Service', name: serviceName(name) },
    { apiVersion: 'v1', kind: 'Service', name: serviceName(name, true) },
    { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', name: networkPolicyName(name) },
  ];
}

/**
 * The names a Memcached's answer may make now, read from its stored object (a parent of another kind judges it by
 * them, lib/holders.ts): the Deployment, and the Service name of each naming it may use (lib/holders.ts namingsOf):
 * the one its status.serviceName records (the unsuffixed name only when it records it), today's when its status
 * records a sync and no Service, both when its status records nothing (lost: a Memcached from before the suffix may
 * serve under `<name>`); of those, the ones its name can make (nameProblem). None: its name makes nothing, ever.
 */
export function currentNames(parent: ParentObject): ChildName[] {
  const name = parent.metadata.name;
  const recorded = currentStatus(parent)['serviceName'];
  const namings = namingsOf(
    parent,
    recorded === serviceName(name, true) ? true : recorded === serviceName(name) ? false : undefined,
    (legacy) =>
      parentNameProblem(name, [{ what: 'Service', rule: 'dns1035', suffix: legacy ? '' : '-memcached' }]) === undefined,
  );
  if (namings.length === 0) return [];
  return [
    { apiVersion: 'apps/v1', kind: 'Deployment', name },
    ...namings.map((legacy) => ({ apiVersion: 'v1', kind: 'Service', name: serviceName(name, legacy) })),
    { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', name: networkPolicyName(name) },
  ];
}

/**
 * Degraded (the Operator SDK sample's condition): True when pods fail (a container that crashes or whose image
 * cannot be pulled, a pod Failed and not yet replaced), when the Deployment cannot create its pods, or when its rollout passed its
 * progress deadline. The message names the pods and their reasons, never the kubelet's changing words.
 */
export function degraded(workload: KubeObject | undefined, pods: KubeObject[]): ConditionInput {
  // A pod that ended (Failed: evicted, stopped by a node shutdown) stays as an object until it is collected; once the
  // Deployment has every replica it wants Ready, it was replaced and fails nothing now.
  const wanted = (workload?.['spec'] as { replicas?: unknown } | undefined)?.replicas;
  const replaced = typeof wanted === 'number' && statusNumber(workload, 'readyReplicas') >= wanted;
  const failing = podsFailing(
    pods.filter((p) => !isTerminating(p) && !(replaced && isTerminal(p))),
    CONTAINERS,
  );
  if (failing) return failing;
  const refused = workloadFailure(workload);
  if (refused) return { type: 'Degraded', status: true, reason: refused.reason, message: refused.message };
  const stalled = previousConditions(workload?.['status']).find((c) => c.type === 'Progressing');
  if (stalled?.status === 'False' && stalled.reason === 'ProgressDeadlineExceeded') {
    return {
      type: 'Degraded',
      status: true,
      reason: 'ProgressDeadlineExceeded',
      message: `Deployment ${workload!.metadata.name} did not progress within its deadline`,
    };
  }
  return notDegraded();
}

/**
 * The pods a Deployment of `size` replicas may have at once: the replicas, its surge during a rollout (25%, rounded
 * up) and as many old ones being deleted (objects until their grace period ends).
 */
export function podsAtOnce(size: number): number {
  return size + 2 * Math.ceil(size / 4);
}

/**
 * A pod of this Memcached's Deployment as the API server stores it and Metacontroller sends it among the related
 * objects, at most: the template (labels, spec) with the ReplicaSet's name, hash and owner reference, twice (the pod,
 * and the managedFields key tree of its creator), what the API server and the kubelet add to any pod (~4 KiB:
 * defaults, the service account volume, status with the image twice more), and what an admission webhook may add
 * (INJECTED_POD_BYTES).
 */
export function relatedPodBytes(parent: ParentObject, spec: Spec): number {
  const template = (deployment(parent, spec)['spec'] as { template: unknown }).template;
  return 2 * (goJsonBytes(template) + 1024) + 4096 + 2 * (spec.image.length + 96) + INJECTED_POD_BYTES;
}

/**
 * What each sync request carries besides the pods asked for: the Memcached, its Deployment and Service, others' names,
 * the namespace's NetworkPolicies.
 */
function requestBytesBesidePods(parent: ParentObject, spec: Spec): number {
  const name = Buffer.byteLength(parent.metadata.name ?? '');
  const status = podsAtOnce(spec.size) * (name + 24) + 32 * 1024;
  const policy = networkPolicy(parent, true, undefined);
  const children =
    appliedTwiceBytes(deployment(parent, spec)) +
    appliedTwiceBytes(service(parent, spec, true)) +
    (policy ? appliedTwiceBytes(policy) : 0) +
    16384;
  // The children asked by name again and the parents of other kinds customize asks for (lib/holders.ts): a few; and
  // the namespace's NetworkPolicies (lib/network-policy.ts NAMESPACE_POLICIES_BYTES).
  return (
    parentRequestBytes(spec, status) + 2 * children + 128 * 1024 + NAMESPACE_POLICIES_BYTES + COMPLEMENT_POLICIES_BYTES
  );
}

/**
 * Whether customize asks for the pods of a Memcached of this spec: the pods its Deployment may have at once
 * (podsAtOnce), each as relatedPodBytes counts it, fit within MAX_REQUEST_BYTES with the rest of each sync request.
 * Past it (~1000 pods could never be sent with a sidecar injected: ~17 MB), the pods are not asked for: Metacontroller
 * sends every pod a label selector matches, and a request past the body limit is refused (413), so that no status is
 * written again and nothing says why. From the spec and name alone, so that customize (whose answer Metacontroller
 * keeps for a generation) and sync decide alike.
 */
export function podsListed(parent: ParentObject, spec: Spec): boolean {
  return (
    requestBytesBesidePods(parent, spec) + podsAtOnce(spec.size) * relatedPodBytes(parent, spec) <= MAX_REQUEST_BYTES
  );
}

/** The largest size whose pods are listed (podsListed), for a spec otherwise like this one. */
function largestListed(parent: ParentObject, spec: Spec): number {
  let lo = 0;
  let hi = spec.size;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (podsListed(parent, { ...spec, size: mid })) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The condition a Memcached whose pods are not asked for (podsListed) carries: why, and what lists them. */
function notListed(parent: ParentObject, spec: Spec): ConditionInput {
  const perPod = relatedPodBytes(parent, spec);
  const bytes = requestBytesBesidePods(parent, spec) + podsAtOnce(spec.size) * perPod;
  return {
    type: 'PodsListed',
    status: false,
    reason: 'RequestTooLarge',
    message: `spec.size ${spec.size} pods (up to ${podsAtOnce(spec.size)} at once in a rollout) of up to ~${kib(perPod)} each as the API server stores them (~${kib(INJECTED_POD_BYTES)} of it what an admission webhook may add: a service mesh's sidecar) would make sync requests of up to ~${mib(bytes)}, more than the ${mib(MAX_REQUEST_BYTES)} a request to the hooks may have: the pods are not asked for, so status.nodes is left out, Degraded reads the Deployment's conditions only and the namespace's NetworkPolicies are judged on the pod template's labels alone (not those an admission webhook adds); the Deployment and Service are served as usual (at spec.size ${largestListed(parent, spec)} or less the pods are listed)`,
  };
}

/** Asks for the pods of a Memcached that lists them (podsListed), from its spec as written (any field malformed). */
function listsPods(parent: ParentObject): boolean {
  const raw = (parent.spec ?? {}) as { size?: unknown; image?: unknown; port?: unknown };
  const spec: Spec = {
    size: Math.max(0, Math.min(Number(raw.size) || 0, MAX_SIZE)),
    image: typeof raw.image === 'string' ? raw.image : MEMCACHED_IMAGE,
    port: typeof raw.port === 'number' ? raw.port : DEFAULT_PORT,
    progressDeadlineSeconds: DEFAULT_PROGRESS_DEADLINE_SECONDS,
  };
  return podsListed(parent, spec);
}

/**
 * What the status says of its pods' NetworkPolicy while `running` pods of its Deployment run: the namespace's own
 * policies govern their egress (none answered: NamespaceGovernsEgress), or they run without it (lib/network-policy.ts
 * podsPolicies, as the answers that keep the observed children say it: kept), unless its name is another owner's
 * (held: its Ready says so).
 */
function policyCondition(
  request: CompositeSyncRequest,
  options: {
    policy: KubeObject | undefined;
    complement: readonly KubeObject[];
    governance: NamespaceGovernance;
    settings: MemcachedSettings | undefined;
    running: number;
  },
  now: Date,
): ConditionInput | undefined {
  const { policy, governance, settings, running } = options;
  const name = request.parent.metadata.name ?? '';
  if (running <= 0) return undefined;
  if (governance.egress && settings?.workloadNetworkPolicy !== false) {
    // The complement policies first: while one is not observed, the pods it selects run without any.
    const complement = options.complement.map((p) => ({ policy: p, running: runningWithout(name, running) }));
    const { free, condition } = podsPolicies(request, { kind: 'Memcached', policies: complement }, now);
    if (condition) return condition;
    const names = free.map((p) => p.policy.metadata.name!);
    return namespaceGovernsCondition(governance.egressBy, {
      name: networkPolicyName(name),
      created: false,
      complement: names,
    });
  }
  const said = podsPolicies(
    request,
    { kind: 'Memcached', policies: [{ policy, running: runningWithout(name, running) }] },
    now,
  ).condition;
  if (said || !governance.egressDoubt || !policy) return said;
  return egressDoubtCondition(governance.egressDoubt, { name: networkPolicyName(name) });
}

/** What the `replicas` pods of its Deployment reach without their NetworkPolicy, in words (undefined: none run). */
function runningWithout(name: string, replicas: number): string | undefined {
  return replicas > 0
    ? `${replicas} pod(s) of Deployment ${name} run the spec's image without it: they reach the instance metadata service`
    : undefined;
}

export function sync({
  request,
  parent,
  spec,
  now,
  settings,
}: SyncHook<Spec, unknown, MemcachedSettings>): CompositeSyncResponse {
  const name = parent.metadata.name;
  const legacy = legacyNames(request);
  const podLabel = parentLabelOf(settings, parent);
  const wanted = deployment(parent, spec, podLabel);

  // Status reports what was observed: the Deployment's counts and the pods it runs (related objects).
  const observedDeployment = observedNamed(request.children, 'Deployment', 'apps/v1', name);
  // Pods not asked for when they could not all be sent within the body limit (podsListed): none read, none listed.
  const listed = podsListed(parent, spec);
  // Only the pods of its own Deployment: another workload's pods may carry the same name/instance labels
  // (`INSTANCE_LABEL`), and another owner's Deployment of its name the same ReplicaSet names (`ownPod`).
  const pods = listed
    ? observedUnordered(request.related, 'Pod', 'v1').filter((p) => ownPod(name, p, observedDeployment))
    : [];
  const own = serviceSelectsOwn(request, legacy, observedDeployment, listed ? pods : undefined);
  // What its pods (the spec's image) may reach: not the instance metadata service (lib/network-policy.ts).
  // Not where the namespace's own policies govern their egress (ours would add to it): the status says so.
  const governance = governanceOf(request, [wanted], pods, settings);
  const policy = networkPolicy(parent, own, settings, governance);
  // Where they select some of its pods: metaops' egress policies of the others (those none of them selects).
  const complement = complementPolicies(parent, own, settings, governance);
  // While its pods' egress changes hands between `<name>-memcached` and the `-egress-` policies, the observed ones are
  // kept until their replacements are observed (lib/network-policy.ts egressHandover).
  const children = egressHandover(
    request,
    [wanted, service(parent, spec, legacy, own), ...(policy ? [policy] : []), ...complement],
    { main: networkPolicyName(name), mainWithEgress: networkPolicy(parent, own, settings) },
  );
  // Held for a name another owner holds (lib/ownership.ts guardAnswer, after this answer): the Deployment is kept as
  // observed, so the status describes it as it is (its replicas), not a change nothing gives it.
  const held = takenIn(request, { status: {}, children }, holderJudge(now)).length > 0;
  const heldReplicas = (observedDeployment?.['spec'] as { replicas?: unknown } | undefined)?.replicas;
  const desired = held && typeof heldReplicas === 'number' ? heldReplicas : spec.size;
  const counts = workloadCounts(observedDeployment, desired);
  // Pods the API server refuses (Pod Security admission, a quota) are said in Ready, with the refusal's reason.
  const refused = counts.ready < counts.desired ? workloadFailure(observedDeployment) : undefined;
  // Until the Deployment runs this spec, its counts describe the last one: not complete, whatever they say. Held, it
  // is kept as observed: a spec it was never given is said as kept back (withheld, lib/ownership.ts heldForTakenNames),
  // a spec it was given and has not observed yet as under way.
  const withheld = workloadWithheld(observedDeployment, wanted);
  const pending = held && withheld ? undefined : workloadPending(observedDeployment, wanted);
  // Whether its pods run without their NetworkPolicy (lib/network-policy.ts): said while they do, unless its name is
  // another owner's (held: its Ready says so).
  const running = statusNumber(observedDeployment, 'replicas');
  const unguarded = policyCondition(request, { policy, complement, governance, settings, running }, now);
  const status = memberStatus(parent, counts, livePodNames(pods), now, {
    // What an HPA reads (the scale subresource): the pods the Service selects, by INSTANCE_LABEL once every pod
    // carries it (serviceSelectsOwn), never another release's pods carrying the recommended labels alone.
    selector: selectorString(APP, name, own ? { [INSTANCE_LABEL]: name } : {}),
    // Its pods not Ready, named past the progress deadline with their reason (when they are listed).
    ...podsNotReady(
      pods.filter((p) => !isTerminating(p) && !isTerminal(p)),
      CONTAINERS,
    ),
    ...(refused ? { ready: refused } : {}),
    ...(pending ? { progressing: { type: 'Progressing', status: true, reason: 'Updating', message: pending } } : {}),
    ...(withheld ? { withheld } : {}),
    deadlineSeconds: spec.progressDeadlineSeconds,
    extra: [
      degraded(observedDeployment, pods),
      ...(listed ? [] : [notListed(parent, spec)]),
      ...(unguarded ? [unguarded] : []),
    ],
  });
  if (!listed) delete status['nodes'];
  status['serviceName'] = serviceName(name, legacy);
  const labelled = podsLabel(parent, observedDeployment, podLabel);
  if (labelled !== undefined) status[PODS_LABEL] = labelled;
  const again = policyResync(unguarded);
  return { status, children, ...(again !== undefined ? { resyncAfterSeconds: again } : {}) };
}

/**
 * What a Memcached served (lib/ownership.ts HeldOptions.served): clients reached it through its Service only once one
 * of its pods was Ready. From its status (Ready, Ready replicas counted) and, the status lost, from its Deployment's
 * counts (Ready or available replicas) and its own pods (a Ready one). Undefined when none: made together with a
 * parent made before it that wants its names (an EtcdCluster `<name>-memcached`, whose peer Service is its Service),
 * it yields: it releases its Service (Metacontroller deletes it) and keeps its Deployment, whose cache no client
 * reached. A Memcached whose pods were Ready keeps its Service: its clients use it (both stay held, each naming the
 * other).
 */
export function served(request: CompositeSyncRequest): string | undefined {
  const said = servedByStatus(request.parent);
  if (said) return said;
  const name = request.parent.metadata.name ?? '';
  const workload = observedNamed(request.children, 'Deployment', 'apps/v1', name);
  const ready = Math.max(statusNumber(workload, 'readyReplicas'), statusNumber(workload, 'availableReplicas'));
  if (ready > 0) return `its Deployment ${name} has ${ready} Ready pod(s)`;
  const pod = observedUnordered(request.related, 'Pod', 'v1').find((p) => ownPod(name, p, workload) && isPodReady(p));
  return pod ? `its pod ${pod.metadata.name} is Ready` : undefined;
}

/**
 * An answer that keeps the observed children (a spec refused, held for a name another owner holds, an error, an
 * answer not given), with its pods' NetworkPolicy while its Deployment is kept, and NetworkPolicyCreated while its
 * pods run without it (lib/network-policy.ts keptWithPolicies): the policy the sync answers, its
 * selector as the sync reads it (serviceSelectsOwn, the pods asked for as customize asks for them: listsPods).
 */
export function kept(
  request: CompositeSyncRequest,
  response: CompositeSyncResponse,
  settings: MemcachedSettings | undefined,
  now: Date,
): CompositeSyncResponse {
  const parent = request.parent;
  const name = parent.metadata.name ?? '';
  if (name === '') return response;
  const workload = observedNamed(request.children, 'Deployment', 'apps/v1', name);
  const pods = listsPods(parent)
    ? observedUnordered(request.related, 'Pod', 'v1').filter((p) => ownPod(name, p, workload))
    : undefined;
  const own = serviceSelectsOwn(request, legacyNames(request), workload, pods);
  const runs = (c: KubeObject) => c.kind === 'Deployment' && c.apiVersion === 'apps/v1' && c.metadata?.name === name;
  const running = () => runningWithout(name, statusNumber(workload, 'replicas'));
  const governance = governanceOf(request, response.children, pods, settings);
  // The complement policies observed are answered anew (the namespace's policies may have changed meanwhile).
  let answer = response;
  for (const n of complementNames(name)) answer = withoutPolicy(answer, n);
  const main = networkPolicyName(name);
  let out: CompositeSyncResponse;
  if (governance.egress) {
    // Held for one of their names (an admin's policy so named): that one is answered under a free name of the set.
    const complement = complementInFreeNames(request, complementPolicies(parent, own, settings, governance), main, now);
    out = keptWithPolicies(
      request,
      withoutPolicy(answer, main),
      'Memcached',
      complement.map((policy) => ({ policy, runs, running })),
      now,
    );
  } else
    out = keptWithPolicies(
      request,
      answer,
      'Memcached',
      [{ policy: networkPolicy(parent, own, settings), runs, running }],
      now,
    );
  // The observed policies the answer replaces are kept until their replacements are observed (lib egressHandover).
  const children = egressHandover(request, out.children, {
    main,
    mainWithEgress: networkPolicy(parent, own, settings),
  });
  return children.length === out.children.length ? out : { ...out, children };
}

/**
 * The parent label's value every pod of the Memcached's Deployment carries (status.podsLabel), by which customize asks
 * for them (lib/parent-label.ts relatedPodRules): `current` (the value its answer gives the template) when the status
 * records it already, when no Deployment is observed (any it makes has it), or when the Deployment's template carries it
 * and its controller reports every replica it has made from that template; else the value recorded before, if any (a
 * Memcached made before the label, or a key changed: its rollout under way), so that customize goes on asking for the
 * pods made before, and status.nodes and Degraded see them all.
 */
export function podsLabel(parent: ParentObject, workload: KubeObject | undefined, current: string): string | undefined {
  const recorded = recordedPodsLabel(parent);
  if (recorded === current || !workload) return current || undefined;
  const template = (workload['spec'] as { template?: unknown } | undefined)?.template;
  const generation = workload.metadata.generation;
  const status = (workload['status'] ?? {}) as { observedGeneration?: unknown };
  const rolled =
    templateLabelled(template, PARENT_LABEL, current) &&
    typeof generation === 'number' &&
    status.observedGeneration === generation &&
    statusNumber(workload, 'updatedReplicas') === statusNumber(workload, 'replicas');
  return rolled ? current : recorded;
}

/**
 * Events beside the conditions' (lib/events.ts): the Deployment and Service created, the Deployment scaled, and
 * pods that start failing. Read from the observed Deployment and status (before) and the answer (after).
 */
export function memcachedEvents(request: CompositeSyncRequest): (response: CompositeSyncResponse) => EventSpec[] {
  const name = request.parent.metadata.name;
  const had = observedNamed(request.children, 'Deployment', 'apps/v1', name);
  const hadReplicas = (had?.['spec'] as { replicas?: unknown } | undefined)?.replicas;
  const svc = serviceName(name, legacyNames(request));
  const asked = creationAsked(request.parent);
  return (response) => {
    const out: EventSpec[] = [];
    const deploy = response.children.find((c) => c.kind === 'Deployment');
    const replicas = (deploy?.['spec'] as { replicas?: unknown } | undefined)?.replicas;
    // An answer without the Deployment (an invalid spec of a new Memcached) created nothing; one that keeps the
    // observed Deployment (held, invalid) has its replicas.
    if (!had) {
      // Told once: a Deployment asked for before and still not seen was refused, not created.
      if (deploy && !asked)
        out.push({
          type: 'Normal',
          reason: 'Created',
          action: 'Create',
          note: `created Deployment ${name} of ${String(replicas)} pods and Service ${svc}`,
          subject: name,
        });
    } else if (hadReplicas !== replicas) {
      out.push({
        type: 'Normal',
        reason: 'Scaled',
        action: 'Scale',
        note: `scaled Deployment ${name} from ${hadReplicas} to ${replicas} pods`,
        subject: String(replicas),
      });
    }
    const failing = degradedEvent(request.parent, response.status);
    if (failing) out.push(failing);
    return out;
  };
}

/**
 * Asks for the pods of this Memcached so that status.nodes can list them, when they fit within the body limit
 * (podsListed); else for none. By its parent label (PARENT_LABEL), which no other tenant can compute; and by the value
 * or the name/instance labels its pods carried before, while its status says such pods may exist (relatedPodRules).
 */
export function customize(request: CustomizeRequest, settings?: ParentLabelSettings): CustomizeResponse {
  const parent = request.parent;
  // The NetworkPolicies of its namespace: where they govern its pods' egress it answers none (governanceOf).
  const policies = namespacePolicyRules(parent);
  if (!parent || !listsPods(parent)) return { relatedResources: policies };
  const legacy = selectorLabels(APP, parent.metadata.name ?? '');
  return {
    relatedResources: [...relatedPodRules(parent, PARENT_LABEL, parentLabelOf(settings, parent), legacy), ...policies],
  };
}

/**
 * Finalize: the Deployment and the Service are deleted (answered no more; the garbage collector deletes the
 * Deployment's ReplicaSet and pods) and the pods' NetworkPolicy `<name>-memcached` is kept while a pod it selects is
 * observed among the related pods (running or in its grace period: the spec's image runs until it stops), at most
 * lib/policy-at-deletion.ts POLICY_KEPT_AT_DELETION_SECONDS after the deletion. customize still asks for the pods then
 * (relatedAtDeletion). A Memcached whose pods are not asked for (podsListed: too many to send) keeps it for that bound
 * alone. Released then, or at once when none of its pods is observed or it has no policy of its own. Answered as the
 * sync answers it (with the selector it has), whatever the server's setting now: it only narrows what the pods reach.
 */
export function finalize({
  request,
  parent,
  now,
  event,
}: FinalizeHook<Spec, unknown, MemcachedSettings>): CompositeSyncResponse {
  const name = parent.metadata.name ?? '';
  const policyName = networkPolicyName(name);
  const stored = observedNamed(request.children, 'NetworkPolicy', 'networking.k8s.io/v1', policyName);
  const own = policyMatchLabels(stored)?.[INSTANCE_LABEL] === name;
  const selector = policyMatchLabels(networkPolicy(parent, own, undefined)) ?? {};
  const waiting = listsPods(parent)
    ? observed(request.related, 'Pod', 'v1').filter((p) => podSelected(p, selector))
    : undefined;
  return finalizeKeepingPolicy(
    request,
    { name: policyName, kind: 'Memcached', waiting, answer: () => networkPolicy(parent, own, undefined) },
    now,
    event,
  );
}

/** The related objects a Memcached's finalize reads: its pods, asked for as customize asks for them. */
export function relatedAtDeletion(request: CustomizeRequest, settings?: ParentLabelSettings) {
  return customize(request, settings).relatedResources;
}
