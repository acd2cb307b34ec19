// Pure PodBuggerTool decisions: which tools match a pod, what state a pod is in for a tool (carrying its container,
// pending, skipped, failed), the container each one adds, its name, the allowlist and the server's policy.
import { createHash } from 'node:crypto';
import {
  asGiven,
  IMAGE_HOST,
  IMAGE_PATH_SEGMENT,
  imageText,
  type ImageRef,
  isRegistryHost,
  isTerminating,
  type KubeObject,
  type LabelSelector,
  matchesSelector,
  normalRegistry,
  parseImage,
  resolvedImage,
  RETRY_SECONDS,
  ruleProblem,
  specParser,
} from '../../lib/index.js';
import {
  PodBuggerToolSpec,
  PROFILES as SCHEMA_PROFILES,
  type PodBuggerToolSpec as Spec,
  type SKIP_REASONS,
  MAX_KUBELET_MESSAGE,
} from './schema.js';
import { parseJson } from '../../lib/index.js';

// Image references are parsed in lib/images.ts (every kind reads them); the allowlist decides on them here.
export { imageText, type ImageRef, parseImage, resolvedImage };

export const parser = specParser(PodBuggerToolSpec, (spec) => {
  if (!spec.selector && !spec.label)
    return 'spec.selector or spec.label is required: a tool without one would debug every pod';
  // An empty selector (`{}`, `{matchLabels: {}}`) selects every pod as surely as none: refused the same way.
  const s = selectorOf(spec);
  const empty = Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0;
  if (empty)
    return 'spec.selector selects nothing in particular (it is empty): a tool would debug every pod of its namespace';
  return selectorProblem(s);
});

// Label keys and values as Kubernetes validates them (a prefix that is a DNS subdomain, a name of 63 characters).
const LABEL_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/;
const LABEL_PREFIX = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(?:[A-Za-z0-9](?:[A-Za-z0-9._-]{0,61}[A-Za-z0-9])?)?$/;

function labelKeyValid(key: string): boolean {
  const slash = key.lastIndexOf('/');
  if (slash < 0) return LABEL_NAME.test(key);
  const prefix = key.slice(0, slash);
  return prefix.length <= 253 && LABEL_PREFIX.test(prefix) && LABEL_NAME.test(key.slice(slash + 1));
}

/**
 * What is wrong with a selector as Kubernetes would see it: a key or value no label can have, In or NotIn without
 * values, Exists or DoesNotExist with some. The selector is sent to the API server as text (the status's count
 * lists the pods it selects), and that text has no escaping: only valid keys and values are ever written into it.
 */
export function selectorProblem(selector: LabelSelector): string | undefined {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (!labelKeyValid(key)) return `spec.selector: ${JSON.stringify(key)} is not a valid label key`;
    if (!LABEL_VALUE.test(value)) return `spec.selector: ${JSON.stringify(value)} is not a valid label value`;
  }
  for (const e of selector.matchExpressions ?? []) {
    if (!labelKeyValid(e.key)) return `spec.selector: ${JSON.stringify(e.key)} is not a valid label key`;
    const values = e.values ?? [];
    const needs = e.operator === 'In' || e.operator === 'NotIn';
    if (needs && values.length === 0) return `spec.selector: ${e.operator} on ${e.key} needs values`;
    if (!needs && values.length > 0) return `spec.selector: ${e.operator} on ${e.key} takes no values`;
    const bad = values.find((v) => !LABEL_VALUE.test(v));
    if (bad !== undefined) return `spec.selector: ${JSON.stringify(bad)} is not a valid label value`;
  }
  return undefined;
}

