// What the API server (and the kubelet) accept in the fields a hook copies into its children: names, label values,
// image references, quantities. A hook that answers a child the API server refuses sees nothing come of it:
// Metacontroller logs the refusal, and a rolling strategy may already have deleted what the child replaces. So each
// kind checks its parent's name and every value it copies before it answers, and a value that cannot be carried is
// `InvalidSpec` naming the field (lib/operator.ts), every child kept as it is.
//
// The rules are Kubernetes' own (k8s.io/apimachinery/pkg/util/validation, the container image check of
// pkg/apis/core/validation, the distribution reference grammar the kubelet parses images with, in lib/images.ts),
// each written once.

import { imageReferenceProblem } from './images.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
/** The DNS-1123 subdomain rule as a schema pattern: the name of a Secret, a ConfigMap, a StorageClass a spec names. */
export const DNS1123_SUBDOMAIN_PATTERN = DNS1123_SUBDOMAIN.source;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** The name rules of Kubernetes objects, and what each says when a name breaks it. */
export type NameRule = 'dns1035' | 'dns1123Label' | 'dns1123Subdomain' | 'labelValue';

const RULES: Record<NameRule, { pattern: RegExp; max: number; says: string }> = {
  dns1035: {
    pattern: DNS1035_LABEL,
    max: 63,
    says: "start with a letter and contain only lower-case letters, digits and '-' (a DNS-1035 label)",
  },
  dns1123Label: {
    pattern: DNS1123_LABEL,
    max: 63,
    says: "contain only lower-case letters, digits and '-', and start and end with a letter or digit (a DNS-1123 label)",
  },
  dns1123Subdomain: {
    pattern: DNS1123_SUBDOMAIN,
    max: 253,
    says: "contain only lower-case letters, digits, '-' and '.', each part starting and ending with a letter or digit (a DNS-1123 subdomain)",
  },
  labelValue: {
    pattern: LABEL_VALUE,
    max: 63,
    says: "contain only letters, digits, '-', '_' and '.', and start and end with a letter or digit (a label value)",
  },
};

/** What is wrong with `value` under `rule` (undefined: nothing), said as "must ...". */
export function ruleProblem(rule: NameRule, value: string, max = RULES[rule].max): string | undefined {
  const r = RULES[rule];
  if (value.length > max) return `must be at most ${max} characters (it has ${value.length})`;
  if (!r.pattern.test(value)) return `must ${r.says}`;
  return undefined;
}

/**
 * A name the parent's name makes for one of its children: `<prefix><parent name><suffix>` under `rule`, at most
 * `max` characters (the rule's own limit unless a tighter one applies, such as a StatefulSet's, whose name must
 * leave room for the revision hash in its pods' `controller-revision-hash` label).
 */
export interface DerivedName {
  /** What the name names, for the message: `Service`, `Pod`, `label app.kubernetes.io/instance`, ... */
  what: string;
  rule: NameRule;
  prefix?: string;
  /** The longest suffix the kind adds for this rule (the highest ordinal, the longest role). */
  suffix?: string;
  max?: number;
  /** Why the limit is tighter than the rule's, for the message. */
  why?: string;
}

/**
 * The first of `names` that the parent's name cannot make, as an InvalidSpec message naming the field and the
 * child (undefined when every name can be made).
 */
export function parentNameProblem(name: string, names: readonly DerivedName[]): string | undefined {
  for (const n of names) {
    const full = `${n.prefix ?? ''}${name}${n.suffix ?? ''}`;
    const problem = ruleProblem(n.rule, full, n.max);
    if (problem)
      return `metadata.name "${name}" cannot name ${n.what} "${full}": it ${problem}${n.why ? ` (${n.why})` : ''}`;
  }
  return undefined;
}

/**
 * What is wrong with a container image reference (undefined: the kubelet can pull it by that name). The grammar is
 * lib/images.ts's, the one every hook reads a member's image with: a reference accepted here is one whose registry,
 * repository and tag the hooks can read (an upgrade reads the version it moves to from the tag).
 */
export function imageProblem(image: string): string | undefined {
  return imageReferenceProblem(image);
}

const QUANTITY = /^([0-9]+)(?:\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;
/** A quantity's digits beyond which the API server's int64 (bytes) no longer holds it. */
const MAX_QUANTITY_DIGITS = 18;

/**
 * What is wrong with a storage quantity (a PersistentVolumeClaim's request): the forms the schema allows, greater than
 * zero (the API server refuses a request of 0), and within what the API server holds.
 */
export function quantityProblem(value: string): string | undefined {
  const m = QUANTITY.exec(value);
  if (!m) return 'must be a quantity such as 1Gi, 500Mi or 10G';
  // The suffixes are letters: a digit other than 0 anywhere makes a value above zero.
  if (!/[1-9]/.test(value)) return 'must be greater than zero';
  if (m[1]!.replace(/^0+/, '').length > MAX_QUANTITY_DIGITS) return 'is too large';
  return undefined;
}

/** A Kubernetes quantity's suffixes: binary (powers of 1024), decimal SI (powers of 1000). */
const BINARY_SUFFIX: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const ANY_QUANTITY = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$/;

/**
 * A Kubernetes quantity in its base unit (bytes for storage), as the API server reads it: `1Gi`, `1G`, `1500M`,
 * `0.5Gi`, `1e9`, `1E3` (an exponent, not exa), `100m` (milli), or a JSON number. Rounded up to a whole unit, as the
 * API server rounds a storage request. Undefined for anything it would not parse, or a negative value.
 */
export function quantityValue(q: unknown): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) && q >= 0 ? Math.ceil(q) : undefined;
  if (typeof q !== 'string' || q.length > 64) return undefined;
  const m = ANY_QUANTITY.exec(q.trim());
  if (!m || m[1] === '-') return undefined;
  const digits = Number(m[2]);
  const suffix = m[3] ?? '';
  let value: number;
  if (suffix in BINARY_SUFFIX) value = digits * 1024 ** BINARY_SUFFIX[suffix]!;
  else if (suffix in DECIMAL_SUFFIX) value = digits * 10 ** DECIMAL_SUFFIX[suffix]!;
  else value = digits * 10 ** Number(suffix.slice(1));
  // 0.1 * 10 ** 3 is 100.00000000000001 in floating point: a value within a part in 1e12 of a whole unit is that unit.
  const whole = Math.round(value);
  return Number.isFinite(value) ? (Math.abs(value - whole) <= whole * 1e-12 ? whole : Math.ceil(value)) : undefined;
}

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** What is wrong with a label or annotation key (`[prefix/]name`, a qualified name), or undefined. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined) {
    const p = ruleProblem('dns1123Subdomain', prefix);
    if (p) return `has a prefix that ${p}`;
  }
  if (name.length === 0 || name.length > 63 || !QUALIFIED_NAME.test(name))
    return "must be [prefix/]name, the name at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit";
  return undefined;
}

