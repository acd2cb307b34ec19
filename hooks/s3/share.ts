// What one namespace's S3 resources may take of what every namespace shares: Metacontroller's workers (five per
// controller, held while a hook call waits on AWS) and the operator's one AWS identity, which IAM and S3 throttle as a
// whole. Each namespace has a share of both, kept by the server (S3Clients.tenants), counted before any AWS call:
//
// - at most S3_TENANT_MAX_SYNCS of its hook calls (sync, finalize, a refused spec's check) call AWS at once; another
//   is answered at once, without a call, and asked again soon (a region the server's egress drops makes each call
//   silent until its deadline: the namespace holds two workers at most, never all five);
// - at most its budget of AWS calls (callsPerPeriod, refilled evenly over CALLS_PERIOD_SECONDS) is spent: a hook call
//   starts only while the budget holds a sync at rest (AT_REST_CALLS); a started one is never cut by the budget (what
//   it began it finishes; the budget goes below zero, and the namespace waits until it is paid back: only its turn of
//   the body budget wanted by another namespace stops it, sync.ts givingWay); a sync that withdraws a
//   KMS grant the server no longer allows is not held back by the budget (its calls count). A hook call that does not
//   start keeps what the resource has (status, Secret, Ready as it was) and is asked again once the budget allows.
//
// Both kept by lib/namespace-calls.ts (NamespaceCalls), as EtcdCluster's are: in memory (a restart gives every
// namespace a full budget), at most MAX_NAMESPACES namespaces remembered, the least recently used forgotten first: a
// namespace forgotten is one whose budget had refilled or that made no call while MAX_NAMESPACES others did.
import { NamespaceCalls, RETRY_SECONDS, TemporaryError, WAITING_FOR_SHARE } from '../../lib/index.js';
import type { AwsApi } from './api.js';

/** A namespace's hook calls that call AWS at once, at most (EtcdCluster's is TENANT_MAX_SYNCS, the same). */
export const S3_TENANT_MAX_SYNCS = 2;
/** The AWS calls (AwsApi methods) of one sync of a Ready resource at rest (docs/s3.md "Cost at rest"). */
export const AT_REST_CALLS = 9;
/** The period over which a namespace's budget refills: the S3 resync period (index.ts resyncPeriodSeconds). */
export const CALLS_PERIOD_SECONDS = 300;
/** Namespaces whose budget is remembered, at most (each a few numbers). */
export const MAX_NAMESPACES = 10_000;
/** The reason a hook call that waits for its namespace's share answers with (lib/namespace-calls.ts). */
export { WAITING_FOR_SHARE };

/**
 * A namespace's AWS calls per CALLS_PERIOD_SECONDS: those of its bucket bound's resources at rest, each synced once a
 * period (METAOPS_S3_BUCKETS_PER_NAMESPACE × AT_REST_CALLS: 900 for 100, 3 a second), what docs/s3.md has always
 * counted as its worst at rest; now a bound, whatever the number of its resources and however often they are edited.
 */
export function callsPerPeriod(bucketsPerNamespace: number): number {
  return Math.max(MIN_CALLS_PER_PERIOD, bucketsPerNamespace * AT_REST_CALLS);
}

/**
 * The least budget of a namespace, whatever its bucket bound: five resources at rest, room for a resource's first sync
 * (its bucket, user, policy and key: about 25 calls) and the syncs that follow it, with a bound of one bucket.
 */
export const MIN_CALLS_PER_PERIOD = 5 * AT_REST_CALLS;

/** A hook call that waits for its namespace's share: nothing was sent to AWS; asked again after retryAfterSeconds. */
export class ShareWait extends TemporaryError {}

