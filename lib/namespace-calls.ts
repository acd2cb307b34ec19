// A namespace's calls to something every namespace shares (the operator's one AWS identity, the server's connections
// to etcd), as the hook server counts them: its hook calls under way (each holds one of Metacontroller's workers while
// it waits on the calls), and its budget of calls over time, refilled evenly over a period, so that a namespace's many
// objects, or its edits, make at most its budget of calls whatever their number. The S3 hook (hooks/s3/share.ts) and
// the EtcdCluster hook (hooks/etcdcommon/etcd.ts Shares) both keep theirs here.
//
// The budget: a hook call starts only while the namespace's budget holds what the call needs at rest; a started one
// is never cut (its calls are spent as they are made, below zero if need be, and the namespace waits until it is paid
// back). Kept in memory (a restart gives every namespace a full budget), at most `maxNamespaces` budgets remembered,
// the least recently used forgotten first: a namespace forgotten is one whose budget had refilled or that made no call
// while `maxNamespaces` others did.

import { conditionsKeepingOthers, currentStatus } from './hook.js';
import type { CompositeSyncRequest, CompositeSyncResponse } from './metacontroller.js';
import { allObserved, keepObserved } from './objects.js';

/** The reason a hook call that waits for its namespace's share answers with (S3, EtcdCluster). */
export const WAITING_FOR_SHARE = 'WaitingForNamespaceShare';

/** Namespaces whose budget is remembered, at most, by default (each a few numbers). */
export const MAX_NAMESPACES_REMEMBERED = 10_000;

interface Budget {
  /** Calls left (below zero: owed by hook calls that took more than was left). */
  calls: number;
  /** When `calls` was last refilled (ms). */
  at: number;
}

/** Each namespace's hook calls under way and budget of calls over `periodSeconds`. */
export class NamespaceCalls {
  private readonly running = new Map<string, number>();
  private readonly budgets = new Map<string, Budget>();
  constructor(
    /** The period over which a namespace's budget refills, whole. */
    readonly periodSeconds: number,
    readonly maxNamespaces: number = MAX_NAMESPACES_REMEMBERED,
  ) {}

  /** The namespace's hook calls under way. */
  inFlight(namespace: string): number {
    return this.running.get(namespace) ?? 0;
  }

  /** Counts `work` as one of the namespace's hook calls under way until it settles. */
  async during<T>(namespace: string, work: () => Promise<T>): Promise<T> {
    this.running.set(namespace, this.inFlight(namespace) + 1);
    try {
      return await work();
    } finally {
      const left = this.inFlight(namespace) - 1;
      if (left > 0) this.running.set(namespace, left);
      else this.running.delete(namespace);
    }
  }

  /**
   * The namespace's budget of `capacity` calls a period at `now`, refilled (a clock gone back refills nothing), now
   * the most recently used; a namespace not remembered starts full.
   */
  private budget(namespace: string, capacity: number, now: Date): Budget {
    const t = now.getTime();
    const found = this.budgets.get(namespace);
    const budget = found ?? { calls: capacity, at: t };
    if (found) this.budgets.delete(namespace);
    const elapsed = Math.max(0, t - budget.at);
    budget.calls = Math.min(capacity, budget.calls + (elapsed / 1000) * (capacity / this.periodSeconds));
    budget.at = Math.max(budget.at, t);
    this.budgets.set(namespace, budget);
    while (this.budgets.size > this.maxNamespaces) this.budgets.delete(this.budgets.keys().next().value!);
    return budget;
  }

  /** The calls left in the namespace's budget of `capacity` at `now` (below zero: owed). */
  callsLeft(namespace: string, capacity: number, now: Date): number {
    return this.budget(namespace, capacity, now).calls;
  }

  /**
   * Spends `calls` of the namespace's budget as it stands (refilled when it is next read): a call made is counted
   * whatever is left. A namespace not remembered (forgotten since its hook call started) spends nothing.
   */
  spend(namespace: string, calls = 1): void {
    const budget = this.budgets.get(namespace);
    if (budget) budget.calls -= calls;
  }

  /**
   * The whole seconds until the namespace's budget of `capacity` holds `need` calls (at most `capacity`), at `now`:
   * 0 when it holds them now.
   */
  waitFor(namespace: string, capacity: number, need: number, now: Date): number {
    const wanted = Math.min(need, capacity);
    const left = this.budget(namespace, capacity, now).calls;
    if (left >= wanted) return 0;
    return Math.ceil((wanted - left) / (capacity / this.periodSeconds));
  }
}

/**
 * The answer of a sync that waits for its namespace's share (nothing called, nothing changed): every observed child
 * kept as it is, the status kept as it is (its observedGeneration too: this generation was not looked at; its other
 * conditions while what they said of the children holds, lib/hook.ts conditionsKeepingOthers) but `condition`
 * (Synced), False with reason WAITING_FOR_SHARE and `message`; asked again after `retryAfterSeconds`. A converged
 * object keeps its Ready.
 */
export function waitingForShare(
  request: CompositeSyncRequest,
  message: string,
  retryAfterSeconds: number,
  now: Date,
  condition = 'Synced',
): CompositeSyncResponse {
  const parent = request.parent;
  const before = (parent.status as Record<string, unknown> | undefined)?.['observedGeneration'];
  return {
    status: {
      ...currentStatus(parent),
      observedGeneration: typeof before === 'number' ? before : 0,
      conditions: conditionsKeepingOthers(
        request,
        [{ type: condition, status: false, reason: WAITING_FOR_SHARE, message }],
        now,
      ),
    },
    children: allObserved(request.children).map(keepObserved),
    resyncAfterSeconds: retryAfterSeconds,
  };
}
