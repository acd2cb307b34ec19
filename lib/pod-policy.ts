// What a custom resource's author may ask of the pods metaops makes for it. Metacontroller creates those pods with
// its own rights, in a namespace whose administrator may have set no Pod Security label and no toleration
// restriction because its tenants create no pods themselves (docs/operating.md "Tenants"). So the fields a spec copies
// into a pod are held here to what reaches no further than the author's namespace: the kernel confinement of Pod
// Security's `baseline` level, no taint of someone else's nodes, no annotation that a cluster component follows into
// another namespace. Checked before anything is made (InvalidSpec naming the field); what exists is kept.
import { parseJson } from './parse-json.js';
import { labelKeyProblem } from './values.js';

/** Taints every pod may tolerate: the ones Kubernetes itself puts on a node that stopped reporting (its pods' grace). */
const ALWAYS_TOLERATED: ReadonlySet<string> = new Set([
  'node.kubernetes.io/not-ready',
  'node.kubernetes.io/unreachable',
]);

/** The setting that names the taint keys a tenant's pods may tolerate besides those (`*`: any taint). */
export const POD_TOLERATIONS_SETTING = 'METAOPS_POD_TOLERATIONS';

/** The taint keys of the server's METAOPS_POD_TOLERATIONS (comma-separated; `*` for every taint). */
export function podTolerationsOf(env: NodeJS.ProcessEnv): string[] {
  return (env[POD_TOLERATIONS_SETTING] ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');
}

/** What is wrong with METAOPS_POD_TOLERATIONS (the server refuses to start): each entry a taint key or `*`. */
export function podTolerationsProblems(env: NodeJS.ProcessEnv): string[] {
  return podTolerationsOf(env)
    .filter((k) => k !== '*' && labelKeyProblem(k) !== undefined)
    .map(
      (k) =>
        `${POD_TOLERATIONS_SETTING}: ${JSON.stringify(k)} is no taint key (such as dedicated or example.com/pool), nor *`,
    );
}

/**
 * The first toleration (already well formed: lib/values.ts tolerationsProblem) that tolerates a taint the server does
 * not let tenants tolerate, or undefined. A taint keeps a node to one tenant (`dedicated=team-b:NoSchedule`) or to
 * the control plane: a pod that tolerates it may be placed there, and a member held by its PodDisruptionBudget then
 * keeps that node from draining. Allowed: PreferNoSchedule (it only weighs where a pod goes), the taints of a node
 * that stopped reporting, and the keys the server names (`allowed`; `*` for every taint).
 */
export function tolerationsPolicyProblem(
  field: string,
  tolerations: unknown,
  allowed: readonly string[],
): string | undefined {
  if (!Array.isArray(tolerations) || allowed.includes('*')) return undefined;
  for (const [i, t] of (tolerations as unknown[]).entries()) {
    const { key, effect } = (t ?? {}) as { key?: unknown; effect?: unknown };
    if (effect === 'PreferNoSchedule') continue;
    if (typeof key === 'string' && key !== '' && (ALWAYS_TOLERATED.has(key) || allowed.includes(key))) continue;
    const what = typeof key === 'string' && key !== '' ? `the taint ${JSON.stringify(key)}` : 'every taint';
    const now = allowed.length ? `it names ${allowed.map((k) => JSON.stringify(k)).join(', ')}` : 'it names none';
    return (
      `${field}[${i}] tolerates ${what}: taints keep nodes to one tenant or to the control plane, and the server lets ` +
      `the pods it makes tolerate only the taints its administrator names in ${POD_TOLERATIONS_SETTING} (${now})`
    );
  }
  return undefined;
}

/** The SELinux types Pod Security `baseline` allows a pod (those of an ordinary container). */
const CONFINED_SELINUX_TYPES: ReadonlySet<string> = new Set([
  'container_t',
  'container_init_t',
  'container_kvm_t',
  'container_engine_t',
]);

/** The sysctls Pod Security `baseline` allows (namespaced, and safe to let any pod set). */
const SAFE_SYSCTLS: ReadonlySet<string> = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
]);

/**
 * What of a pod security context (already well formed: lib/values.ts podSecurityContextProblem) takes away the kernel
 * confinement Pod Security's `baseline` level keeps, or undefined: a seccomp or AppArmor profile `Unconfined`, an
 * SELinux type other than a container's or a user or role of its own, a Windows host process, a sysctl outside the
 * safe set. RuntimeDefault is what keeps a container from the kernel calls most escapes to the node start with, and
 * the node is every tenant's.
 */