/**
 * The first key or value of a string map copied into labels (`values: true`) or annotations that the API server
 * refuses, as `<field>.<key> ...` (undefined when all are valid).
 */
export function stringMapProblem(
  field: string,
  map: Record<string, string> | undefined,
  values: 'label' | 'any',
): string | undefined {
  for (const [key, value] of Object.entries(map ?? {})) {
    const k = labelKeyProblem(key);
    if (k) return `${field} key ${JSON.stringify(key)} ${k}`;
    const v = values === 'label' ? ruleProblem('labelValue', value) : undefined;
    if (v) return `${field}.${key} ${JSON.stringify(value)} ${v}`;
  }
  return undefined;
}

const RESOURCE_QUANTITY = /^\+?([0-9]+(\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$/;

/** A quantity as an exact fraction (numerator / denominator), so that two are compared as the API server does. */
interface Exact {
  n: bigint;
  d: bigint;
}

/** A resource quantity (a string of RESOURCE_QUANTITY, or a JSON number) as an exact fraction; undefined if none. */
function exactQuantity(q: unknown): Exact | undefined {
  const text = typeof q === 'number' ? (Number.isFinite(q) && q >= 0 ? String(q) : '') : q;
  if (typeof text !== 'string' || text.length > 64) return undefined;
  const m = RESOURCE_QUANTITY.exec(text);
  if (!m) return undefined;
  const [whole = '', fraction = ''] = m[1]!.split('.');
  let n = BigInt(`${whole}${fraction}` || '0');
  let d = 10n ** BigInt(fraction.length);
  const suffix = m[3] ?? '';
  const exp10 = (e: number) => {
    if (e >= 0) n *= 10n ** BigInt(e);
    else d *= 10n ** BigInt(-e);
  };
  if (suffix in BINARY_SUFFIX) n *= 1024n ** BigInt(BINARY_SUFFIX[suffix]!);
  else if (suffix in DECIMAL_SUFFIX) exp10(DECIMAL_SUFFIX[suffix]!);
  else {
    const e = Number(suffix.slice(1));
    if (!Number.isSafeInteger(e) || Math.abs(e) > 64) return undefined;
    exp10(e);
  }
  return { n, d };
}

/** -1, 0 or 1 as a is below, equal to or above b. */
function compareExact(a: Exact, b: Exact): number {
  const l = a.n * b.d;
  const r = b.n * a.d;
  return l < r ? -1 : l > r ? 1 : 0;
}

/** The resources a container may name without a domain (pkg/apis/core/helper IsStandardContainerResourceName). */
const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);
const HUGEPAGES = 'hugepages-';

/**
 * What is wrong with a container resource's name (validateContainerResourceName): a qualified name; without a
 * domain, cpu, memory, ephemeral-storage or hugepages-<size>; with one outside kubernetes.io, an extended resource.
 */
function containerResourceNameProblem(name: string): string | undefined {
  const qualified = labelKeyProblem(name);
  if (qualified) return qualified;
  if (!name.includes('/'))
    return STANDARD_CONTAINER_RESOURCES.has(name) || name.startsWith(HUGEPAGES)
      ? undefined
      : 'must be cpu, memory, ephemeral-storage, hugepages-<size> or a domain-qualified (extended) resource such as example.com/gpu';
  if (name.includes('kubernetes.io/')) return undefined;
  if (name.startsWith('requests.')) return 'must not start with "requests." (an extended resource)';
  return labelKeyProblem(`requests.${name}`) ? 'is no valid extended resource name' : undefined;
}

/** Whether a request may be below its limit (a native resource other than huge pages: IsOvercommitAllowed). */
function overcommits(name: string): boolean {
  return (!name.includes('/') || name.includes('kubernetes.io/')) && !name.startsWith(HUGEPAGES);
}

/**
 * What is wrong with a container's resources (requests and limits: a quantity per resource, as a string or a
 * number), or undefined, as the API server validates them (ValidateContainerResourceRequirements): each name a
 * container resource, each quantity one it parses and not negative (whole for an extended resource), a request no
 * more than its limit (equal to it, and the limit set, for a resource that cannot be overcommitted: extended
 * resources, huge pages), huge pages only beside cpu or memory, and no resource claims (the pods copied into have
 * none to name).
 */
export function resourcesProblem(field: string, resources: unknown): string | undefined {
  if (resources === undefined) return undefined;
  if (!resources || typeof resources !== 'object' || Array.isArray(resources)) return `${field} must be an object`;
  const r = resources as Record<string, unknown>;
  const parsed: Parsed = { requests: new Map(), limits: new Map() };
  return (
    resourceMapProblem(field, 'limits', r['limits'], parsed) ??
    resourceMapProblem(field, 'requests', r['requests'], parsed) ??
    requestLimitProblem(field, r, parsed) ??
    resourceClaimsProblem(field, r['claims'])
  );
}

/** Each part's quantities, read exactly. */
type Parsed = Record<'requests' | 'limits', Map<string, Exact>>;

/** Whether a JSON value is set (neither absent nor null). */
function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** What is wrong with one part (requests or limits) of a container's resources; each quantity kept in `parsed`. */
function resourceMapProblem(
  field: string,
  part: 'requests' | 'limits',
  map: unknown,
  parsed: Parsed,
): string | undefined {
  if (!present(map)) return undefined;
  if (typeof map !== 'object' || Array.isArray(map)) return `${field}.${part} must be a map of quantities`;
  for (const [name, q] of Object.entries(map as Record<string, unknown>)) {
    const nameWrong = containerResourceNameProblem(name);
    if (nameWrong) return `${field}.${part} resource name ${JSON.stringify(name)} ${nameWrong}`;
    const ok =
      (typeof q === 'number' && Number.isFinite(q) && q >= 0) ||
      (typeof q === 'string' && q.length <= 64 && RESOURCE_QUANTITY.test(q));
    const exact = ok ? exactQuantity(q) : undefined;
    if (!exact) return `${field}.${part}.${name} ${JSON.stringify(q)} is not a quantity (such as 500m, 1, 256Mi, 1Gi)`;
    if (!overcommits(name) && !name.startsWith(HUGEPAGES) && exact.n % exact.d !== 0n)
      return `${field}.${part}.${name} ${JSON.stringify(q)} must be a whole number (an extended resource)`;
    parsed[part].set(name, exact);
  }
  return undefined;
}

/**
 * Each request against its limit: no more than it, and equal to it (the limit set) for a resource that cannot be
 * overcommitted; huge pages only beside cpu or memory.
 */
function requestLimitProblem(field: string, r: Record<string, unknown>, parsed: Parsed): string | undefined {
  const shown = (part: 'requests' | 'limits', name: string) =>
    JSON.stringify((r[part] as Record<string, unknown>)[name]);
  for (const [name, request] of parsed.requests) {
    const limit = parsed.limits.get(name);
    if (limit === undefined) {
      if (overcommits(name)) continue;
      return `${field}.limits.${name} must be set, equal to its request: ${name} cannot be overcommitted`;
    }
    const c = compareExact(request, limit);
    if (!overcommits(name) && c !== 0)
      return `${field}.requests.${name} ${shown('requests', name)} must equal its limit ${shown('limits', name)}: ${name} cannot be overcommitted`;
    if (c > 0)
      return `${field}.requests.${name} ${shown('requests', name)} must be less than or equal to its limit ${shown('limits', name)}`;
  }
  const names = [...parsed.requests.keys(), ...parsed.limits.keys()];
  if (names.some((n) => n.startsWith(HUGEPAGES)) && !names.some((n) => n === 'cpu' || n === 'memory'))
    return `${field}: huge pages require a cpu or memory request or limit`;
  return undefined;
}

/** The pods copied into name no resource claims, so a container may claim none. */
function resourceClaimsProblem(field: string, claims: unknown): string | undefined {
  if (!present(claims) || (Array.isArray(claims) && claims.length === 0)) return undefined;
  return `${field}.claims must be empty: the pod has no resource claims to name`;
}

/** The effects a taint, and so a toleration, may have. */
const TAINT_EFFECTS = new Set(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);

/** A JSON value as the message shows it, cut short. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Whether `value` is an integer the API server reads as an int64 (a JSON number without a fraction). */
function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

/** What is wrong with a list of objects of a field: not a list, or an entry not an object (undefined: none). */
function listProblem(field: string, list: unknown): string | undefined {
  if (!Array.isArray(list)) return `${field} must be a list`;
  const i = list.findIndex((x) => !x || typeof x !== 'object' || Array.isArray(x));
  return i >= 0 ? `${field}[${i}] must be an object` : undefined;
}

/** The first field of `object` among `names` that holds something other than a string (undefined: none). */
function notString(object: Record<string, unknown>, names: readonly string[]): string | undefined {
  return names.find((n) => object[n] !== undefined && object[n] !== null && typeof object[n] !== 'string');
}

/**
 * What is wrong with a pod's tolerations, as the API server validates them (ValidateTolerations), or undefined: a
 * key is a qualified name; without a key the operator is Exists; the operator is Equal (or empty) with a label value,
 * or Exists without a value (Lt and Gt need a feature gate that is off by default); the effect, when set, is
 * NoSchedule, PreferNoSchedule or NoExecute; tolerationSeconds only with NoExecute.
 */
export function tolerationsProblem(field: string, tolerations: unknown): string | undefined {
  if (!present(tolerations)) return undefined;
  const list = listProblem(field, tolerations);
  if (list) return list;
  for (const [i, t] of (tolerations as Array<Record<string, unknown>>).entries()) {
    const wrong = tolerationProblem(`${field}[${i}]`, t);
    if (wrong) return wrong;
  }
  return undefined;
}

/** What is wrong with one toleration, at `at`, or undefined. */
function tolerationProblem(at: string, t: Record<string, unknown>): string | undefined {
  const wrongType = notString(t, ['key', 'operator', 'value', 'effect']);
  if (wrongType) return `${at}.${wrongType} ${shown(t[wrongType])} must be a string`;
  const str = (n: string) => (t[n] as string | undefined) ?? '';
  const [key, operator, effect] = [str('key'), str('operator'), str('effect')];
  const k = key ? labelKeyProblem(key) : undefined;
  if (k) return `${at}.key ${shown(key)} ${k}`;
  if (!key && operator !== 'Exists')
    return `${at}.operator must be Exists when the key is empty (which tolerates every taint)`;
  const operatorWrong = tolerationOperatorProblem(at, operator, str('value'));
  if (operatorWrong) return operatorWrong;
  if (effect && !TAINT_EFFECTS.has(effect))
    return `${at}.effect ${shown(effect)} must be NoSchedule, PreferNoSchedule or NoExecute`;
  const seconds = t['tolerationSeconds'];
  if (!present(seconds)) return undefined;
  if (!isInteger(seconds)) return `${at}.tolerationSeconds ${shown(seconds)} must be an integer`;
  return effect === 'NoExecute' ? undefined : `${at}.tolerationSeconds may be set only with the effect NoExecute`;
}

/** A toleration's operator and value: Equal (or empty) with a label value, Exists without a value. */
function tolerationOperatorProblem(at: string, operator: string, value: string): string | undefined {
  if (operator === '' || operator === 'Equal') {
    const v = ruleProblem('labelValue', value);
    return v ? `${at}.value ${shown(value)} ${v}` : undefined;
  }
  if (operator === 'Exists') return value ? `${at}.value must be empty when the operator is Exists` : undefined;
  return `${at}.operator ${shown(operator)} must be Equal or Exists`;
}

/** The pod fields an environment variable's fieldRef may name (validEnvDownwardAPIFieldPathExpressions). */
const ENV_FIELD_PATHS = new Set([
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
]);
/** The container resources an environment variable's resourceFieldRef may name (and huge pages). */
const ENV_RESOURCE_FIELDS = new Set([
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
]);
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;

/** What is wrong with a ConfigMap or Secret key (IsConfigMapKey), or undefined. */
function configKeyProblem(key: string): string | undefined {
  if (key.length > 253) return 'must be at most 253 characters';
  if (!CONFIG_KEY.test(key)) return "must contain only letters, digits, '-', '_' and '.'";
  if (key === '.' || key === '..' || key.startsWith('..')) return "must not be '.' or '..', nor start with '..'";
  return undefined;
}

/** What is wrong with an environment variable's name (IsRelaxedEnvVarName, the rule since 1.34), or undefined. */
function envNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (/[^\x20-\x7e]|=/.test(name)) return "must contain only printable ASCII characters other than '='";
  return undefined;
}

