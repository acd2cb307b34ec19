// An author refused on the namespace as a whole may still be allowed on some of the tool's pods by name (RBAC's
// resourceNames: the right of `kubectl debug web-1` alone), which a review that names no pod does not see. The tool's
// status then asks about the pods it selects by name, a bounded number at each sync (MAX_PROBED_PODS), in passes
// over them all: each sync goes on where the previous one stopped (the API server's continue token), until a pod the
// author may patch is found (AuthorAllowedOnSomePods: the injector asks about each pod by name before it adds
// anything) or every pod was asked about (AuthorNotAllowed). Where a pass stands is remembered by the hook server
// (ProbeMemory), not written in the status: a status changed at each step would be rewritten every sync, and every
// write of a tool wakes every pod of its namespace. A pod found is asked about again first at the next sync, so that
// a tool allowed on some pods costs one review (and one read) a sync at rest.
import {
  KubeError,
  type KubeApi,
  type ListOptions,
  type ListPage,
  MAX_OBJECT_READ_BYTES,
  type ParentObject,
} from '../../lib/index.js';
import { MAX_PROBED_PODS, OutOfTime, type AuthorCheck } from './author.js';
import { countedPod, selectorOf, selectorText } from './match.js';
import type { PodBuggerToolSpec } from './schema.js';

/** Where the pass over a tool's pods stands, as this hook server remembers it. */
export interface Probe {
  /** The continue token of the pass's next page (none: the next page is the first). */
  next?: string;
  /** The pod the author was last found allowed on: asked about first at the next sync. */
  found?: string;
  /** Passes over every pod, none allowed, since this server began remembering this tool's generation. */
  passes: number;
}

/** The tools whose passes a hook server remembers, over every namespace. */
export const MAX_PROBES = 4096;
/**
 * The tools whose passes a hook server remembers in one namespace: the tools of a namespace that has more forget
 * their own passes first (the least recently used), never those of another namespace. One tenant's thousands of
 * tools cannot make another's pass begin again at every sync (it would never get past its first page).
 */
export const MAX_PROBES_PER_NAMESPACE = 64;
/** A continue token longer than this is not kept (the API server's are far shorter): that pass begins again. */
export const MAX_PROBE_TOKEN_CHARS = 4096;

/**
 * The passes of the tools whose authors are allowed by pod name at most, one per hook server (per Kubernetes
 * client), bounded per namespace and in all (the least recently used forgotten first). Lost on a restart: the pass
 * begins again from the first page, and the status keeps what it said meanwhile.
 */
export class ProbeMemory {
  readonly probes = new Map<string, { namespace: string; probe: Probe }>();
  /** The keys of each namespace, least recently used first. */
  private readonly namespaces = new Map<string, Set<string>>();

  take(key: string): Probe {
    const entry = this.probes.get(key);
    return entry ? { ...entry.probe } : { passes: 0 };
  }

  /**
   * True when the pass of `key` may have been forgotten: none is remembered for it while its namespace holds as many
   * as it may (MAX_PROBES_PER_NAMESPACE), or the memory as many as it holds in all. Such a pass is not taken for a
   * first one (asked for again sooner): forgetting never makes more work.
   */
  crowded(namespace: string, key: string): boolean {
    if (this.probes.has(key)) return false;
    return (this.namespaces.get(namespace)?.size ?? 0) >= MAX_PROBES_PER_NAMESPACE || this.probes.size >= MAX_PROBES;
  }

  keep(namespace: string, key: string, probe: Probe): void {
    this.forget(key);
    const own = this.namespaces.get(namespace);
    if (own && own.size >= MAX_PROBES_PER_NAMESPACE) this.forget(own.values().next().value!);
    if (this.probes.size >= MAX_PROBES) this.forget(this.probes.keys().next().value!);
    const kept = { ...probe };
    if (kept.next !== undefined && kept.next.length > MAX_PROBE_TOKEN_CHARS) delete kept.next;
    this.probes.set(key, { namespace, probe: kept });
    const keys = this.namespaces.get(namespace) ?? new Set<string>();
    keys.add(key);
    this.namespaces.set(namespace, keys);
  }

  private forget(key: string): void {
    const entry = this.probes.get(key);
    if (!entry) return;
    this.probes.delete(key);
    const keys = this.namespaces.get(entry.namespace)!;
    keys.delete(key);
    if (keys.size === 0) this.namespaces.delete(entry.namespace);
  }
}

const memories = new WeakMap<object, ProbeMemory>();

/** The probe memory of a hook server: one per Kubernetes client (the server's one, or a test's). */
export function probeMemoryFor(kube: object): ProbeMemory {
  let memory = memories.get(kube);
  if (!memory) memories.set(kube, (memory = new ProbeMemory()));
  return memory;
}

/**
 * What a sync's probe found: a pod the author may patch (`found`); every pod asked about and none allowed
 * (`none`); or not yet known (`unknown`: the pass goes on at the next sync, or could not be asked at this one).
 * `first`: no pass over the tool's pods has ended yet on this server (the next sync is asked for sooner).
 */
export type ProbeResult = { found: true } | { found: false; none: boolean; first: boolean };

