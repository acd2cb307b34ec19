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