export function confinementProblem(field: string, context: unknown): string | undefined {
  if (!context || typeof context !== 'object' || Array.isArray(context)) return undefined;
  const c = context as Record<string, unknown>;
  const baseline = 'the pods metaops makes keep the confinement of Pod Security "baseline"';
  for (const profile of ['seccompProfile', 'appArmorProfile']) {
    const type = (c[profile] as { type?: unknown } | null | undefined)?.type;
    if (type === 'Unconfined') return `${field}.${profile}.type "Unconfined" is not allowed: ${baseline}`;
  }
  const se = (c['seLinuxOptions'] ?? {}) as { type?: unknown; user?: unknown; role?: unknown };
  if (typeof se.type === 'string' && se.type !== '' && !CONFINED_SELINUX_TYPES.has(se.type))
    return `${field}.seLinuxOptions.type ${JSON.stringify(se.type)} is not allowed (${[...CONFINED_SELINUX_TYPES].join(', ')}): ${baseline}`;
  for (const part of ['user', 'role'] as const)
    if (typeof se[part] === 'string' && se[part] !== '')
      return `${field}.seLinuxOptions.${part} is not allowed: ${baseline}`;
  if ((c['windowsOptions'] as { hostProcess?: unknown } | null | undefined)?.hostProcess === true)
    return `${field}.windowsOptions.hostProcess is not allowed: ${baseline}`;
  return sysctlsPolicyProblem(`${field}.sysctls`, c['sysctls'], baseline);
}

/** The setting that lets the pods metaops makes carry an SELinux level (`seLinuxOptions.level`) of the spec's choosing. */
export const POD_SELINUX_LEVEL_SETTING = 'METAOPS_POD_ALLOW_SELINUX_LEVEL';

/** METAOPS_POD_ALLOW_SELINUX_LEVEL: true only when `true` or `1`. */
export function podSeLinuxLevelAllowed(env: NodeJS.ProcessEnv): boolean {
  const text = (env[POD_SELINUX_LEVEL_SETTING] ?? '').trim().toLowerCase();
  return text === 'true' || text === '1';
}

/** What is wrong with METAOPS_POD_ALLOW_SELINUX_LEVEL (the server refuses to start): true or false. */
export function podSeLinuxLevelProblems(env: NodeJS.ProcessEnv): string[] {
  const raw = env[POD_SELINUX_LEVEL_SETTING];
  if (raw === undefined || raw.trim() === '' || ['true', 'false', '1', '0'].includes(raw.trim().toLowerCase()))
    return [];
  return [`${POD_SELINUX_LEVEL_SETTING}=${JSON.stringify(raw)}: expected true or false`];
}

/**
 * An SELinux level (already well formed) in a pod security context, or undefined when there is none or the server
 * allows it (`allowed`). Pod Security `baseline` lets a pod set `seLinuxOptions.level`, but where the runtime gives
 * each namespace its own MCS categories (`s0:c26,c5`, as OpenShift-like setups do, and volumes carry them), a pod of
 * tenant A's that names tenant B's level reads and writes B's volumes on the node: the pods metaops makes take the
 * level their namespace's runtime gives them, unless the server's administrator allows one by the spec.
 */
export function seLinuxLevelProblem(field: string, context: unknown, allowed: boolean): string | undefined {
  if (allowed || !context || typeof context !== 'object' || Array.isArray(context)) return undefined;
  const level = ((context as Record<string, unknown>)['seLinuxOptions'] as { level?: unknown } | null | undefined)
    ?.level;
  if (typeof level !== 'string' || level === '') return undefined;
  return (
    `${field}.seLinuxOptions.level is not allowed: an SELinux level (MCS categories) is what keeps one namespace's ` +
    `volumes from another's where the runtime gives each namespace its own, and the pods metaops makes take the ` +
    `level their namespace gives them (a cluster admin may allow one with ${POD_SELINUX_LEVEL_SETTING}=true)`
  );
}

/** The first sysctl outside Pod Security `baseline`'s safe set (a name may be spelled with slashes), or undefined. */
function sysctlsPolicyProblem(field: string, sysctls: unknown, baseline: string): string | undefined {
  for (const [i, s] of (Array.isArray(sysctls) ? (sysctls as unknown[]) : []).entries()) {
    const name = (s as { name?: unknown } | null)?.name;
    if (typeof name === 'string' && !SAFE_SYSCTLS.has(name.replaceAll('/', '.')))
      return `${field}[${i}] ${JSON.stringify(name)} is not allowed (only the safe sysctls: ${[...SAFE_SYSCTLS].join(', ')}): ${baseline}`;
  }
  return undefined;
}

/** The setting that names the label and annotation key prefixes a tenant's pods may carry besides the defaults. */
export const POD_METADATA_SETTING = 'METAOPS_POD_METADATA_PREFIXES';

