// The answer budget: how large the answer a spec asks for may be. Every child a hook answers is serialised, sent to
// Metacontroller, parsed and applied by it, and comes back in the next request as an observed child; a spec that
// repeats a large field in every child multiplies it (a 1.45 MiB EtcdCluster of 9 members once asked for a 13.7 MB
// answer). Every operator states how large its answer is for a spec (an upper bound, from the spec alone, before
// anything is built); the framework refuses a spec over the budget as InvalidSpec, every observed child kept
// (lib/operator.ts). The CRDs bound every field copied into children (lib/schemas.ts), so that the largest spec a CRD
// accepts fits in its kind's budget (test/lib/budget.test.ts checks both, kind by kind).
import { DEFAULT_BODY_LIMIT } from './config.js';
import { goJsonBytes, goJsonStringOfTextBytes, goJsonTextBytes } from './go-json.js';
import type { ParentObject } from './metacontroller.js';

/** The most an answer's children may weigh as JSON, unless an operator states less. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** What a spec asks the hook to answer: an upper bound of its children as JSON, and what makes them. */
export interface AnswerEstimate {
  bytes: number;
  /** The children, said for the message that refuses them: `spec.size 9 members of ~40 KiB each`. */
  what: string;
}

/** An operator's answer budget: its estimate, what a user can do about a spec over it, and the limit. */
export interface AnswerBudget<Spec> {
  /** An upper bound of the serialised children a valid spec asks for (it may count more, never less). */
  estimate(spec: Spec, parent: ParentObject): AnswerEstimate;
  /** What to change when a spec is over the budget: `shorten spec.command or lower spec.size`. */
  advice: string;
  /** The limit, when less than MAX_ANSWER_BYTES. */
  maxBytes?: number;
  /**
   * An upper bound of each sync request about a parent of this spec once every child it answers exists (the parent,
   * its children as the API server stores them and Metacontroller sends them back, appliedTwiceBytes, and the related
   * objects customize asks for because of the spec), for kinds whose children are many: refused past
   * MAX_REQUEST_BYTES (InvalidSpec, every child kept). Without the bound such a spec is answered, its children are
   * made, and from then on every sync of it is larger than the hook server's body limit and refused (413): no status
   * is written again, no child lost is made again, nothing says why.
   */
  request?(spec: Spec, parent: ParentObject): AnswerEstimate;
}

/**
 * The most a sync request about a parent may be, as a spec's request estimate counts it: the hook server's default
 * body limit (METAOPS_BODY_LIMIT may be raised, never lowered below what the accepted specs need; docs/operating.md).
 */
export const MAX_REQUEST_BYTES = DEFAULT_BODY_LIMIT;

/**
 * What an admission webhook may add to each pod as the API server stores it, counted for pods a hook has not measured
 * (PodSet's pods not yet seen, the pods a Memcached's Deployment makes): Istio's sidecar injector adds the istio-proxy
 * container, istio-init, eight volumes, labels and annotations, and the kubelet two more container statuses, ~12 KB a
 * pod (test/fixtures/sidecars.ts); Linkerd's and Vault's agent likewise.
 */
export const INJECTED_POD_BYTES = 16 * 1024;

/**
 * The most the API server lets an object's annotations be: their keys and values together (`metadata.annotations:
 * Too long: must have at most 262144 bytes`). Metacontroller's last-applied copy of a child is one of them: a child
 * whose copy is over it cannot be created at all.
 */
export const MAX_ANNOTATIONS_BYTES = 256 * 1024;

/** The annotation in which Metacontroller keeps the child it last applied, as JSON (docs/metacontroller.md). */
const LAST_APPLIED_KEY = 'metacontroller.k8s.io/last-applied-configuration';

/**
 * The bytes the annotations of a child answered as `value` take as the API server counts them: Metacontroller's
 * last-applied copy of it (its JSON as Go writes it, lib/go-json.ts) and its key.
 */
export function lastAppliedBytes(value: unknown): number {
  return LAST_APPLIED_KEY.length + goJsonBytes(value);
}