/** What is wrong with one source of an environment variable's valueFrom, at `at`, or undefined. */
function envSourceProblem(at: string, kind: string, source: Record<string, unknown>): string | undefined {
  const wrongType = notString(source, [
    'apiVersion',
    'fieldPath',
    'resource',
    'containerName',
    'name',
    'key',
    'volumeName',
    'path',
  ]);
  if (wrongType) return `${at}.${wrongType} ${shown(source[wrongType])} must be a string`;
  const str = (n: string) => (source[n] as string | undefined) ?? '';
  switch (kind) {
    case 'fieldRef':
      return fieldRefProblem(at, str('apiVersion'), str('fieldPath'));
    case 'resourceFieldRef':
      return resourceFieldRefProblem(at, str('resource'), source['divisor']);
    case 'configMapKeyRef':
    case 'secretKeyRef':
      return keyRefProblem(at, str('name'), str('key'), source['optional']);
    default:
      // fileKeyRef (beta since 1.35): a key, a volume of the pod and a path within it.
      if (!str('key') || envNameProblem(str('key'))) return `${at}.key must be an environment variable name`;
      if (ruleProblem('dns1123Label', str('volumeName')))
        return `${at}.volumeName must name a volume (a DNS-1123 label)`;
      if (!str('path') || str('path').split('/').includes('..')) return `${at}.path must be set and not contain '..'`;
      return undefined;
  }
}