/**
 * The key prefixes every tenant's pod labels and annotations may use besides keys without a prefix: the labels
 * Kubernetes recommends for applications and Prometheus' scrape annotations. No cluster component acts on them beyond
 * the pod's namespace.
 */
export const POD_METADATA_ALWAYS_ALLOWED: readonly string[] = ['app.kubernetes.io', 'prometheus.io'];

/**
 * The entries of the server's METAOPS_POD_METADATA_PREFIXES (comma-separated): key prefixes (`example.com`), their
 * subdomains (`*.example.com`), `*` for any, or a key without a prefix that is refused by default (`aadpodidbinding`).
 */
export function podMetadataPrefixesOf(env: NodeJS.ProcessEnv): string[] {
  return (env[POD_METADATA_SETTING] ?? '')
    .split(',')
    .map((k) => k.trim().toLowerCase())
    .filter((k) => k !== '');
}

/** What is wrong with METAOPS_POD_METADATA_PREFIXES (the server refuses to start): each a DNS prefix, `*.`one, or `*`. */
export function podMetadataPrefixesProblems(env: NodeJS.ProcessEnv): string[] {
  const prefix = /^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
  return podMetadataPrefixesOf(env)
    .filter((k) => k !== '*' && (k.length > 253 || !prefix.test(k)))
    .map(
      (k) =>
        `${POD_METADATA_SETTING}: ${JSON.stringify(k)} is no key prefix (such as example.com or *.example.com), nor *`,
    );
}

/**
 * Keys without a prefix that a cluster component still reads as an instruction reaching past the namespace: AAD Pod
 * Identity gives a pod the Azure identity its `aadpodidbinding` label names, in any namespace unless it runs
 * forceNamespaced (off by default). Refused unless the administrator names the key itself.
 */
const UNPREFIXED_INSTRUCTIONS: ReadonlySet<string> = new Set(['aadpodidbinding']);

/** Whether a key prefix (lower case) is one every pod may carry or one the server's administrator names. */
function prefixAllowed(prefix: string, allowed: readonly string[]): boolean {
  return [...POD_METADATA_ALWAYS_ALLOWED, ...allowed].some(
    (a) => a === '*' || a === prefix || (a.startsWith('*.') && prefix.endsWith(a.slice(1))),
  );
}

/**
 * The first label or annotation key (already well formed) with a prefix the server does not let tenants put on the
 * pods it makes, or undefined. Cluster components read prefixed pod labels and annotations as instructions that a
 * pod's own spec could never give: a service mesh's injector adds host volumes and runs an image the annotation names
 * in a privileged init container (`sidecar.istio.io/...`), a CNI plugin takes an address from another tenant's pool
 * (`cni.projectcalico.org/ipv4pools`), an autoscaler keeps a shared node (`karpenter.sh/do-not-disrupt`). Their list
 * has no end, so the rule names what may pass: keys without a prefix, the prefixes every pod may carry
 * (POD_METADATA_ALWAYS_ALLOWED), and those the server's administrator names in METAOPS_POD_METADATA_PREFIXES.
 */
export function metadataPolicyProblem(
  field: string,
  map: unknown,
  allowed: readonly string[],
  ownKey: (key: string) => boolean = () => false,
): string | undefined {
  if (!map || typeof map !== 'object' || Array.isArray(map)) return undefined;
  for (const key of Object.keys(map)) {
    // The hook's own keys never reach a pod from the spec (dropped, and said so); Multus's two network annotations
    // are checked for what they reach (annotationReachProblem).
    if (ownKey(key) || key === NETWORKS || key === DEFAULT_NETWORK) continue;
    const slash = key.indexOf('/');
    if (slash < 0 && UNPREFIXED_INSTRUCTIONS.has(key.toLowerCase()) && !prefixAllowed(key.toLowerCase(), allowed))
      return (
        `${field}[${JSON.stringify(key)}] is read by a cluster component as a request for another identity, and the ` +
        `pods metaops makes carry it only where the server's administrator names it in ${POD_METADATA_SETTING}`
      );
    if (slash < 0) continue;
    const prefix = key.slice(0, slash).toLowerCase();
    if (prefixAllowed(prefix, allowed)) continue;
    const now = allowed.length ? `it names ${allowed.map((k) => JSON.stringify(k)).join(', ')}` : 'it names none';
    return (
      `${field}[${JSON.stringify(key)}]: the prefix ${JSON.stringify(prefix)} is a cluster component's to read, and ` +
      `the pods metaops makes carry only keys without a prefix, ${POD_METADATA_ALWAYS_ALLOWED.join('/, ')}/ and the ` +
      `prefixes the server's administrator names in ${POD_METADATA_SETTING} (${now})`
    );
  }
  return undefined;
}