/**
 * Why a child of `children` could not be created or updated, or undefined when none: its own annotations and
 * Metacontroller's last-applied copy of it together over MAX_ANNOTATIONS_BYTES (the API server refuses the object, and
 * Metacontroller says so only in its own log). Measured on the answer built, whatever the kind's spec checks said.
 * `answerBytes`, the children's JSON bytes as measured (answerSizeProblem): a child's annotations and its copy are at
 * most seven times its JSON, so below a seventh of the limit no child is measured; `texts`, each child's JSON as
 * answerSizeProblem wrote it (in the children's order), so that no child is written again.
 */
export function lastAppliedProblem(
  children: ReadonlyArray<{ kind?: string; metadata?: { name?: string; annotations?: unknown } }>,
  answerBytes: number,
  texts?: ReadonlyArray<string>,
): string | undefined {
  if (7 * answerBytes + LAST_APPLIED_KEY.length <= MAX_ANNOTATIONS_BYTES) return undefined;
  for (const [i, child] of children.entries()) {
    const text = texts?.[i] ?? JSON.stringify(child) ?? '';
    if (7 * Buffer.byteLength(text) + LAST_APPLIED_KEY.length <= MAX_ANNOTATIONS_BYTES) continue;
    const own = child.metadata?.annotations;
    let bytes = LAST_APPLIED_KEY.length + goJsonTextBytes(text);
    if (own && typeof own === 'object')
      for (const [k, v] of Object.entries(own)) bytes += Buffer.byteLength(k) + Buffer.byteLength(String(v));
    if (bytes > MAX_ANNOTATIONS_BYTES)
      return `${child.kind ?? 'a child'} ${child.metadata?.name ?? ''} would carry ${kib(bytes)} of annotations with the copy of it Metacontroller keeps in one (the child as JSON: \`<\`, \`>\` and \`&\` six bytes each), more than the ${kib(MAX_ANNOTATIONS_BYTES)} the API server allows: it could not be created or updated, so the status stored and every child are kept as they are`;
  }
  return undefined;
}

/**
 * The bytes a child answered as `value` takes in each sync request once the API server stores it, less what the API
 * server and the kubelet add: its fields twice, once in the object and once more in Metacontroller's last-applied
 * annotation (the applied child as JSON, a string in the object: each `"` and `\` in it escaped again), both as Go
 * writes them (lib/go-json.ts), with the annotation's key.
 */
export function appliedTwiceBytes(value: unknown): number {
  const text = JSON.stringify(value) ?? '';
  const bytes = goJsonTextBytes(text);
  // The annotation's bytes counted, not written (perf: lib/go-json.ts goJsonStringOfTextBytes).
  return bytes + goJsonStringOfTextBytes(text, bytes) + LAST_APPLIED_KEY.length + 32;
}

/**
 * What a sync request carries of its parent beyond the spec and the status, counted whatever they hold: its
 * metadata (annotations, at most 256 KiB as the API server counts them, kubectl's last-applied copy of the spec among
 * them; labels; managedFields, which the hook server cuts only after the body limit took them) and the request's
 * envelope (the controller, the keys).
 */
export const PARENT_METADATA_BYTES = 320 * 1024;

/**
 * The bytes of the parent in a sync request with this spec and a status of at most `statusBytes`: the spec twice
 * (in the object, and kubectl's last-applied copy escaped in an annotation) and its metadata (PARENT_METADATA_BYTES).
 */
export function parentRequestBytes(spec: unknown, statusBytes: number): number {
  return appliedTwiceBytes(spec) + statusBytes + PARENT_METADATA_BYTES;
}

/**
 * The most a status may weigh as JSON. A status is written to the API server with its object (which stores at most
 * ~1.5 MiB) and comes back in every request; what a hook reports is bounded where it reads it (an etcd member list,
 * hooks/etcdcommon/etcd.ts), and this is the framework's bound behind those: a status over it is not answered
 * (lib/operator.ts statusBudgetHold: the status stored is kept, every observed child kept, a condition says why).
 */