/** A fieldRef: apiVersion v1 (its default), a pod field the downward API gives, or one label or annotation. */
function fieldRefProblem(at: string, version: string, path: string): string | undefined {
  if (version && version !== 'v1') return `${at}.apiVersion ${shown(version)} must be v1`;
  if (!path) return `${at}.fieldPath must be set`;
  const sub = /^metadata\.(labels|annotations)\['(.*)'\]$/.exec(path);
  if (sub) {
    const k = labelKeyProblem(sub[1] === 'annotations' ? sub[2]!.toLowerCase() : sub[2]!);
    return k ? `${at}.fieldPath ${shown(path)} names a key that ${k}` : undefined;
  }
  return ENV_FIELD_PATHS.has(path)
    ? undefined
    : `${at}.fieldPath ${shown(path)} must be one of ${[...ENV_FIELD_PATHS].join(', ')}, or metadata.labels['<key>'] or metadata.annotations['<key>']`;
}

/** A resourceFieldRef: a container resource the downward API gives, and a divisor that is a quantity. */
function resourceFieldRefProblem(at: string, resource: string, divisor: unknown): string | undefined {
  if (!resource) return `${at}.resource must be set`;
  if (!ENV_RESOURCE_FIELDS.has(resource) && !/^(limits|requests)\.hugepages-/.test(resource))
    return `${at}.resource ${shown(resource)} must be one of ${[...ENV_RESOURCE_FIELDS].join(', ')} or limits. or requests.hugepages-<size>`;
  if (present(divisor) && !exactQuantity(divisor)) return `${at}.divisor ${shown(divisor)} is not a quantity`;
  return undefined;
}

/** A configMapKeyRef or secretKeyRef: the object's name (a DNS-1123 subdomain) and a key it may hold. */
function keyRefProblem(at: string, name: string, key: string, optional: unknown): string | undefined {
  const nameWrong = ruleProblem('dns1123Subdomain', name);
  if (nameWrong) return `${at}.name ${shown(name)} ${nameWrong}`;
  if (!key) return `${at}.key must be set`;
  const keyWrong = configKeyProblem(key);
  if (keyWrong) return `${at}.key ${shown(key)} ${keyWrong}`;
  return present(optional) && typeof optional !== 'boolean' ? `${at}.optional must be true or false` : undefined;
}

const ENV_SOURCES = ['fieldRef', 'resourceFieldRef', 'configMapKeyRef', 'secretKeyRef', 'fileKeyRef'] as const;

/**
 * What is wrong with a container's environment variables, as the API server validates them (ValidateEnv), or
 * undefined: each has a name, and either a value or a valueFrom with exactly one source the API server knows, each
 * source well formed.
 */
export function envProblem(field: string, env: unknown): string | undefined {
  if (env === undefined || env === null) return undefined;
  const list = listProblem(field, env);
  if (list) return list;
  for (const [i, e] of (env as Array<Record<string, unknown>>).entries()) {
    const at = `${field}[${i}]`;
    const wrongType = notString(e, ['name', 'value']);
    if (wrongType) return `${at}.${wrongType} ${shown(e[wrongType])} must be a string`;
    const name = (e['name'] as string | undefined) ?? '';
    const nameWrong = envNameProblem(name);
    if (nameWrong) return `${at}.name ${shown(name)} ${nameWrong}`;
    const from = e['valueFrom'];
    if (from === undefined || from === null) continue;
    if (typeof from !== 'object' || Array.isArray(from)) return `${at}.valueFrom must be an object`;
    const sources = ENV_SOURCES.filter((k) => {
      const v = (from as Record<string, unknown>)[k];
      return v !== undefined && v !== null;
    });
    if (sources.length === 0) return `${at}.valueFrom must have one of ${ENV_SOURCES.join(', ')}`;
    if (e['value']) return `${at}.valueFrom may not be set when value is not empty (${name})`;
    if (sources.length > 1) return `${at}.valueFrom may have only one of ${sources.join(', ')}`;
    const kind = sources[0]!;
    const source = (from as Record<string, unknown>)[kind];
    if (typeof source !== 'object' || Array.isArray(source)) return `${at}.valueFrom.${kind} must be an object`;
    const wrong = envSourceProblem(`${at}.valueFrom.${kind}`, kind, source as Record<string, unknown>);
    if (wrong) return wrong;
  }
  return undefined;
}

