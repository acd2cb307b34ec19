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

/** `<base>-<ordinal>`: the names of members that are numbered (PodSet pods, etcd members). */
export function ordinalName(base: string, ordinal: number): string {
  return `${base}-${ordinal}`;
}

/** The ordinal of `<base>-<n>`, or undefined for any other name (leading zeros included). */
export function ordinalOf(base: string, name: string): number | undefined {
  const prefix = `${base}-`;
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  return /^(0|[1-9][0-9]*)$/.test(rest) ? Number(rest) : undefined;
}