/** A valid selector as the API server's `labelSelector` parameter (`k=v,k in (a,b),k,!k`). */
export function selectorText(selector: LabelSelector): string {
  const parts = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of selector.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].join(',');
    if (e.operator === 'In') parts.push(`${e.key} in (${values})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${values})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else parts.push(`!${e.key}`);
  }
  return parts.join(',');
}

/** The selector of a tool: `selector`, and the `label: key=value` shorthand, both required to hold. */
export function selectorOf(spec: Spec): LabelSelector {
  const selector: LabelSelector = {
    ...(spec.selector?.matchLabels ? { matchLabels: { ...spec.selector.matchLabels } } : {}),
    ...(spec.selector?.matchExpressions ? { matchExpressions: [...spec.selector.matchExpressions] } : {}),
  };
  if (spec.label) {
    const [key, value] = spec.label.split('=', 2) as [string, string | undefined];
    const labels = selector.matchLabels ?? {};
    if (value === undefined)
      selector.matchExpressions = [...(selector.matchExpressions ?? []), { key, operator: 'Exists' }];
    // The selector names the key with another value: both must hold (so no pod is selected), neither replaces the
    // other. Said as `key in (value)` beside `key=other`.
    else if (Object.hasOwn(labels, key) && labels[key] !== value)
      selector.matchExpressions = [...(selector.matchExpressions ?? []), { key, operator: 'In', values: [value] }];
    else selector.matchLabels = { ...labels, [key]: value };
  }
  return selector;
}

/**
 * The ephemeral container name of a tool: `debug-<tool>`, a valid DNS-1123 label (the seed's controller named
 * containers after images, and `/` or `:` made them invalid). No two tools of a namespace share one:
 * - `debug-<tool>` when the tool's name is already a label (lower-case letters, digits, single dashes) and fits:
 *   such a name has no `--`;
 * - any other name (`x.y`, which would become `debug-x-y`, the name of tool `x-y`; `x--y`; a long one) is cut to a
 *   label and ends in `--` and 16 hex digits of a hash of the full name: the `--` keeps these apart from every name
 *   of the first form, and 64 bits of hash apart from each other (a name with another's 32-bit suffix, chosen to
 *   take its container, was found in minutes).
 */
export function containerName(tool: string): string {
  const base = `debug-${tool}`
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/-+/g, '-')
    .replace(/-$/, '');
  if (base === `debug-${tool}` && base.length <= 63) return base;
  const hash = createHash('sha256').update(tool).digest('hex').slice(0, 16);
  return `${base.slice(0, 63 - 2 - hash.length).replace(/-$/, '')}--${hash}`;
}

const PROFILE_CONTEXTS: Record<Spec['securityProfile'], Record<string, unknown> | undefined> = {
  general: { capabilities: { add: ['SYS_PTRACE'] } },
  baseline: undefined,
  restricted: {
    runAsNonRoot: true,
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  },
  netadmin: { capabilities: { add: ['NET_ADMIN', 'NET_RAW'] } },
  sysadmin: { privileged: true },
};

export function ephemeralContainer(tool: string, spec: Spec, pod: KubeObject): Record<string, unknown> {
  const c: Record<string, unknown> = {
    name: containerName(tool),
    image: resolvedImage(spec.image),
    imagePullPolicy: 'IfNotPresent',
    stdin: true,
    tty: true,
    terminationMessagePolicy: 'File',
  };
  if (spec.command) c['command'] = spec.command;
  if (spec.args) c['args'] = spec.args;
  if (spec.env) c['env'] = spec.env;
  if (spec.targetContainerName && targetNames(pod).includes(spec.targetContainerName))
    c['targetContainerName'] = spec.targetContainerName;
  const profile = PROFILE_CONTEXTS[spec.securityProfile];
  const sc: Record<string, unknown> = profile ? structuredClone(profile) : {};
  if (spec.runAsUser !== undefined) sc['runAsUser'] = spec.runAsUser;
  if (Object.keys(sc).length > 0) c['securityContext'] = sc;
  return c;
}

/** The names of a pod's (regular) containers, tolerant of anything malformed. */
export function containerNames(pod: KubeObject, field: 'containers' | 'initContainers' = 'containers'): string[] {
  const list = (pod['spec'] as Record<string, unknown> | undefined)?.[field];
  if (!Array.isArray(list)) return [];
  return list.flatMap((x: unknown) => {
    const name = (x as { name?: unknown } | null)?.name;
    return typeof name === 'string' ? [name] : [];
  });
}

/**
 * The containers a debug container may target (share the process namespace of): the pod's containers, and its
 * native sidecars (init containers with `restartPolicy: Always`, which run beside them for the pod's whole life, as
 * service-mesh proxies do). An init container that runs to completion is not one: it is gone when the debug
 * container starts.
 */
export function targetNames(pod: KubeObject): string[] {
  const inits = (pod['spec'] as { initContainers?: unknown } | undefined)?.initContainers;
  const sidecars = Array.isArray(inits)
    ? inits.flatMap((x: unknown) => {
        const c = x as { name?: unknown; restartPolicy?: unknown } | null;
        return typeof c?.name === 'string' && c.restartPolicy === 'Always' ? [c.name] : [];
      })
    : [];
  return [...containerNames(pod), ...sidecars];
}

/** The ephemeral containers a pod has: name to image. */
export function ephemeralImages(pod: KubeObject): Map<string, string> {
  const list = (pod['spec'] as { ephemeralContainers?: unknown } | undefined)?.ephemeralContainers;
  const out = new Map<string, string>();
  if (!Array.isArray(list)) return out;
  for (const c of list as Array<{ name?: unknown; image?: unknown }>) {
    if (c && typeof c.name === 'string') out.set(c.name, typeof c.image === 'string' ? c.image : '');
  }
  return out;
}

/**
 * The fields of a debug container that make it the one a spec adds: what it runs (image, command, args, env), beside
 * which container, and with which rights (securityContext: the profile and runAsUser). The API server's defaults
 * (pull policy, termination message) are not among them.
 */
export const COMPARED_FIELDS = ['image', 'command', 'args', 'env', 'targetContainerName', 'securityContext'] as const;
export type CompareField = (typeof COMPARED_FIELDS)[number];

/** True for a value the API server does not store (Go's `omitempty`): an empty list, string or object, or null. */
function unstored(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

/**
 * A value as the API server stores it, keys sorted, for comparing JSON: the fields it drops when empty (`command:
 * []`, `args: []`, `env: []`, an env variable's `value: ""`, an empty securityContext) are dropped here too, so a
 * container just added for a spec with any of them compares equal to that spec.
 */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => [k, canonical((value as Record<string, unknown>)[k])] as const);
    return Object.fromEntries(entries.filter(([, v]) => !unstored(v)));
  }
  return value;
}

/**
 * The settings a mutating admission policy adds to every container it admits ("restricted defaults": Kyverno's
 * add-default-securitycontext, Gatekeeper's mutations), each at the one value that takes rights away: a container
 * whose securityContext has one of these beside what the spec set does less than the spec asks, never more. Any other
 * setting the spec did not ask for (`privileged: true`, `runAsUser: 0`, `seLinuxOptions`, a `Localhost` seccomp
 * profile, `procMount: Unmasked`, `windowsOptions`) may grant something: not one of these.
 */
const ADDED_RESTRICTIONS = new Map<string, string>(
  Object.entries({
    allowPrivilegeEscalation: false,
    privileged: false,
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
    procMount: 'Default',
    seccompProfile: { type: 'RuntimeDefault' },
    appArmorProfile: { type: 'RuntimeDefault' },
  }).map(([k, v]) => [k, JSON.stringify(v)]),
);

/** A value as JSON text, as the API server stores it (canonical). */
const json = (v: unknown) => JSON.stringify(canonical(v));

/**
 * A securityContext, or its capabilities, as its settings, the empty ones dropped (canonical); undefined when it is
 * not an object (malformed: it is no container the spec adds).
 */
function settingsOf(value: unknown): Record<string, unknown> | undefined {
  const c = canonical(value ?? {});
  return typeof c === 'object' && !Array.isArray(c) ? (c as Record<string, unknown>) : undefined;
}

/** A list of capabilities as a set (admission may add to it, or write it in another order); undefined: malformed. */
const capabilitySet = (v: unknown): Set<string> | undefined =>
  v === undefined ? new Set() : Array.isArray(v) ? new Set(v.map(json)) : undefined;

/** The capabilities a spec's container has (ephemeralContainer's: well formed). */
interface Capabilities {
  add?: unknown;
  drop?: unknown;
}

/**
 * True when a found container's capabilities are the wanted ones, or those with more dropped: the same added (as a
 * set), every wanted drop kept, and any other drop beside them (the runtime drops them after adding: a drop only ever
 * takes a capability away). Nothing else in them.
 */
function capabilitiesNoLooser(found: unknown, wanted: Capabilities): boolean {
  const f = settingsOf(found);
  if (!f || Object.keys(f).some((k) => k !== 'add' && k !== 'drop')) return false;
  const [fa, fd] = [capabilitySet(f['add']), capabilitySet(f['drop'])];
  const [wa, wd] = [capabilitySet(wanted.add)!, capabilitySet(wanted.drop)!];
  return !!fa && !!fd && fa.size === wa.size && [...wa].every((c) => fa.has(c)) && [...wd].every((c) => fd.has(c));
}

/**
 * True when a found container's securityContext grants nothing the wanted one (ephemeralContainer's: well formed)
 * does not: every setting the spec made kept as it is (capabilities: the same added, more may be dropped), and beside
 * them only ADDED_RESTRICTIONS, the settings a restricting admission policy adds. So a container stored as admission
 * restricted it is the spec's, and a container with a right the spec does not give (`privileged`, a capability added,
 * a setting of the spec's loosened or removed: an earlier `sysadmin` tool's for a `restricted` one) never is.
 */
function securityContextNoLooser(found: unknown, wanted: unknown): boolean {
  const [f, w] = [settingsOf(found), settingsOf(wanted)!];
  if (!f) return false;
  for (const [k, value] of Object.entries(w))
    if (k === 'capabilities' ? !capabilitiesNoLooser(f[k], value as Capabilities) : json(f[k]) !== json(value))
      return false;
  return Object.entries(f).every(
    ([k, value]) =>
      Object.hasOwn(w, k) ||
      (k === 'capabilities' ? capabilitiesNoLooser(value, {}) : ADDED_RESTRICTIONS.get(k) === json(value)),
  );
}

/**
 * The compared fields in which a container found on a pod differs from the one a spec would add. The API server
 * stores the container as mutating admission left it (it runs on pods/ephemeralcontainers as on any write of a pod),
 * so two of them are compared for what admission does to a container without changing what it is:
 * - the image as given (lib/images.ts asGiven): the same registry, repository and tag, spelled out or not
 *   (`busybox:1.36` is `docker.io/library/busybox:1.36`, `busybox` is `busybox:latest`), with or without a digest
 *   added (Kyverno's mutateDigest, Connaisseur, Ratify pin `busybox:1.36` as
 *   `docker.io/library/busybox:1.36@sha256:<hex>`: the image that tag named). Another tag, repository or registry, a
 *   tag taken off for a digest, or another digest than a pinned spec's, is another image;
 * - the securityContext granting nothing more than the spec's (securityContextNoLooser): restrictions added, none
 *   taken away.
 * The others are compared as the API server stores them (canonical). `wanted` is the container ephemeralContainer
 * makes for the spec; `found` may be anything.
 */
export function containerDiffers(found: Record<string, unknown>, wanted: Record<string, unknown>): CompareField[] {
  const stored = (v: unknown) => {
    const c = canonical(v);
    return unstored(c) ? undefined : c;
  };
  const same = (f: CompareField) => {
    const [a, b] = [found[f], wanted[f]];
    if (f === 'image') return typeof a === 'string' && asGiven(a, b as string);
    if (f === 'securityContext') return securityContextNoLooser(a, b);
    return JSON.stringify(stored(a)) === JSON.stringify(stored(b));
  };
  return COMPARED_FIELDS.filter((f) => !same(f));
}

/** The ephemeral container of that name on a pod, tolerant of anything malformed. */
function ephemeralNamed(pod: KubeObject, name: string): Record<string, unknown> | undefined {
  const list = (pod['spec'] as { ephemeralContainers?: unknown } | undefined)?.ephemeralContainers;
  if (!Array.isArray(list)) return undefined;
  const found = (list as unknown[]).find((c) => (c as { name?: unknown } | null)?.name === name);
  return found && typeof found === 'object' ? (found as Record<string, unknown>) : undefined;
}

/**
 * One allowlist entry as a test on a parsed image. Matching is by registry and repository, never by string
 * prefix (`busybox*` once allowed `busybox.evil.example/pwn`):
 * - `*`: any image;
 * - `registry/path/*` (or `path/*` on Docker Hub): any repository below that path of that registry;
 * - `repository` or `repository*` or `repository:*`: that repository, any tag or digest;
 * - `repository:tag`, `repository@digest`: exactly that (an image without a tag is `:latest`); a tag entry allows
 *   no image with a digest (`repository:tag@digest` is pulled by the digest, whatever the tag).
 * An entry that is none of these is undefined (it would match nothing; the server refuses to start with it).
 */
export function allowlistEntry(entry: string): ((image: ImageRef) => boolean) | undefined {
  const never = undefined;
  if (entry === '*') return () => true;
  if (entry.endsWith('/*')) {
    const parts = entry.slice(0, -2).split('/');
    let registry = 'docker.io';
    if (isRegistryHost(parts[0]!)) {
      if (!IMAGE_HOST.test(parts[0]!)) return never;
      registry = normalRegistry(parts.shift()!);
    }
    if (parts.length > 0 && !parts.every((p) => IMAGE_PATH_SEGMENT.test(p))) return never;
    const below = parts.length > 0 ? `${parts.join('/')}/` : '';
    return (image) => image.registry === registry && image.repository.startsWith(below);
  }
  const anyTag = entry.endsWith('*');
  const ref = parseImage(anyTag ? entry.slice(0, entry.endsWith(':*') ? -2 : -1) : entry);
  if (!ref || (anyTag && (ref.tag !== undefined || ref.digest !== undefined))) return never;
  return (image) => {
    if (image.registry !== ref.registry || image.repository !== ref.repository) return false;
    if (ref.digest !== undefined && image.digest !== ref.digest) return false;
    // A reference with a digest is pulled by its digest (the runtime ignores its tag): an entry that names a tag and
    // no digest allows that tag as the registry resolves it, never a digest it did not name.
    if (ref.digest === undefined && ref.tag !== undefined && image.digest !== undefined) return false;
    if (ref.tag !== undefined && (image.tag ?? (image.digest ? undefined : 'latest')) !== ref.tag) return false;
    return true;
  };
}

/**
 * The server-side allowlist of debug images (METAOPS_DEBUG_IMAGE_ALLOWLIST, comma separated; see
 * allowlistEntry). An image that is not a valid reference is never allowed.
 */
export function imageAllowed(image: string, allowlist: readonly string[]): boolean {
  const ref = parseImage(image);
  if (!ref) return false;
  return allowlist.some((entry) => allowlistEntry(entry)?.(ref) ?? false);
}

export function parseList(value: string | undefined): string[] | undefined {
  const list = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return list.length ? list : undefined;
}

/** What the server lets PodBuggerTools do, from its environment (never from a tool). */
export interface DebugPolicy {
  /** Images tools may use: METAOPS_DEBUG_IMAGE_ALLOWLIST, default `busybox` (Docker Hub's, any tag). */
  allowlist: readonly string[];
  /** Namespaces whose pods are never touched: METAOPS_DEBUG_EXCLUDED_NAMESPACES, default `kube-system`. */
  excludedNamespaces: readonly string[];
  /** Security profiles tools may ask for: METAOPS_DEBUG_PROFILES, default baseline, restricted. */
  profiles: readonly Spec['securityProfile'][];
  /**
   * Whether a tool's author must be allowed to do what it does (METAOPS_DEBUG_AUTHOR_CHECK): `subjectaccessreview`
   * (the default, author.ts), or `off`, where every tool acts with the hook server's rights (a single-tenant cluster
   * without the admission policy; the server warns at start).
   */
  authorCheck: 'subjectaccessreview' | 'off';
  /**
   * Whether a tool's containers are added as its author (METAOPS_DEBUG_ACT_AS_AUTHOR=true): the PATCH impersonates
   * the stamped user, UID, groups and extra, so that the API server's admission (a ValidatingAdmissionPolicy,
   * Kyverno, Gatekeeper deciding on the requesting user) answers as it would answer the author's own `kubectl
   * debug`. Off (the default), the PATCH is the hook server's service account's: RBAC is checked for the author
   * (the SubjectAccessReview), admission is not. Needs the `impersonate` rights of docs/podbuggertool.md.
   */
  actAsAuthor: boolean;
}

const ACT_AS_AUTHOR = ['true', 'false'] as const;

const AUTHOR_CHECKS = ['subjectaccessreview', 'off'] as const;

export const DEFAULT_POLICY: DebugPolicy = Object.freeze({
  allowlist: Object.freeze(['busybox']),
  excludedNamespaces: Object.freeze(['kube-system']),
  // No capability unless the administrator allows it: general (SYS_PTRACE), netadmin (NET_ADMIN, NET_RAW) and
  // sysadmin (privileged) are off unless METAOPS_DEBUG_PROFILES lists them.
  profiles: Object.freeze(['baseline', 'restricted'] as const),
  authorCheck: 'subjectaccessreview',
  actAsAuthor: false,
});

export function policyFromEnv(env: NodeJS.ProcessEnv): DebugPolicy {
  const profiles = parseList(env['METAOPS_DEBUG_PROFILES']);
  return {
    allowlist: parseList(env['METAOPS_DEBUG_IMAGE_ALLOWLIST']) ?? DEFAULT_POLICY.allowlist,
    excludedNamespaces: parseList(env['METAOPS_DEBUG_EXCLUDED_NAMESPACES']) ?? DEFAULT_POLICY.excludedNamespaces,
    profiles: profiles
      ? profiles.filter((p): p is Spec['securityProfile'] => (SCHEMA_PROFILES as readonly string[]).includes(p))
      : DEFAULT_POLICY.profiles,
    authorCheck: env['METAOPS_DEBUG_AUTHOR_CHECK'] === 'off' ? 'off' : 'subjectaccessreview',
    actAsAuthor: env['METAOPS_DEBUG_ACT_AS_AUTHOR'] === 'true',
  };
}

/**
 * What is wrong with the METAOPS_DEBUG_* settings, checked at startup with every other setting (lib/config.ts): an
 * allowlist entry that could never match, an excluded namespace that is no namespace's name, a profile that does not
 * exist, a variable set but empty (which would silently fall back to the default).
 */
export function policyProblems(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  for (const name of ['METAOPS_DEBUG_IMAGE_ALLOWLIST', 'METAOPS_DEBUG_EXCLUDED_NAMESPACES', 'METAOPS_DEBUG_PROFILES']) {
    if (env[name] !== undefined && !parseList(env[name]))
      problems.push(`${name} is empty: list values, or unset it for the default`);
  }
  for (const entry of parseList(env['METAOPS_DEBUG_IMAGE_ALLOWLIST']) ?? []) {
    if (!allowlistEntry(entry))
      problems.push(
        `METAOPS_DEBUG_IMAGE_ALLOWLIST entry ${JSON.stringify(entry)} is not an image reference, repository* or path/*: it would match nothing`,
      );
  }
  // A namespace is named by a DNS-1123 label, compared as written (inject.ts, refusal): an entry that is none (a
  // pattern, `kube-*`; capitals; `_` or `/`) keeps no namespace out, and the server would debug the very namespaces
  // the administrator meant to exclude.
  for (const entry of parseList(env['METAOPS_DEBUG_EXCLUDED_NAMESPACES']) ?? []) {
    const problem = ruleProblem('dns1123Label', entry);
    if (problem)
      problems.push(
        `METAOPS_DEBUG_EXCLUDED_NAMESPACES entry ${JSON.stringify(entry)} names no namespace (a namespace's name ${problem}; entries are exact names, not patterns): it would exclude nothing`,
      );
  }
  const check = env['METAOPS_DEBUG_AUTHOR_CHECK'];
  if (check !== undefined && !(AUTHOR_CHECKS as readonly string[]).includes(check))
    problems.push(`METAOPS_DEBUG_AUTHOR_CHECK: ${JSON.stringify(check)} is not ${AUTHOR_CHECKS.join(' or ')}`);
  const asAuthor = env['METAOPS_DEBUG_ACT_AS_AUTHOR'];
  if (asAuthor !== undefined && !(ACT_AS_AUTHOR as readonly string[]).includes(asAuthor))
    problems.push(`METAOPS_DEBUG_ACT_AS_AUTHOR: ${JSON.stringify(asAuthor)} is not ${ACT_AS_AUTHOR.join(' or ')}`);
  // Acting as the author needs an author: with the check off there is none to act as (never the server instead).
  if (asAuthor === 'true' && check === 'off')
    problems.push(
      'METAOPS_DEBUG_ACT_AS_AUTHOR=true needs the author check: it acts as the stamped author, and METAOPS_DEBUG_AUTHOR_CHECK=off reads no stamp',
    );
  for (const profile of parseList(env['METAOPS_DEBUG_PROFILES']) ?? []) {
    if (!(SCHEMA_PROFILES as readonly string[]).includes(profile))
      problems.push(`METAOPS_DEBUG_PROFILES: no profile ${JSON.stringify(profile)} (${SCHEMA_PROFILES.join(', ')})`);
  }
  return problems;
}

/** What the METAOPS_DEBUG_* settings make tools do that the server says at start. */
export function policyWarnings(env: NodeJS.ProcessEnv): string[] {
  return env['METAOPS_DEBUG_AUTHOR_CHECK'] === 'off'
    ? [
        "METAOPS_DEBUG_AUTHOR_CHECK=off: PodBuggerTools act with the hook server's rights, whoever wrote them: anyone who may create a PodBuggerTool in a namespace may run commands in its pods (docs/podbuggertool.md, Who may debug)",
      ]
    : [];
}

/** Why the policy refuses a tool in a namespace, or undefined when it may act. */
export function refusal(
  spec: Spec,
  namespace: string,
  policy: DebugPolicy,
): { reason: 'ImageNotAllowed' | 'ProfileNotAllowed' | 'NamespaceExcluded'; message: string } | undefined {
  if (!imageAllowed(spec.image, policy.allowlist)) {
    return {
      reason: 'ImageNotAllowed',
      message: `image ${spec.image} is not in the server's debug image allowlist (${policy.allowlist.join(', ')}); nothing is injected`,
    };
  }
  if (!policy.profiles.includes(spec.securityProfile)) {
    return {
      reason: 'ProfileNotAllowed',
      message: `security profile ${spec.securityProfile} is not enabled on the server (${policy.profiles.join(', ')}); nothing is injected`,
    };
  }
  if (policy.excludedNamespaces.includes(namespace)) {
    return {
      reason: 'NamespaceExcluded',
      message: `namespace ${namespace} is excluded from debugging by the server; nothing is injected`,
    };
  }
  return undefined;
}

export function matches(spec: Spec, pod: KubeObject): boolean {
  return matchesSelector(pod.metadata.labels, selectorOf(spec));
}

/**
 * Whether a pod the API server listed for a tool of `namespace` is one the tool's status counts (and, for an author
 * allowed by pod name only, asks about): of that namespace, not being deleted, and selected by the tool's own
 * selector, read here (the API server's selection is checked again). A pod read from its metadata alone is decided
 * the same: only its metadata is read.
 */
export function countedPod(spec: Spec, namespace: string, pod: KubeObject): boolean {
  return !isTerminating(pod) && (pod.metadata.namespace ?? namespace) === namespace && matches(spec, pod);
}

/**
 * The annotation in which the injector records, on a pod, the tools whose container could not be added and why:
 * `{"<container>": "<Reason>"}`. Written by Metacontroller from the injector's answer, only when a PATCH failed (and
 * removed once it succeeds): the tool's status reads it when it counts.
 */
export const FAILURES_ANNOTATION = 'debug.metaops.dev/failures';
/**
 * Longer than any record the injector writes: not read. The injector writes at most MAX_RECORDED_TOOLS entries and
 * the overflow's, each at most about 170 characters (a container name of 63, a reason of 64, the retry state): 11 KB.
 */
export const MAX_RECORD_CHARS = 16 * 1024;
/**
 * The most tools a pod's record holds a failure of. A failure of one more tool (a namespace with more than this many
 * tools failing on one pod: a hostile or broken one) is not recorded for that tool, but in the record's overflow
 * entry (OVERFLOW_KEY), one backoff for every tool that has no entry: the record stays bounded, and the backoff holds
 * whatever the number of tools.
 */
export const MAX_RECORDED_TOOLS = 64;
/** The overflow entry's key: no container's name (`*` is not a DNS label), so no tool's entry. */
export const OVERFLOW_KEY = '*';
/** The overflow entry's attempt key: the same whichever tool beyond MAX_RECORDED_TOOLS failed. */
export const OVERFLOW_ATTEMPT = '00000000';

/**
 * One failure recorded on a pod for one container: the reason, and (written since the retries back off) how many
 * attempts in a row failed, when the last began (epoch seconds) and a key of what was attempted (the tool, the
 * container it adds and the pod: a change of any of them starts the retries afresh). Written as
 * `<Reason>;n=<attempts>;at=<epoch seconds>;k=<key>`; a record of the reason alone (written before) is one attempt
 * of unknown time, retried at once.
 */
export interface Failure {
  reason: string;
  attempts: number;
  at?: number;
  key?: string;
}

/**
 * A failure's reason as the record carries it: a letter, then letters and digits, 64 at most. Every reason the
 * injector writes is one: the API server's Status reason (letters, lib/kube.ts), one made of the HTTP status of an
 * answer without one (`HTTP408`), or the injector's own (`OutOfTime`, `Conflict`, `AuthorNotAllowed`...).
 */
export const FAILURE_REASON = /^[A-Za-z][A-Za-z0-9]{0,63}$/;

const RECORD = /^([A-Za-z][A-Za-z0-9]{0,63})(?:;n=([1-9][0-9]{0,5});at=([0-9]{1,12});k=([0-9a-f]{8}))?$/;

/** The failures recorded on a pod with their retry state, by container; anything malformed is none. */
export function recordedAttempts(pod: KubeObject): Map<string, Failure> {
  const out = new Map<string, Failure>();
  const annotations = pod.metadata.annotations;
  const text = annotations && Object.hasOwn(annotations, FAILURES_ANNOTATION) ? annotations[FAILURES_ANNOTATION] : '';
  if (typeof text !== 'string' || text === '' || text.length > MAX_RECORD_CHARS) return out;
  let value: unknown;
  try {
    value = parseJson(text);
  } catch {
    return out;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return out;
  for (const [container, entry] of Object.entries(value)) {
    const m = typeof entry === 'string' ? RECORD.exec(entry) : null;
    if (!m) continue;
    out.set(
      container,
      m[2] === undefined
        ? { reason: m[1]!, attempts: 1 }
        : { reason: m[1]!, attempts: Number(m[2]), at: Number(m[3]), key: m[4]! },
    );
  }
  return out;
}

/** The failures recorded on a pod, by container name; anything malformed (the annotation is anyone's to edit) is none. */
export function recordedFailures(pod: KubeObject): Map<string, string> {
  return new Map([...recordedAttempts(pod)].map(([container, f]) => [container, f.reason]));
}

/** A record as annotation text, keys sorted (the same record is always the same text); null when empty (removed). */
export function failuresText(record: ReadonlyMap<string, string | Failure>): string | null {
  if (record.size === 0) return null;
  const keys = [...record.keys()].sort();
  const text = (f: string | Failure) =>
    typeof f === 'string' || f.at === undefined || f.key === undefined
      ? typeof f === 'string'
        ? f
        : f.reason
      : `${f.reason};n=${f.attempts};at=${f.at};k=${f.key}`;
  return JSON.stringify(Object.fromEntries(keys.map((k) => [k, text(record.get(k)!)])));
}

/** The first retry of a failed PATCH comes after this many seconds, each next one after twice as long... */
export const FIRST_RETRY_SECONDS = RETRY_SECONDS.failure;
/** ...up to this: a PATCH refused for good (Pod Security) costs a pod one attempt an hour. */
export const MAX_RETRY_SECONDS = 3600;

/** How long after the start of the `attempts`-th failed attempt in a row the next one comes. */
export function retryDelaySeconds(attempts: number): number {
  return backoff(FIRST_RETRY_SECONDS, attempts);
}

function backoff(first: number, attempts: number): number {
  return Math.min(first * 2 ** Math.min(Math.max(attempts, 1) - 1, 20), MAX_RETRY_SECONDS);
}

/**
 * The reason of an injection whose API calls did not all fit in its work budget (an API server too slow to answer
 * them in time): nothing failed, so it is retried sooner than a failure, from a second, doubling up to an hour.
 */
export const OUT_OF_TIME = 'OutOfTime';

/**
 * The reason of PATCHes refused, in a row, because the pod changed since it was read (409): recorded only past the
 * first few (inject.ts CONFLICTS_UNRECORDED). Nothing failed: retried as OutOfTime is, from a second, doubling.
 */
export const CONFLICT = 'Conflict';

/** How long after a failure began its retry comes: from 30 s (from 1 s when out of time or conflicting), doubling to an hour. */
export function failureDelaySeconds(failure: Pick<Failure, 'reason' | 'attempts'>): number {
  return failure.reason === OUT_OF_TIME || failure.reason === CONFLICT
    ? backoff(1, failure.attempts)
    : retryDelaySeconds(failure.attempts);
}

/** The key of one attempt: the tool (uid), the container it adds to this pod (its spec as it matters), the pod (uid). */
export function attemptKey(tool: string, toolUid: string | undefined, spec: Spec, pod: KubeObject): string {
  const what = JSON.stringify([toolUid ?? '', pod.metadata.uid ?? '', ephemeralContainer(tool, spec, pod)]);
  return createHash('sha256').update(what).digest('hex').slice(0, 8);
}

/**
 * Seconds until the failure recorded for this attempt may be retried (0: now). Only a record of the same attempt
 * (same key) waits; one that says it began in the future (an edited annotation, a clock far off) does not.
 */
export function retryWaitSeconds(failure: Failure | undefined, key: string, nowSeconds: number): number {
  if (!failure || failure.at === undefined || failure.key !== key || failure.at > nowSeconds + 1) return 0;
  const due = failure.at + failureDelaySeconds(failure);
  // A call within a second of the time asked for is that call (rounding, clocks of two replicas).
  return due - nowSeconds > 1 ? due - nowSeconds : 0;
}

/** Why a pod cannot take a tool's container. */
export type SkipReason = (typeof SKIP_REASONS)[number];

/** The annotation the kubelet puts on the API server's copy (mirror) of a static pod. */
export const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';

/**
 * Why the API server refuses every ephemeral container on this pod, whatever the tool: a static pod's mirror (the
 * API server refuses to change its spec: 422), or a Windows pod (spec.os.name) when the container carries a
 * securityContext (a profile other than baseline, or runAsUser): the API server refuses its Linux fields (capabilities,
 * seccomp, privileged, runAsUser...) on a Windows pod (422).
 */
export function refusedByApiServer(pod: KubeObject, container: Record<string, unknown>): SkipReason | undefined {
  const annotations = pod.metadata.annotations;
  if (annotations && Object.hasOwn(annotations, MIRROR_ANNOTATION)) return 'MirrorPod';
  const os = (pod['spec'] as { os?: { name?: unknown } } | undefined)?.os?.name;
  if (os === 'windows' && container['securityContext'] !== undefined) return 'WindowsPod';
  return undefined;
}

/** Where a matching pod stands for one tool. */
export type PodState =
  | { state: 'injected' }
  | { state: 'outdated'; image: string; differs: CompareField[] }
  | { state: 'pending' }
  | { state: 'skipped'; reason: SkipReason }
  | { state: 'failed'; reason: string; message?: string };

/** The pod's phase, when it has one. */
function phaseOf(pod: KubeObject): unknown {
  return (pod['status'] as { phase?: unknown } | undefined)?.phase;
}

/**
 * True when the tool's container would be refused by the kubelet as root: it must run as non-root, and its user is
 * root or one the hook cannot see. It must when the restricted profile sets runAsNonRoot, or when the pod's own
 * securityContext says runAsNonRoot (an ephemeral container inherits the pod's securityContext, whatever the tool's
 * profile; a container's own setting would override it, and no profile sets it false). The kubelet then refuses to
 * start a container whose user is root (busybox's, and most debug images'), or not a number: such a container would
 * never run, and could never be removed. The user is known when the tool says it (runAsUser) or the pod does (its
 * securityContext.runAsUser, which an ephemeral container inherits); an image's own user is not. The target
 * container's securityContext does not count: an ephemeral container inherits nothing from it. On a Windows pod the
 * user is `windowsOptions.runAsUserName` (the pod's, inherited), and the kubelet's root is ContainerAdministrator.
 */
export function runsAsRoot(pod: KubeObject, spec: Spec): boolean {
  const podContext = (pod['spec'] as { securityContext?: unknown } | undefined)?.securityContext;
  const sc = (podContext && typeof podContext === 'object' ? podContext : {}) as {
    runAsNonRoot?: unknown;
    runAsUser?: unknown;
    windowsOptions?: { runAsUserName?: unknown } | null;
  };
  if (spec.securityProfile !== 'restricted' && sc.runAsNonRoot !== true) return false;
  const os = (pod['spec'] as { os?: { name?: unknown } } | undefined)?.os?.name;
  if (os === 'windows') {
    const name = sc.windowsOptions?.runAsUserName;
    return !(typeof name === 'string' && name !== '' && name.toLowerCase() !== 'containeradministrator');
  }
  const user = spec.runAsUser ?? sc.runAsUser;
  return !(typeof user === 'number' && user > 0);
}

interface ContainerState {
  waiting?: { reason?: unknown; message?: unknown };
  terminated?: unknown;
}

/** The kubelet's report on an ephemeral container of the pod (its state), tolerant of anything malformed. */
function kubeletState(pod: KubeObject, container: string): ContainerState | undefined {
  const statuses = (pod['status'] as { ephemeralContainerStatuses?: unknown } | undefined)?.ephemeralContainerStatuses;
  if (!Array.isArray(statuses)) return undefined;
  const status = statuses.find((s: unknown) => (s as { name?: unknown } | null)?.name === container) as
    { state?: unknown } | undefined;
  const state = status?.state;
  return state && typeof state === 'object' ? (state as ContainerState) : undefined;
}

/** True when the kubelet refused to start the container because its user is root (runAsNonRoot). */
function refusedAsRoot(state: ContainerState | undefined): boolean {
  const waiting = state?.waiting;
  return (
    waiting?.reason === 'CreateContainerConfigError' &&
    typeof waiting.message === 'string' &&
    /runAsNonRoot|non-root/i.test(waiting.message)
  );
}

/**
 * The kubelet's reasons for a container waiting on its image: it cannot be pulled (the tag or repository does not
 * exist, the registry refuses or cannot be reached), or is not a valid name, or may not be pulled. ErrImagePull and
 * ImagePullBackOff alternate as the kubelet retries: all are one reason here (ImagePullFailed), so that the tool's
 * status does not change with each retry.
 */
const IMAGE_WAITING = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'ErrImageNeverPull',
  'ImageInspectError',
  'RegistryUnavailable',
  'SignatureValidationFailed',
]);