/** The largest user or group ID the API server takes (math.MaxInt32). */
const MAX_ID = 2147483647;
const SYSCTL_SEGMENT = '[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const SYSCTL_NAME = new RegExp(`^(${SYSCTL_SEGMENT}[./])*${SYSCTL_SEGMENT}$`);

/** What is wrong with a seccomp or AppArmor profile at `at`, or undefined. */
function profileProblem(at: string, profile: unknown, seccomp: boolean): string | undefined {
  if (profile === undefined || profile === null) return undefined;
  if (typeof profile !== 'object' || Array.isArray(profile)) return `${at} must be an object`;
  const p = profile as Record<string, unknown>;
  const wrongType = notString(p, ['type', 'localhostProfile']);
  if (wrongType) return `${at}.${wrongType} ${shown(p[wrongType])} must be a string`;
  const type = p['type'];
  const local = p['localhostProfile'] as string | undefined | null;
  if (type !== 'RuntimeDefault' && type !== 'Unconfined' && type !== 'Localhost')
    return `${at}.type ${shown(type)} must be RuntimeDefault, Unconfined or Localhost`;
  if (type !== 'Localhost')
    return local != null ? `${at}.localhostProfile may be set only with the type Localhost` : undefined;
  if (local == null || local.trim() === '') return `${at}.localhostProfile must be set with the type Localhost`;
  if (seccomp && (local.startsWith('/') || local.split('/').includes('..')))
    return `${at}.localhostProfile ${shown(local)} must be a relative path without '..'`;
  if (!seccomp && (local.trim() !== local || local.length > 4095))
    return `${at}.localhostProfile ${shown(local)} must not be padded with whitespace, nor longer than 4095 characters`;
  return undefined;
}

/**
 * What is wrong with a pod's security context (core/v1 PodSecurityContext), as the API server validates it
 * (validatePodSpecSecurityContext), or undefined: user and group IDs from 0 to 2147483647, the policies among the
 * values it knows, the seccomp and AppArmor profiles well formed, each sysctl named once and well, and every
 * field of the type the API server decodes.
 */
export function podSecurityContextProblem(field: string, context: unknown): string | undefined {
  if (!present(context)) return undefined;
  if (typeof context !== 'object' || Array.isArray(context)) return `${field} must be an object`;
  const c = context as Record<string, unknown>;
  return (
    idsProblem(field, c) ??
    enumsProblem(field, c) ??
    profileProblem(`${field}.seccompProfile`, c['seccompProfile'], true) ??
    profileProblem(`${field}.appArmorProfile`, c['appArmorProfile'], false) ??
    optionsProblem(field, c) ??
    sysctlsProblem(`${field}.sysctls`, c['sysctls'])
  );
}

/** Whether `v` is a user or group ID the API server takes. */
function isId(v: unknown): boolean {
  return isInteger(v) && v >= 0 && v <= MAX_ID;
}

/** The user and group IDs (0 to 2147483647) and runAsNonRoot (a boolean). */
function idsProblem(field: string, c: Record<string, unknown>): string | undefined {
  for (const id of ['runAsUser', 'runAsGroup', 'fsGroup'])
    if (present(c[id]) && !isId(c[id])) return `${field}.${id} ${shown(c[id])} must be an integer from 0 to ${MAX_ID}`;
  const groups = c['supplementalGroups'];
  if (present(groups) && !Array.isArray(groups)) return `${field}.supplementalGroups must be a list`;
  const bad = Array.isArray(groups) ? groups.find((g) => !isId(g)) : undefined;
  if (bad !== undefined)
    return `${field}.supplementalGroups holds ${shown(bad)}: each must be an integer from 0 to ${MAX_ID}`;
  if (present(c['runAsNonRoot']) && typeof c['runAsNonRoot'] !== 'boolean')
    return `${field}.runAsNonRoot must be true or false`;
  return undefined;
}

/** The policies a pod security context names, each among the values the API server knows. */
const SECURITY_ENUMS: ReadonlyArray<[string, readonly string[]]> = [
  ['fsGroupChangePolicy', ['OnRootMismatch', 'Always']],
  ['supplementalGroupsPolicy', ['Merge', 'Strict']],
  ['seLinuxChangePolicy', ['MountOption', 'Recursive']],
];

function enumsProblem(field: string, c: Record<string, unknown>): string | undefined {
  for (const [name, allowed] of SECURITY_ENUMS) {
    const v = c[name];
    if (present(v) && !allowed.includes(v as string))
      return `${field}.${name} ${shown(v)} must be ${allowed.join(' or ')}`;
  }
  return undefined;
}

/** seLinuxOptions and windowsOptions: objects of strings. */
function optionsProblem(field: string, c: Record<string, unknown>): string | undefined {
  for (const name of ['seLinuxOptions', 'windowsOptions']) {
    const v = c[name];
    if (!present(v)) continue;
    if (typeof v !== 'object' || Array.isArray(v)) return `${field}.${name} must be an object`;
    const wrongType = notString(v as Record<string, unknown>, [
      'user',
      'role',
      'type',
      'level',
      'gmsaCredentialSpecName',
      'gmsaCredentialSpec',
      'runAsUserName',
    ]);
    if (wrongType) return `${field}.${name}.${wrongType} must be a string`;
  }
  return undefined;
}

/** Each sysctl named once, by a sysctl name. */
function sysctlsProblem(field: string, sysctls: unknown): string | undefined {
  if (!present(sysctls)) return undefined;
  const list = listProblem(field, sysctls);
  if (list) return list;
  const seen = new Set<string>();
  for (const [i, s] of (sysctls as Array<Record<string, unknown>>).entries()) {
    const wrongType = notString(s, ['name', 'value']);
    if (wrongType) return `${field}[${i}].${wrongType} must be a string`;
    const name = (s['name'] as string | undefined) ?? '';
    if (!name || name.length > 253 || !SYSCTL_NAME.test(name))
      return `${field}[${i}].name ${shown(name)} must be a sysctl name (such as net.ipv4.ip_local_port_range)`;
    if (seen.has(name)) return `${field}[${i}].name ${shown(name)} is set twice`;
    seen.add(name);
  }
  return undefined;
}

