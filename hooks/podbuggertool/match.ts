// Pure PodBuggerTool decisions: which tools match a pod, the container each one adds, its name, the allowlist.
import { createHash } from 'node:crypto';
import { matchesSelector } from '../../lib/labels.js';
import type { KubeObject, LabelSelector } from '../../lib/metacontroller.js';
import { specParser } from '../../lib/spec.js';
import { PodBuggerToolSpec, type PodBuggerToolSpec as Spec } from './schema.js';

export const ANNOTATION = 'debug.metaops.dev/injections';

export const parser = specParser(PodBuggerToolSpec, (spec) =>
  spec.selector || spec.label ? undefined : 'spec.selector or spec.label is required: a tool without one would debug every pod',
);

/** The selector of a tool: `selector`, and the `label: key=value` shorthand, both required to hold. */
export function selectorOf(spec: Spec): LabelSelector {
  const selector: LabelSelector = {
    ...(spec.selector?.matchLabels ? { matchLabels: { ...spec.selector.matchLabels } } : {}),
    ...(spec.selector?.matchExpressions ? { matchExpressions: [...spec.selector.matchExpressions] } : {}),
  };
  if (spec.label) {
    const [key, value] = spec.label.split('=', 2) as [string, string | undefined];
    if (value === undefined) selector.matchExpressions = [...(selector.matchExpressions ?? []), { key, operator: 'Exists' }];
    else selector.matchLabels = { ...(selector.matchLabels ?? {}), [key]: value };
  }
  return selector;
}

/**
 * The ephemeral container name of a tool: `debug-<tool>`, a valid DNS-1123 label (the seed's controller named
 * containers after images, and `/` or `:` made them invalid). Long names keep a hash of the full name.
 */
export function containerName(tool: string): string {
  const base = `debug-${tool}`.toLowerCase().replace(/[^a-z0-9-]/g, '-').replace(/-+/g, '-').replace(/-$/, '');
  if (base.length <= 63) return base;
  const hash = createHash('sha256').update(tool).digest('hex').slice(0, 8);
  return `${base.slice(0, 54).replace(/-$/, '')}-${hash}`;
}

const PROFILES: Record<Spec['securityProfile'], Record<string, unknown> | undefined> = {
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
    image: spec.image,
    imagePullPolicy: 'IfNotPresent',
    stdin: true,
    tty: true,
    terminationMessagePolicy: 'File',
  };
  if (spec.command) c['command'] = spec.command;
  if (spec.args) c['args'] = spec.args;
  if (spec.env) c['env'] = spec.env;
  const containers = ((pod['spec'] as { containers?: Array<{ name?: string }> } | undefined)?.containers ?? []).map((x) => x.name);
  if (spec.targetContainerName && containers.includes(spec.targetContainerName)) c['targetContainerName'] = spec.targetContainerName;
  const sc = PROFILES[spec.securityProfile];
  if (sc) c['securityContext'] = structuredClone(sc);
  return c;
}

/** The names of the ephemeral containers a pod has. */
export function ephemeralNames(pod: KubeObject): Set<string> {
  const list = (pod['spec'] as { ephemeralContainers?: Array<{ name?: string }> } | undefined)?.ephemeralContainers ?? [];
  return new Set(list.map((c) => c.name ?? ''));
}

/**
 * The server-side allowlist of debug images (METAOPS_DEBUG_IMAGE_ALLOWLIST, comma separated): an exact image,
 * or a prefix ending in `*`. Undefined or empty: every image is allowed.
 */
export function imageAllowed(image: string, allowlist: string[] | undefined): boolean {
  if (!allowlist || allowlist.length === 0) return true;
  return allowlist.some((entry) => (entry.endsWith('*') ? image.startsWith(entry.slice(0, -1)) : image === entry));
}

export function parseAllowlist(value: string | undefined): string[] | undefined {
  const list = (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return list.length ? list : undefined;
}

export interface Injection {
  container: string;
  image: string;
  at: string;
}

/** The injections recorded on a pod (annotation), tolerant of anything malformed. */
export function recorded(pod: KubeObject): Record<string, Injection> {
  const text = pod.metadata.annotations?.[ANNOTATION];
  if (!text) return {};
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, Injection>) : {};
  } catch {
    return {};
  }
}

export function matches(spec: Spec, pod: KubeObject): boolean {
  return matchesSelector(pod.metadata.labels, selectorOf(spec));
}