/** A page of the pass: names and labels only (a PartialObjectMetadataList), a one-pod page read up to any pod. */
function pageOptions(labelSelector: string, limit: number, next: string | undefined): ListOptions {
  return {
    labelSelector,
    limit,
    metadataOnly: true,
    ...(next ? { continue: next } : {}),
    ...(limit === 1 ? { maxBytes: MAX_OBJECT_READ_BYTES } : {}),
  };
}

function expired(err: unknown): boolean {
  return err instanceof KubeError && (err.status === 410 || err.reason === 'Expired');
}

/** What one sync's probe works with. */
export interface ProbeCall {
  kube: KubeApi;
  check: AuthorCheck;
  tool: ParentObject;
  spec: PodBuggerToolSpec;
  /** True once no call may start any more. */
  over: () => boolean;
  memory: ProbeMemory;
  /**
   * Takes one step from the namespace's share of passes (sync.ts probePagesFor), or false when none is left: the
   * step is not taken, and the pass stays where it stood.
   */
  share: () => boolean;
}

/**
 * The pass's next page, of at most `limit` pods: asked again at half the size when too large to read, and from the
 * first page (`probe.next` dropped) when the API server no longer serves its token (410: compaction), once.
 */
async function nextPage(call: ProbeCall, probe: Probe, limit: number): Promise<{ page: ListPage; limit: number }> {
  const namespace = call.tool.metadata.namespace ?? 'default';
  const labelSelector = selectorText(selectorOf(call.spec));
  let restarted = false;
  for (;;) {
    if (call.over()) throw new OutOfTime();
    try {
      return {
        page: await call.kube.list!('v1', 'pods', namespace, pageOptions(labelSelector, limit, probe.next)),
        limit,
      };
    } catch (err) {
      if ((err as Error | undefined)?.name === 'AnswerTooLargeError' && limit > 1)
        limit = Math.max(1, Math.floor(limit / 2));
      else if (probe.next !== undefined && expired(err) && !restarted) {
        delete probe.next;
        restarted = true;
      } else throw err;
    }
  }
}

/**
 * The pod found at an earlier sync, when it is still one the tool selects and one its author may patch (a grant may
 * go): one read and one review. Not known (an error, the budget spent): thrown, and the pod kept for the next sync.
 */
async function stillFound(call: ProbeCall, found: string, ask: (pod: string) => Promise<boolean>): Promise<boolean> {
  const namespace = call.tool.metadata.namespace ?? 'default';
  if (call.over()) throw new OutOfTime();
  const pod = await call.kube.get('v1', 'pods', namespace, found, { maxBytes: MAX_OBJECT_READ_BYTES });
  return pod !== undefined && countedPod(call.spec, namespace, pod) && (await ask(found));
}

/**
 * One sync's step of the pass over the pods the tool selects, asking whether its author may patch each by name: at
 * most MAX_PROBED_PODS reviews by name, one page of at most as many pods (nextPage), and one read of the pod found at
 * an earlier sync; and only within the namespace's share of steps (ProbeCall.share), whatever its number of tools. Nothing here is thrown: what keeps a question from being answered (an error, the budget spent) is
 * not known, and the pass goes on from where it stood at the next sync.
 */
export async function probePods(call: ProbeCall): Promise<ProbeResult> {
  const { tool, spec, memory } = call;
  const namespace = tool.metadata.namespace ?? 'default';
  const key = JSON.stringify([namespace, tool.metadata.name, tool.metadata.uid ?? '', tool.metadata.generation ?? 0]);
  const probe = memory.take(key);
  // Not known whether this is the tool's first pass (it may have been forgotten): not hurried (ProbeMemory.crowded).
  const first = !memory.crowded(namespace, key);
  // One step of the namespace's share, or none this sync: nothing asked, the pass where it stood, not hurried.
  if (!call.share()) return { found: false, none: false, first: false };
  const asked = new Set<string>();
  const ask = async (pod: string): Promise<boolean> => {
    asked.add(pod);
    return call.check.allowedOnPod(tool, pod, call.over);
  };
  const found = (pod: string): ProbeResult => {
    // The next pass (once this pod no longer does) begins from the first page.
    probe.found = pod;
    delete probe.next;
    memory.keep(namespace, key, probe);
    return { found: true };
  };
  try {
    if (probe.found !== undefined) {
      if (await stillFound(call, probe.found, ask)) return found(probe.found);
      delete probe.found;
    }
    if (!call.kube.list) throw new Error('no list');
    const { page, limit } = await nextPage(call, probe, MAX_PROBED_PODS - asked.size);
    // The API server answers at most `limit` pods: more are not asked about (the bound holds whatever it answers).
    for (const pod of page.items.slice(0, limit)) {
      const name = pod.metadata.name;
      if (name && !asked.has(name) && countedPod(spec, namespace, pod) && (await ask(name))) return found(name);
    }
    if (page.continue) probe.next = page.continue;
    else {
      // Every pod asked about, none allowed: the next sync begins another pass.
      delete probe.next;
      probe.passes += 1;
      memory.keep(namespace, key, probe);
      return { found: false, none: true, first: false };
    }
  } catch {
    // Not known: kept as it stood.
  }
  memory.keep(namespace, key, probe);
  return { found: false, none: false, first: first && probe.passes === 0 };
}
