// The answer budget: how large the answer a spec asks for may be. Every child a hook answers is serialised, sent to
// Metacontroller, parsed and applied by it, and comes back in the next request as an observed child; a spec that
// repeats a large field in every child multiplies it (a 1.45 MiB EtcdCluster of 9 members once asked for a 13.7 MB
// answer). Every operator states how large its answer is for a spec (an upper bound, from the spec alone, before
// anything is built); the framework refuses a spec over the budget as InvalidSpec, every observed child kept
// (lib/operator.ts). The CRDs bound every field copied into children (lib/schemas.ts), so that the largest spec a CRD
// accepts fits in its kind's budget (test/lib/budget.test.ts checks both, kind by kind).
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
  if (bytes <= max) return undefined;
  return `${what} make an answer of ~${mib(bytes)}, more than the ${mib(max)} a ${kind} may have: ${budget.advice}`;
}

/**
 * The parent's name and namespace as they recur in one child (its name, labels, selectors, references), counted
 * generously: 16 times each.
 */
export function namesBytes(parent: ParentObject): number {
  return 16 * (Buffer.byteLength(parent.metadata.name ?? '') + Buffer.byteLength(parent.metadata.namespace ?? ''));
}

/**
 * Why the children an answer was built with are over the kind's budget, or undefined when they fit: measured on the
 * answer itself, whatever the estimate said (observed children a tenant labelled may add to what a spec asks for).
 * Children too large to be written as one string are over it.
 */
export function answerSizeProblem(kind: string, children: unknown, maxBytes?: number): string | undefined {
  const max = Math.min(maxBytes ?? MAX_ANSWER_BYTES, MAX_ANSWER_BYTES);
  let bytes: number;
  try {
    bytes = jsonBytes(children);
  } catch {
    bytes = Number.POSITIVE_INFINITY;
  }
  if (bytes <= max) return undefined;
  const size = Number.isFinite(bytes) ? `~${mib(bytes)}` : 'more than a string can hold';
  return `the children this sync made are ${size}, more than the ${mib(max)} a ${kind} answer may have: the status stored and every child are kept as they are`;
}