// Affinities and claim specs are free-form in the CRDs that carry them (a core/v1 Affinity, a core/v1
// PersistentVolumeClaimSpec): each is read below as the API server decodes and validates it, and the first thing it
// would refuse is said naming the field. A value of another JSON type than the Go field's is refused when the
// object is decoded; null is the field's zero value (absent); a field the type does not have is dropped.

/** What the API server refuses in a value, found while it is read (caught by `firstProblem`). */
class Refused {
  constructor(readonly message: string) {}
}

function refuse(message: string): never {
  throw new Refused(message);
}

/** The first refusal `read` meets, or undefined when it reads the whole value. */
function firstProblem(read: () => void): string | undefined {
  try {
    read();
    return undefined;
  } catch (e) {
    if (e instanceof Refused) return e.message;
    throw e;
  }
}

/** A struct field: absent or null is the empty struct. */
function struct(at: string, v: unknown): Record<string, unknown> {
  if (!present(v)) return {};
  if (typeof v !== 'object' || Array.isArray(v)) refuse(`${at} must be an object`);
  return v as Record<string, unknown>;
}

/** A list of structs (an entry null is the empty struct). */
function structs(at: string, v: unknown): Array<Record<string, unknown>> {
  if (!present(v)) return [];
  if (!Array.isArray(v)) refuse(`${at} must be a list`);
  return v.map((x, i) => struct(`${at}[${i}]`, x));
}

/** A string field (null is ""). */
function text(at: string, v: unknown): string {
  if (!present(v)) return '';
  if (typeof v !== 'string') refuse(`${at} ${shown(v)} must be a string`);
  return v;
}

/** A list of strings. */
function texts(at: string, v: unknown): string[] {
  if (!present(v)) return [];
  if (!Array.isArray(v)) refuse(`${at} must be a list of strings`);
  return v.map((x, i) => text(`${at}[${i}]`, x));
}

/** A map of strings. */
function textMap(at: string, v: unknown): Record<string, string> {
  return Object.fromEntries(Object.entries(struct(at, v)).map(([k, x]) => [k, text(`${at}.${k}`, x)]));
}

/** A weight of a preferred term: an int32, from 1 to 100. */
function weight(at: string, v: unknown): void {
  if (!isInteger(v) || v < 1 || v > 100) refuse(`${at} ${shown(v)} must be an integer from 1 to 100`);
}

/** A label key (a qualified name). */
function labelKey(at: string, key: string): void {
  const wrong = labelKeyProblem(key);
  if (wrong) refuse(`${at} ${shown(key)} ${wrong}`);
}

/** A label value, unless the API server allows any string there (a preferred node term's values). */
function labelValues(at: string, values: readonly string[]): void {
  for (const [i, v] of values.entries()) {
    const wrong = ruleProblem('labelValue', v);
    if (wrong) refuse(`${at}[${i}] ${shown(v)} ${wrong}`);
  }
}

/** The operator of a requirement and its values: In and NotIn with values, Exists and DoesNotExist without. */
function requirementOperator(at: string, operator: string, values: readonly string[], node: boolean): void {
  if (operator === 'In' || operator === 'NotIn') {
    if (values.length === 0) refuse(`${at}.values must not be empty with the operator ${operator}`);
  } else if (operator === 'Exists' || operator === 'DoesNotExist') {
    if (values.length > 0) refuse(`${at}.values must be empty with the operator ${operator}`);
  } else if (node && (operator === 'Gt' || operator === 'Lt')) {
    if (values.length !== 1) refuse(`${at}.values must hold exactly one value with the operator ${operator}`);
  } else {
    refuse(
      `${at}.operator ${shown(operator)} must be ${node ? 'In, NotIn, Exists, DoesNotExist, Gt or Lt' : 'In, NotIn, Exists or DoesNotExist'}`,
    );
  }
}

/** A node selector term (ValidateNodeSelectorTerm); `anyValue`: values need not be label values (preferred terms). */
function nodeSelectorTerm(at: string, term: Record<string, unknown>, anyValue: boolean): void {
  for (const [j, r] of structs(`${at}.matchExpressions`, term['matchExpressions']).entries()) {
    const here = `${at}.matchExpressions[${j}]`;
    const values = texts(`${here}.values`, r['values']);
    requirementOperator(here, text(`${here}.operator`, r['operator']), values, true);
    labelKey(`${here}.key`, text(`${here}.key`, r['key']));
    if (!anyValue) labelValues(`${here}.values`, values);
  }
  for (const [j, r] of structs(`${at}.matchFields`, term['matchFields']).entries()) {
    const here = `${at}.matchFields[${j}]`;
    const values = texts(`${here}.values`, r['values']);
    const operator = text(`${here}.operator`, r['operator']);
    if (operator !== 'In' && operator !== 'NotIn') refuse(`${here}.operator ${shown(operator)} must be In or NotIn`);
    if (values.length !== 1) refuse(`${here}.values must hold exactly one node name`);
    const key = text(`${here}.key`, r['key']);
    if (key !== 'metadata.name') refuse(`${here}.key ${shown(key)} must be metadata.name (the only node field)`);
    const wrong = ruleProblem('dns1123Subdomain', values[0]!);
    if (wrong) refuse(`${here}.values[0] ${shown(values[0])} ${wrong}`);
  }
}