/**
 * The kubelet's reasons for a container it cannot create or start (lib/replicas.ts counts them as failing for the
 * workloads): the runtime refuses its spec (`CreateContainerError`: an image without an entrypoint and no command,
 * "no command specified"), or it cannot be started (`RunContainerError`: its command not found in the image). The
 * kubelet tries an ephemeral container again at every sync of the pod while it has none, and it fails the same way for
 * as long as the pod lives: one reason here (ContainerNotCreated), the kubelet's reason and words in the status. (A
 * `CreateContainerConfigError` is a refusal of root, RunsAsRoot, or a configuration that may yet be made, a Secret or
 * ConfigMap that does not exist yet: not counted failed.)
 */
const CREATE_WAITING = new Set(['CreateContainerError', 'RunContainerError']);

/** The kubelet's reasons why a container on a pod does not run, and never will (it is the tool's failure). */
export const NOT_RUNNING = ['ImagePullFailed', 'ContainerExited', 'ContainerNotCreated'] as const;

/**
 * The kubelet's words on a container it cannot create, as the tool's status says them: `<reason>: <message>`, the
 * runtime's IDs (runs of 12 or more hexadecimal digits, new at each attempt) written `<id>` so that the words stay the
 * same from one attempt to the next (the status is not rewritten at each), control characters as spaces and any other
 * character but printable ASCII as `?` (a byte each on the wire), cut to MAX_KUBELET_MESSAGE characters.
 */
