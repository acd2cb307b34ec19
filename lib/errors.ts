// What a hook throws when it cannot finish, and how often metaops comes back (kopf's TemporaryError and
// PermanentError). The framework (lib/operator.ts) renders either the same way for every operator: every
// observed child kept as it is, the parent's status kept with False conditions carrying the reason and message,
// a log line, an Event where the operator tells failures as Events, and for a temporary failure a resync.
import type { KubeObject } from './metacontroller.js';

/** How long after a failure the next sync comes, by kind of failure (seconds). One table for every operator. */
export const RETRY_SECONDS = {
  /** A step of the hook's own that has just been taken (an etcd member added): the next one follows once it shows. */
  step: 5,
  /** A step that is under way elsewhere (a Job running, a member joining): look again soon. */
  soon: 10,
  /** A dependency that failed or refused (AWS, etcd, the Kubernetes API). */
  failure: 30,
  /** A dependency that asked us to slow down. */
  throttled: 60,
} as const;

export interface FailureOptions {
  /** Condition types set False with the reason and message (default: Ready). */
  conditions?: string[];
  /** Fields of the status to set beside the conditions (what was done before the failure, e.g. created names). */
  status?: Record<string, unknown>;
  /**
   * The children to answer instead of every observed one: only for a failure that itself revoked what a child
   * carried (an S3 resource that lost its bucket deleted the keys its Secret held).
   */
  children?: KubeObject[];
}

/** A failure the next sync may not meet: reported, and retried after `retryAfterSeconds`. */
export class TemporaryError extends Error {
  readonly retryAfterSeconds: number;
  readonly options: FailureOptions;
  constructor(
    readonly reason: string,
    message: string,
    options: FailureOptions & { retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = 'TemporaryError';
    this.retryAfterSeconds = options.retryAfterSeconds ?? RETRY_SECONDS.failure;
    this.options = options;
  }
}

/** A failure that only a change of the resource can end: reported, and not retried before the next resync. */
export class PermanentError extends Error {
  readonly options: FailureOptions;
  constructor(
    readonly reason: string,
    message: string,
    options: FailureOptions = {},
  ) {
    super(message);
    this.name = 'PermanentError';
    this.options = options;
  }
}

/**
 * The hook's caller is asked to come back later, nothing done: answered 429 with Retry-After (lib/answer.ts
 * RETRY_AFTER_SECONDS), which Metacontroller v4.17 honours by requeueing the parent after that many seconds. Thrown
 * before any side effect, when the namespace the request is about holds its share of something every namespace shares
 * (its share of calls to etcd): the status and children stay as they are, and the caller's worker is free at once.
 */
export class RetryLaterError extends Error {
  /** Read by the server's error handler (lib/app.ts): 429 Too Many Requests, with Retry-After. */
  readonly statusCode = 429;
  constructor(message: string) {
    super(message);
    this.name = 'RetryLaterError';
  }
}

export type HookFailure = TemporaryError | PermanentError;

export function isHookFailure(err: unknown): err is HookFailure {
  return err instanceof TemporaryError || err instanceof PermanentError;
}