/** A node affinity (validateNodeAffinity): a required selector has at least one term; preferred terms weighed. */
function nodeAffinity(at: string, v: Record<string, unknown>): void {
  const required = v['requiredDuringSchedulingIgnoredDuringExecution'];
  if (present(required)) {
    const here = `${at}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
    const terms = structs(here, struct(here, required)['nodeSelectorTerms']);
    if (terms.length === 0) refuse(`${here} must hold at least one node selector term`);
    for (const [i, term] of terms.entries()) nodeSelectorTerm(`${here}[${i}]`, term, false);
  }
  const preferred = `${at}.preferredDuringSchedulingIgnoredDuringExecution`;
  for (const [i, p] of structs(preferred, v['preferredDuringSchedulingIgnoredDuringExecution']).entries()) {
    weight(`${preferred}[${i}].weight`, p['weight']);
    nodeSelectorTerm(`${preferred}[${i}].preference`, struct(`${preferred}[${i}].preference`, p['preference']), true);
  }
}

/** A label selector's requirements (metav1 LabelSelectorRequirement), returned for the label keys' check. */
function labelSelector(at: string, selector: Record<string, unknown>): Array<{ key: string }> {
  for (const [key, value] of Object.entries(textMap(`${at}.matchLabels`, selector['matchLabels']))) {
    labelKey(`${at}.matchLabels key`, key);
    const wrong = ruleProblem('labelValue', value);
    if (wrong) refuse(`${at}.matchLabels.${key} ${shown(value)} ${wrong}`);
  }
  return structs(`${at}.matchExpressions`, selector['matchExpressions']).map((r, j) => {
    const here = `${at}.matchExpressions[${j}]`;
    const values = texts(`${here}.values`, r['values']);
    requirementOperator(here, text(`${here}.operator`, r['operator']), values, false);
    const key = text(`${here}.key`, r['key']);
    labelKey(`${here}.key`, key);
    labelValues(`${here}.values`, values);
    return { key };
  });
}

/**
 * A pod affinity term (validatePodAffinityTerm), after the API server has merged matchLabelKeys (In) and
 * mismatchLabelKeys (NotIn) into its labelSelector with the labels the pod carries (`podLabelKeys`): the selectors
 * valid, each namespace a DNS-1123 label, the label keys only with a labelSelector, a matchLabelKeys key neither in
 * the labelSelector as well nor in mismatchLabelKeys, and a topologyKey.
 */
function podAffinityTerm(
  at: string,
  term: Record<string, unknown>,
  podLabelKeys: ReadonlySet<string>,
  own: string | undefined,
): void {
  const selector = present(term['labelSelector']) ? struct(`${at}.labelSelector`, term['labelSelector']) : undefined;
  const expressions = selector ? labelSelector(`${at}.labelSelector`, selector) : [];
  if (present(term['namespaceSelector'])) {
    labelSelector(`${at}.namespaceSelector`, struct(`${at}.namespaceSelector`, term['namespaceSelector']));
    if (own !== undefined) refuse(`${at}.namespaceSelector ${reachesOut(own)}`);
  }
  for (const [i, ns] of texts(`${at}.namespaces`, term['namespaces']).entries()) {
    const wrong = ruleProblem('dns1123Label', ns);
    if (wrong) refuse(`${at}.namespaces[${i}] ${shown(ns)} ${wrong}`);
    if (own !== undefined && ns !== own) refuse(`${at}.namespaces[${i}] ${shown(ns)} ${reachesOut(own)}`);
  }
  const match = texts(`${at}.matchLabelKeys`, term['matchLabelKeys']);
  const mismatch = texts(`${at}.mismatchLabelKeys`, term['mismatchLabelKeys']);
  for (const [name, keys] of [
    ['matchLabelKeys', match],
    ['mismatchLabelKeys', mismatch],
  ] as const) {
    if (keys.length > 0 && !selector) refuse(`${at}.${name} must not be set without a labelSelector`);
    for (const [i, key] of keys.entries()) labelKey(`${at}.${name}[${i}]`, key);
  }
  if (selector) {
    // The merged selector: the term's own requirements, then one per label key the pod carries.
    const merged = [
      ...expressions,
      ...[...match, ...mismatch].filter((k) => podLabelKeys.has(k)).map((key) => ({ key })),
    ];
    const seen = new Set(Object.keys(struct('', selector['matchLabels'])));
    for (const { key } of merged) {
      if (match.includes(key) && seen.has(key))
        refuse(`${at}.matchLabelKeys ${shown(key)} must not be in the labelSelector as well`);
      seen.add(key);
    }
  }
  const both = match.find((k) => mismatch.includes(k));
  if (both !== undefined) refuse(`${at}.matchLabelKeys ${shown(both)} must not be in mismatchLabelKeys as well`);
  const topologyKey = text(`${at}.topologyKey`, term['topologyKey']);
  if (topologyKey === '') refuse(`${at}.topologyKey must not be empty`);
  labelKey(`${at}.topologyKey`, topologyKey);
}

/** A pod affinity or anti-affinity (validatePodAffinity): required terms, and preferred terms weighed. */
/**
 * Why a pod affinity term reaching another namespace is refused: the scheduler enforces a required anti-affinity both
 * ways, so a term of a pod metaops makes, reaching other namespaces, would keep their pods from being scheduled.
 */
function reachesOut(own: string): string {
  return `reaches beyond namespace ${own}: the pods metaops makes for a custom resource may name only their own namespace in a pod (anti-)affinity term (a required anti-affinity keeps the pods it selects, in every namespace it reaches, off the members' nodes)`;
}

function podAffinity(
  at: string,
  v: Record<string, unknown>,
  podLabelKeys: ReadonlySet<string>,
  own: string | undefined,
): void {
  const required = `${at}.requiredDuringSchedulingIgnoredDuringExecution`;
  for (const [i, term] of structs(required, v['requiredDuringSchedulingIgnoredDuringExecution']).entries())
    podAffinityTerm(`${required}[${i}]`, term, podLabelKeys, own);
  const preferred = `${at}.preferredDuringSchedulingIgnoredDuringExecution`;
  for (const [i, p] of structs(preferred, v['preferredDuringSchedulingIgnoredDuringExecution']).entries()) {
    weight(`${preferred}[${i}].weight`, p['weight']);
    const here = `${preferred}[${i}].podAffinityTerm`;
    podAffinityTerm(here, struct(here, p['podAffinityTerm']), podLabelKeys, own);
  }
}

/**
 * What is wrong with a pod's affinity (core/v1 Affinity), as the API server decodes and validates it
 * (validateAffinity), or undefined: a required node affinity with at least one term, each requirement's operator
 * one it knows with the values it takes, keys qualified names, required values label values, weights from 1 to 100,
 * each pod affinity term with a topologyKey and valid selectors. `podLabelKeys`: the label keys of the pods it goes
 * into (the API server merges a term's matchLabelKeys into its selector with them). `namespace`: the namespace of the
 * custom resource whose pods carry it: a pod (anti-)affinity term reaching any other (a namespaceSelector, another
 * name in `namespaces`) is refused.
 */
export function affinityProblem(
  field: string,
  affinity: unknown,
  podLabelKeys: Iterable<string> = [],
  namespace?: string,
): string | undefined {
  if (!present(affinity)) return undefined;
  const keys = new Set(podLabelKeys);
  return firstProblem(() => {
    const a = struct(field, affinity);
    if (present(a['nodeAffinity']))
      nodeAffinity(`${field}.nodeAffinity`, struct(`${field}.nodeAffinity`, a['nodeAffinity']));
    for (const kind of ['podAffinity', 'podAntiAffinity'])
      if (present(a[kind])) podAffinity(`${field}.${kind}`, struct(`${field}.${kind}`, a[kind]), keys, namespace);
  });
}

/** The access modes a claim may ask for. */
const ACCESS_MODES = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];

/** A claim's data source (TypedLocalObjectReference, or TypedObjectReference, with a namespace, for `ref`). */
function dataSource(at: string, v: unknown, ref: boolean): { apiGroup?: string; kind: string; name: string } {
  const s = struct(at, v);
  const apiGroup = present(s['apiGroup']) ? text(`${at}.apiGroup`, s['apiGroup']) : undefined;
  const kind = text(`${at}.kind`, s['kind']);
  const name = text(`${at}.name`, s['name']);
  if (ref) text(`${at}.namespace`, s['namespace']);
  return { ...(apiGroup === undefined ? {} : { apiGroup }), kind, name };
}

/** A data source the API server keeps: a name, a kind, and an API group unless it is a PersistentVolumeClaim. */
function dataSourceValid(at: string, s: { apiGroup?: string; kind: string; name: string }): void {
  if (s.name === '') refuse(`${at}.name must be set`);
  if (s.kind === '') refuse(`${at}.kind must be set`);
  if (!s.apiGroup && s.kind !== 'PersistentVolumeClaim')
    refuse(`${at}.kind ${shown(s.kind)} must be PersistentVolumeClaim without an apiGroup`);
  const wrong = s.apiGroup ? ruleProblem('dns1123Subdomain', s.apiGroup) : undefined;
  if (wrong) refuse(`${at}.apiGroup ${shown(s.apiGroup)} ${wrong}`);
}

/** The claim's data sources, as the API server keeps them (PrepareForCreate) and then validates them. */
function dataSources(field: string, spec: Record<string, unknown>): void {
  const source = present(spec['dataSource']) ? dataSource(`${field}.dataSource`, spec['dataSource'], false) : undefined;
  const ref = present(spec['dataSourceRef'])
    ? dataSource(`${field}.dataSourceRef`, spec['dataSourceRef'], true)
    : undefined;
  if (!ref) {
    // Without dataSourceRef, a dataSource other than a claim or a VolumeSnapshot is dropped, not refused.
    const kept =
      source &&
      ((source.kind === 'PersistentVolumeClaim' && !source.apiGroup) ||
        (source.kind === 'VolumeSnapshot' && source.apiGroup === 'snapshot.storage.k8s.io'));
    if (kept) dataSourceValid(`${field}.dataSource`, source);
    return;
  }
  dataSourceValid(`${field}.dataSourceRef`, ref);
  if (source) {
    dataSourceValid(`${field}.dataSource`, source);
    if (source.apiGroup !== ref.apiGroup || source.kind !== ref.kind || source.name !== ref.name)
      refuse(`${field}.dataSource must be the same as dataSourceRef`);
  }
}

/** A quantity as the API server decodes one (a string of its grammar, or a JSON number). */
function decodedQuantity(at: string, q: unknown): number | undefined {
  if (!present(q)) return 0;
  if (typeof q === 'number' && Number.isFinite(q)) return q;
  if (typeof q === 'string' && q.length <= 64 && ANY_QUANTITY.test(q)) return quantityValue(q) ?? -1;
  refuse(`${at} ${shown(q)} is not a quantity (such as 1Gi)`);
}

/**
 * What is wrong with a PersistentVolumeClaim's spec, as the API server decodes and validates it
 * (ValidatePersistentVolumeClaimSpec), or undefined: at least one access mode, each one it knows (ReadWriteOncePod
 * alone), a storage request above zero, every quantity one it parses, a class name and a volume attributes class
 * name that are DNS-1123 subdomains, a volume mode Filesystem or Block, a selector and data sources it accepts.
 */
export function claimSpecProblem(field: string, spec: unknown): string | undefined {
  return firstProblem(() => {
    const s = struct(field, spec);
    const modes = texts(`${field}.accessModes`, s['accessModes']);
    if (modes.length === 0)
      refuse(`${field}.accessModes must name at least one access mode (${ACCESS_MODES.join(', ')})`);
    for (const [i, mode] of modes.entries())
      if (!ACCESS_MODES.includes(mode))
        refuse(`${field}.accessModes[${i}] ${shown(mode)} must be one of ${ACCESS_MODES.join(', ')}`);
    if (modes.includes('ReadWriteOncePod') && modes.some((m) => m !== 'ReadWriteOncePod'))
      refuse(`${field}.accessModes: ReadWriteOncePod must be the only access mode`);
    if (present(s['selector'])) labelSelector(`${field}.selector`, struct(`${field}.selector`, s['selector']));
    const resources = struct(`${field}.resources`, s['resources']);
    for (const part of ['limits', 'requests'])
      for (const [name, q] of Object.entries(struct(`${field}.resources.${part}`, resources[part])))
        decodedQuantity(`${field}.resources.${part}.${name}`, q);
    const requests = struct(`${field}.resources.requests`, resources['requests']);
    if (!Object.hasOwn(requests, 'storage'))
      refuse(`${field}.resources.requests.storage must be set: the size of the volume (such as 1Gi)`);
    const storage = decodedQuantity(`${field}.resources.requests.storage`, requests['storage']);
    if (storage === undefined || storage <= 0)
      refuse(`${field}.resources.requests.storage ${shown(requests['storage'])} must be greater than zero`);
    for (const name of ['storageClassName', 'volumeAttributesClassName']) {
      const value = text(`${field}.${name}`, s[name]);
      const wrong = value ? ruleProblem('dns1123Subdomain', value) : undefined;
      if (wrong) refuse(`${field}.${name} ${shown(value)} ${wrong}`);
    }
    text(`${field}.volumeName`, s['volumeName']);
    if (present(s['volumeMode'])) {
      const mode = text(`${field}.volumeMode`, s['volumeMode']);
      if (mode !== 'Filesystem' && mode !== 'Block')
        refuse(`${field}.volumeMode ${shown(mode)} must be Filesystem or Block`);
    }
    dataSources(field, s);
  });
}