function kubeletWords(reason: string, message: unknown): string {
  const text = typeof message === 'string' ? message.slice(0, 4 * MAX_KUBELET_MESSAGE) : '';
  const words = `${reason}: ${text}`
    .replace(/[0-9a-f]{12,}/gi, '<id>')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .replace(/[^ -~]/g, '?')
    .trim();
  return words.length > MAX_KUBELET_MESSAGE ? `${words.slice(0, MAX_KUBELET_MESSAGE - 3)}...` : words;
}
/**
 * The failures of a container that is on the pod (the kubelet's): it does not run (NOT_RUNNING), or the kubelet
 * refused to start it as root (RunsAsRoot). None is retried: the pod carries the container (wantsContainer).
 */
export const STOPPED = new Set<string>([...NOT_RUNNING, 'RunsAsRoot']);

/**
 * Why a container that was added does not run: the kubelet cannot pull its image (ImagePullFailed), or it ran and
 * exited (ContainerExited: an ephemeral container is never restarted). Undefined while it runs, starts, or has no
 * report yet.
 */
function notRunning(
  state: ContainerState | undefined,
): { reason: (typeof NOT_RUNNING)[number]; message?: string } | undefined {
  // Exit code 0: the session ended as its user ended it (`exit` in the shell), or the command did its work. It did
  // what it was for: not the tool's failure.
  if (state?.terminated && typeof state.terminated === 'object')
    return (state.terminated as { exitCode?: unknown }).exitCode === 0 ? undefined : { reason: 'ContainerExited' };
  const reason = state?.waiting?.reason;
  if (typeof reason !== 'string') return undefined;
  if (IMAGE_WAITING.has(reason)) return { reason: 'ImagePullFailed' };
  // Not created, and never to be: with the kubelet's reason and words.
  if (CREATE_WAITING.has(reason))
    return { reason: 'ContainerNotCreated', message: kubeletWords(reason, state?.waiting?.message) };
  return undefined;
}