export const MAX_STATUS_BYTES = 256 * 1024;

/** Why a status is over MAX_STATUS_BYTES, or undefined when it fits. */
export function statusBudgetProblem(kind: string, status: unknown): string | undefined {
  const bytes = jsonBytes(status);
  if (bytes <= MAX_STATUS_BYTES) return undefined;
  return `the status this sync made is ${kib(bytes)}, more than the ${kib(MAX_STATUS_BYTES)} a ${kind} status may have: the status stored and every child are kept as they are`;
}

/** `n` bytes in MiB, as messages say it. */
export function mib(n: number): string {
  return `${(n / 1048576).toFixed(1)} MiB`;
}

/** `n` bytes in whole KiB, rounded up. */
export function kib(n: number): string {
  return `${Math.ceil(n / 1024)} KiB`;
}

/** The size of a value as JSON, in UTF-8 bytes (0 for undefined). */
export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : Buffer.byteLength(text);
}

/** Why a spec's answer is over its kind's budget, or undefined when it fits. */
export function answerBudgetProblem<Spec>(
  kind: string,
  budget: AnswerBudget<Spec>,
  spec: Spec,
  parent: ParentObject,
): string | undefined {
  const max = Math.min(budget.maxBytes ?? MAX_ANSWER_BYTES, MAX_ANSWER_BYTES);
  const { bytes, what } = budget.estimate(spec, parent);
  if (bytes > max)
    return `${what} make an answer of ~${mib(bytes)}, more than the ${mib(max)} a ${kind} may have: ${budget.advice}`;
  const request = budget.request?.(spec, parent);
  if (!request || request.bytes <= MAX_REQUEST_BYTES) return undefined;
  return `${request.what} make sync requests of ~${mib(request.bytes)} once they exist (each comes back as the API server stores it, with Metacontroller's last-applied copy of it), more than the ${mib(MAX_REQUEST_BYTES)} a request to the hooks may have: ${budget.advice}`;
}

/**
 * The parent's name and namespace as they recur in one child (its name, labels, selectors, references), counted
 * generously: 16 times each.
 */
export function namesBytes(parent: ParentObject): number {
  return 16 * (Buffer.byteLength(parent.metadata.name) + Buffer.byteLength(parent.metadata.namespace ?? ''));
}

/**
 * Why the children an answer was built with are over the kind's budget, or undefined when they fit: measured on the
 * answer itself, whatever the estimate said (observed children a tenant labelled may add to what a spec asks for).
 * Children too large to be written as one string are over it.
 */
export function answerSizeProblem(
  kind: string,
  children: unknown,
  maxBytes?: number,
  measured?: (bytes: number, texts?: readonly string[]) => void,
): string | undefined {
  const max = Math.min(maxBytes ?? MAX_ANSWER_BYTES, MAX_ANSWER_BYTES);
  let bytes: number;
  let texts: string[] | undefined;
  try {
    // A list of children is written a child at a time and counted as JSON writes the list (`[`, commas, `]`, `null`
    // for what JSON writes so), each child's text handed on (`measured`) for lastAppliedProblem. perf:
    // docs/performance.md: an answer of 100 pods was written whole here and each pod again there (~67 KB twice):
    // 117 -> 70 us for both checks on the 100-pod PodSet answer, in process.
    if (Array.isArray(children)) {
      texts = children.map((child: unknown) => JSON.stringify(child) ?? 'null');
      bytes = Math.max(1, texts.length) + 1;
      for (const text of texts) bytes += Buffer.byteLength(text);
    } else bytes = jsonBytes(children);
  } catch {
    bytes = Number.POSITIVE_INFINITY;
    texts = undefined;
  }
  measured?.(bytes, texts);
  if (bytes <= max) return undefined;
  const size = Number.isFinite(bytes) ? `~${mib(bytes)}` : 'more than a string can hold';
  return `the children this sync made are ${size}, more than the ${mib(max)} a ${kind} answer may have: the status stored and every child are kept as they are`;
}