/** The annotations by which the API server still sets a container's AppArmor or seccomp profile. */
const APPARMOR_ANNOTATION = 'container.apparmor.security.beta.kubernetes.io/';
const SECCOMP_ANNOTATIONS = [
  'seccomp.security.alpha.kubernetes.io/pod',
  'container.seccomp.security.alpha.kubernetes.io/',
];

/**
 * The first annotation that sets a profile Pod Security `baseline` refuses, or undefined: an AppArmor annotation other
 * than `runtime/default` or `localhost/<profile>`, a seccomp annotation `unconfined`. The API server turns them into
 * the container's profile as it does the fields confinementProblem checks, whatever server setting allows prefixes.
 */
export function annotationConfinementProblem(field: string, annotations: unknown): string | undefined {
  if (!annotations || typeof annotations !== 'object' || Array.isArray(annotations)) return undefined;
  for (const [key, value] of Object.entries(annotations as Record<string, unknown>)) {
    const k = key.toLowerCase();
    const v = typeof value === 'string' ? value.trim().toLowerCase() : '';
    const apparmor = k.startsWith(APPARMOR_ANNOTATION) && v !== 'runtime/default' && !v.startsWith('localhost/');
    const seccomp =
      SECCOMP_ANNOTATIONS.some((a) => k === a || (a.endsWith('/') && k.startsWith(a))) && v === 'unconfined';
    if (apparmor || seccomp)
      return `${field}[${JSON.stringify(key)}] ${JSON.stringify(value)} is not allowed: the pods metaops makes keep the confinement of Pod Security "baseline" (as securityContext.appArmorProfile and seccompProfile)`;
  }
  return undefined;
}

/** Multus's annotations: the networks a pod is attached to, each `[<namespace>/]<name>[@<interface>]` or JSON. */
const NETWORKS = 'k8s.v1.cni.cncf.io/networks';
const DEFAULT_NETWORK = 'v1.multus-cni.io/default-network';

/**
 * The first annotation (already well formed) that a cluster component follows into another namespace than `own`, or
 * undefined: Multus attaches a pod to each NetworkAttachmentDefinition its `k8s.v1.cni.cncf.io/networks` names
 * (`team-b/storage-net`, or `[{"name": ..., "namespace": "team-b"}]`) and to its `v1.multus-cni.io/default-network`,
 * whatever namespace those live in: a pod of tenant A's would sit on tenant B's secondary network, past B's
 * NetworkPolicies (which do not see secondary networks). The same reach is refused in affinity terms.
 */
export function annotationReachProblem(field: string, annotations: unknown, own: string): string | undefined {
  if (!annotations || typeof annotations !== 'object' || Array.isArray(annotations)) return undefined;
  const a = annotations as Record<string, unknown>;
  for (const key of [NETWORKS, DEFAULT_NETWORK]) {
    const value = a[key];
    if (typeof value !== 'string') continue;
    const named = networkNamespaces(value);
    const other = named === undefined ? undefined : named.find((ns) => ns !== '' && ns !== own);
    if (named === undefined)
      return `${field}[${JSON.stringify(key)}] is not a list of networks (names, or a JSON list of {name, namespace})`;
    if (other !== undefined)
      return `${field}[${JSON.stringify(key)}] names a network of namespace ${JSON.stringify(other)}: a pod is attached only to networks of its own namespace`;
  }
  return undefined;
}

/** The namespaces a Multus networks value names (empty: its own), or undefined when it is JSON of another shape. */
function networkNamespaces(value: string): string[] | undefined {
  const text = value.trim();
  if (text.startsWith('[') || text.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = parseJson(text);
    } catch {
      return undefined;
    }
    const list = Array.isArray(parsed) ? parsed : [parsed];
    const out: string[] = [];
    for (const n of list) {
      if (!n || typeof n !== 'object' || Array.isArray(n)) return undefined;
      // Multus reads the JSON with Go's encoding/json, whose field names match keys in any case, with Unicode's
      // simple folding ("Namespace", "NAMESPACE", "nameſpace"): every key so folded to namespace counts.
      for (const [key, ns] of Object.entries(n as Record<string, unknown>)) {
        if (goFolded(key) !== 'namespace') continue;
        if (typeof ns !== 'string') return undefined;
        out.push(ns);
      }
    }
    return out;
  }
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.includes('/'))
    .map((entry) => entry.slice(0, entry.indexOf('/')));
}

/** A JSON key as Go's encoding/json compares it with a field name: lower case, the long s and Kelvin sign folded. */
function goFolded(key: string): string {
  return key.toLowerCase().replaceAll('\u017f', 's');
}
