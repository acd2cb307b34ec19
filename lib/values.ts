// What the API server (and the kubelet) accept in the fields a hook copies into its children: names, label values,
// image references, quantities. A hook that answers a child the API server refuses sees nothing come of it:
// Metacontroller logs the refusal, and a rolling strategy may already have deleted what the child replaces. So each
// kind checks its parent's name and every value it copies before it answers, and a value that cannot be carried is
// `InvalidSpec` naming the field (lib/operator.ts), every child kept as it is.
//
// The rules are Kubernetes' own (k8s.io/apimachinery/pkg/util/validation, the container image check of
// pkg/apis/core/validation, the distribution reference grammar the kubelet parses images with), each written
// here once.

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

// The distribution reference grammar (github.com/distribution/reference, regexp.go), as the kubelet parses an image
// (an image it cannot parse is InvalidImageName: the pod never runs).
const ALNUM = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|[-]+)';
const PATH_COMPONENT = `${ALNUM}(?:${SEPARATOR}${ALNUM})*`;
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const HOST = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])`;
const DOMAIN = `${HOST}(?::[0-9]+)?`;
const NAME = new RegExp(`^(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*$`);
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/;
/**
 * The digest algorithms the kubelet's parser knows (github.com/opencontainers/go-digest, as the reference parser
 * validates a digest), each with the exact number of lower-case hex characters it takes.
 */
const DIGEST_HEX: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };
/** A whole reference of 64 lower-case hex characters: an image ID, which the parser refuses as a repository name. */
const IMAGE_ID = /^[a-f0-9]{64}$/;
/** The longest repository name the grammar accepts. */
const MAX_NAME = 255;

/** What is wrong with a container image reference (undefined: the kubelet can pull it by that name). */
export function imageProblem(image: string): string | undefined {
  if (image.length === 0) return 'must not be empty';
  if (image.trim() !== image) return 'must not have leading or trailing whitespace';
  if (IMAGE_ID.test(image)) return 'is 64 hex characters, an image ID, which the kubelet refuses as a repository name';
  let rest = image;
  const at = rest.indexOf('@');
  if (at >= 0) {
    const digest = rest.slice(at + 1);
    if (!DIGEST.test(digest)) return 'has a digest that is not <algorithm>:<hex>';
    const [algorithm, hex] = digest.split(':') as [string, string];
    const length = Object.hasOwn(DIGEST_HEX, algorithm) ? DIGEST_HEX[algorithm] : undefined;
    if (length === undefined) return `has a digest algorithm "${algorithm}" that is not sha256, sha384 or sha512`;
    if (hex.length !== length || !/^[0-9a-f]+$/.test(hex))
      return `has a ${algorithm} digest that is not exactly ${length} lower-case hex characters`;
    rest = rest.slice(0, at);
  }
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    if (!TAG.test(rest.slice(colon + 1)))
      return "has a tag that is not 1 to 128 letters, digits, '_', '.' and '-' (not starting with '.' or '-')";
    rest = rest.slice(0, colon);
  }
  if (rest.length > MAX_NAME) return `has a repository name longer than ${MAX_NAME} characters`;
  if (!NAME.test(rest))
    return "is not an image reference: [registry[:port]/]path[:tag][@digest], the path in lower-case letters, digits and the separators '.', '_', '__' and '-'";
  return undefined;
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

/**
 * What is wrong with a container's resources (requests and limits: a quantity per resource, as a string or a
 * number), or undefined. A quantity the API server cannot parse, or a negative one, refuses the whole pod.
 */
export function resourcesProblem(field: string, resources: unknown): string | undefined {
  if (resources === undefined) return undefined;
  for (const part of ['requests', 'limits']) {
    const map = (resources as Record<string, unknown> | null)?.[part];
    if (map === undefined) continue;
    if (!map || typeof map !== 'object' || Array.isArray(map)) return `${field}.${part} must be a map of quantities`;
    for (const [name, q] of Object.entries(map as Record<string, unknown>)) {
      const ok =
        (typeof q === 'number' && Number.isFinite(q) && q >= 0) ||
        (typeof q === 'string' && q.length <= 64 && RESOURCE_QUANTITY.test(q));
      if (!ok) return `${field}.${part}.${name} ${JSON.stringify(q)} is not a quantity (such as 500m, 1, 256Mi, 1Gi)`;
    }
  }
  return undefined;
}