/** What the server remembers of every namespace's S3 share: hook calls under way, and the budget of calls. */
export class S3Tenants {
  /** The namespaces' hook calls under way and budgets (lib/namespace-calls.ts). */
  private readonly calls: NamespaceCalls;
  constructor(
    readonly maxNamespaces: number = MAX_NAMESPACES,
    /** A namespace's calls per period for its bucket bound (tests of other rules give a roomy one). */
    readonly callsOf: (bucketsPerNamespace: number) => number = callsPerPeriod,
    /**
     * A namespace's hook calls under way at once in this server: S3_TENANT_MAX_SYNCS alone; with the Deployment's
     * replicas told (METAOPS_REPLICAS), perReplica(S3_TENANT_MAX_SYNCS, replicas) (lib/server-replicas.ts), so that the
     * namespace holds at most S3_TENANT_MAX_SYNCS of Metacontroller's workers over all the replicas.
     */
    readonly maxSyncs: number = S3_TENANT_MAX_SYNCS,
  ) {
    this.calls = new NamespaceCalls(CALLS_PERIOD_SECONDS, maxNamespaces);
  }

  /** The namespace's hook calls under way. */
  inFlight(namespace: string): number {
    return this.calls.inFlight(namespace);
  }

  /** The calls left in the namespace's budget at `now` (tests, metrics). */
  callsLeft(namespace: string, capacity: number, now: Date): number {
    return this.calls.callsLeft(namespace, capacity, now);
  }

  /**
   * Runs `work` with `aws` counted against the namespace's budget, when the namespace has a place (fewer than
   * maxSyncs under way) and its budget holds a sync at rest; else throws, before any call, a ShareWait
   * (reason WAITING_FOR_SHARE) (asked again soon: once a place is likely free, or once the budget holds a sync at rest).
   */
  async run<T>(
    call: {
      namespace: string;
      bucketsPerNamespace: number;
      now: Date;
      /** A call that withdraws access the rules no longer give: not held back by the budget (its calls count). */
      withdraws?: boolean;
    },
    aws: AwsApi,
    work: (aws: AwsApi) => Promise<T>,
  ): Promise<T> {
    const { namespace, bucketsPerNamespace, now, withdraws = false } = call;
    const capacity = this.callsOf(bucketsPerNamespace);
    const under = this.inFlight(namespace);
    if (under >= this.maxSyncs) {
      throw new ShareWait(
        WAITING_FOR_SHARE,
        `waiting for this namespace's share of the S3 hook: ${under} of its S3 resources' calls to AWS are under way, the most one namespace may have at once in each of the hook server's replicas (${this.maxSyncs}); nothing was sent to AWS and nothing changed, asked again in ${RETRY_SECONDS.soon} s`,
        { retryAfterSeconds: RETRY_SECONDS.soon },
      );
    }
    const need = Math.min(AT_REST_CALLS, capacity);
    const waits = withdraws ? 0 : this.calls.waitFor(namespace, capacity, need, now);
    if (waits > 0) {
      const wait = Math.max(RETRY_SECONDS.soon, waits);
      throw new ShareWait(
        WAITING_FOR_SHARE,
        `waiting for this namespace's share of AWS calls: its S3 resources have made the ${capacity} calls a namespace may make in ${CALLS_PERIOD_SECONDS / 60} minutes (${AT_REST_CALLS} for each bucket METAOPS_S3_BUCKETS_PER_NAMESPACE allows, at least ${MIN_CALLS_PER_PERIOD}); nothing was sent to AWS and nothing changed, asked again in ${wait} s`,
        { retryAfterSeconds: wait },
      );
    }
    // The budget read (refilled, the namespace's most recently used) before the calls are spent from it.
    if (withdraws) this.calls.callsLeft(namespace, capacity, now);
    return this.calls.during(namespace, () => work(counted(aws, () => this.calls.spend(namespace))));
  }
}

/** `aws` with every call (an AwsApi method other than withDeadline) told to `spend` first. */
export function counted(aws: AwsApi, spend: () => void): AwsApi {
  const view: AwsApi = new Proxy(aws, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      if (prop === 'withDeadline')
        return (ms: number, signal?: AbortSignal) => counted(target.withDeadline(ms, signal), spend);
      return (...args: unknown[]) => {
        spend();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return view;
}
