// Kubernetes name rules that decide whether a parent's name can name its children.

const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Services must be named with a DNS-1035 label (63 characters, starting with a letter). A parent whose
 * children include a Service named after it inherits that rule; undefined when the name is usable.
 */
export function dns1035Problem(name: string, suffix = ''): string | undefined {
  const full = name + suffix;
  if (full.length > 63) {
    return `metadata.name "${name}" is too long: "${full}" must be at most 63 characters to name a Service`;
  }
  if (!DNS1035.test(full)) {
    return `metadata.name "${name}" cannot name a Service: it must start with a letter and contain only lower-case letters, digits and '-'`;
  }
  return undefined;
}

/**
 * Names in the order `[...names].sort()` gives (UTF-16 code units, not the locale's): a comparator for the lists a
 * status or a request holds in that order (failures, members, tags).
 */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `<base>-<ordinal>`: the names of members that are numbered (PodSet pods, etcd members). */
export function ordinalName(base: string, ordinal: number): string {
  return `${base}-${ordinal}`;
}

/** The ordinal of `<base>-<n>`, or undefined for any other name (leading zeros included). */
export function ordinalOf(base: string, name: string): number | undefined {
  // By character codes rather than a template, a slice and a regular expression: PodSet reads the ordinal of
  // every pod it observes on every sync.
  const start = base.length + 1;
  if (name.length <= start || name.charCodeAt(base.length) !== 45 /* - */ || !name.startsWith(base)) return undefined;
  if (name.charCodeAt(start) === 48 /* 0 */) return name.length === start + 1 ? 0 : undefined;
  let ordinal = 0;
  for (let i = start; i < name.length; i++) {
    const digit = name.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    ordinal = ordinal * 10 + digit;
  }
  // Exact as long as it is a safe integer; beyond that, read as JavaScript reads the digits.
  return Number.isSafeInteger(ordinal) ? ordinal : Number(name.slice(start));
}

/**
 * The server's one setting for the Kubernetes cluster's DNS domain: what every name a child dials ends in
 * (`<name>.<namespace>.svc.<domain>`). Read by the etcd family (which names it) and the MySQL hook.
 */
export const CLUSTER_DOMAIN_ENV = 'METAOPS_ETCD_CLUSTER_DOMAIN';
export const CLUSTER_DOMAIN_DEFAULT = 'cluster.local';

/** A domain as written in a spec or a setting (".cluster.local", "cluster.local.") in its plain form. */
export function plainDomain(domain: string): string {
  return domain.trim().replace(/^\./, '').replace(/\.$/, '').toLowerCase();
}

/** A DNS domain as the settings take it: lower-case labels, no leading or trailing dot, at most 200 characters. */
const DOMAIN = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$/;
export function isDnsDomain(domain: string): boolean {
  return domain.length <= 200 && DOMAIN.test(domain);
}

/** What is wrong with a cluster domain setting's value, or undefined (the server refuses to start on one). */
export function clusterDomainProblem(domain: string): string | undefined {
  return isDnsDomain(domain)
    ? undefined
    : `${CLUSTER_DOMAIN_ENV} and METAOPS_ETCD_CLUSTER_DOMAINS take DNS domains such as cluster.local: ${JSON.stringify(domain.slice(0, 80))} is not one`;
}

/** What is wrong with the server's cluster domain setting: the same words whichever operator reads it. */
export function clusterDomainProblems(env: NodeJS.ProcessEnv): string[] {
  const problem = clusterDomainProblem(clusterDomainOf(env));
  return problem ? [problem] : [];
}

/** The server's cluster domain, from its environment (CLUSTER_DOMAIN_ENV), in its plain form. */
export function clusterDomainOf(env: NodeJS.ProcessEnv): string {
  return plainDomain(env[CLUSTER_DOMAIN_ENV] ?? '') || CLUSTER_DOMAIN_DEFAULT;
}

/**
 * A Service's (or a Service's pod's) name fully qualified in the cluster domain: `<name>.<namespace>.svc.<domain>`.
 * Every name a child dials inside the cluster is one: a pod resolves with `ndots:5`, so a relative name such as
 * `<a>.<b>` or `<a>.<b>.<ns>.svc` is first tried under the search domains, as `<a>.<b>.svc.<domain>` (Service `a`
 * of namespace `b`) or `<a>.<b>.<ns>.svc.svc.<domain>` (namespace `svc`): names a tenant owning that namespace can
 * answer.
 */
export function serviceHost(name: string, namespace: string, domain: string): string {
  return `${name}.${namespace}.svc.${domain}`;
}

/**
 * The DNS settings of every pod metaops makes that dials a name (etcd members and their restore steps, a restore's
 * snapshot check, a backup Job): `ndots:1`, so that a name with a dot is looked up as it is first. With Kubernetes'
 * default `ndots:5`, `s3.us-east-1.amazonaws.com`, `sts.amazonaws.com` or a custom endpoint is first tried under the
 * pod's search domains: `sts.amazonaws.com.svc.<domain>` is pod `sts` of headless Service `amazonaws` in namespace
 * `com`, whose tenant then answers for AWS. The hook server's own pod has the same setting (manifests/deploy). A
 * relative in-cluster name (`<pod>.<cluster>.<ns>.svc` of a cluster made before names were qualified) still resolves:
 * glibc and Go try the search domains after the name as it is (members' check-dns looks them up itself).
 * Only pods made from now on carry it: a pod's DNS settings cannot change, and a running member is kept as it is.
 */
export function podDnsConfig(): { options: Array<{ name: string; value: string }> } {
  return { options: [{ name: 'ndots', value: '1' }] };
}