/**
 * True when the pod still wants the tool's container: it lacks it and can take it (pending), or the last attempt to
 * add it failed (recorded on the pod). A pod that carries a container of that name never wants it again, whatever
 * became of it: an ephemeral container can be neither restarted, replaced nor removed, and the API server takes the
 * same container again as a no-op. One the kubelet cannot start, or that exited, is `failed` in the tool's status
 * (ImagePullFailed, ContainerExited, RunsAsRoot: it says why), and left alone here: no PATCH, no retry.
 */
export function wantsContainer(pod: KubeObject, tool: string, spec: Spec): boolean {
  const state = podState(pod, tool, spec).state;
  if (state === 'pending') return true;
  return state === 'failed' && !ephemeralImages(pod).has(containerName(tool));
}

/**
 * Where a pod the tool selects stands: carrying the container (with the tool's image, or an older one), skipped (it
 * cannot take it), failed (the last attempt failed, as recorded on the pod, or the kubelet refused it), or pending.
 */
export function podState(pod: KubeObject, tool: string, spec: Spec): PodState {
  // A completed pod first: its containers, the debug one with them, were stopped with it (whatever their exit code):
  // nothing runs there any more, nothing can be added, and nothing failed.
  const phase = phaseOf(pod);
  if (phase === 'Succeeded' || phase === 'Failed') return { state: 'skipped', reason: 'PodCompleted' };
  const container = containerName(tool);
  const image = ephemeralImages(pod).get(container);
  if (image !== undefined) {
    const kubelet = kubeletState(pod, container);
    if (refusedAsRoot(kubelet)) return { state: 'failed', reason: 'RunsAsRoot' };
    // A container of that name that is not the one this spec adds (an earlier spec, or an earlier tool of the same
    // name): outdated, whatever else it shares.
    const differs = containerDiffers(ephemeralNamed(pod, container) ?? {}, ephemeralContainer(tool, spec, pod));
    if (differs.length > 0) return { state: 'outdated', image, differs };
    // Added, but not running and never to run (its image cannot be pulled, the kubelet cannot create it, or it
    // exited): not counted as injected.
    const stopped = notRunning(kubelet);
    return stopped ? { state: 'failed', ...stopped } : { state: 'injected' };
  }
  // Pods the API server refuses the container on, for as long as they live: not tried (the PATCH would be refused).
  const refused = refusedByApiServer(pod, ephemeralContainer(tool, spec, pod));
  if (refused) return { state: 'skipped', reason: refused };
  if (spec.targetContainerName && !targetNames(pod).includes(spec.targetContainerName))
    return { state: 'skipped', reason: 'TargetContainerMissing' };
  // Container names are unique across a pod's containers, init and ephemeral: the API server refuses the PATCH
  // (422) as long as the pod lives, so it is not sent.
  if (containerNames(pod, 'initContainers').includes(container) || containerNames(pod).includes(container))
    return { state: 'skipped', reason: 'ContainerNameTaken' };
  if (runsAsRoot(pod, spec)) return { state: 'skipped', reason: 'RunsAsRoot' };
  const failure = recordedFailures(pod).get(container);
  return failure ? { state: 'failed', reason: failure } : { state: 'pending' };
}
