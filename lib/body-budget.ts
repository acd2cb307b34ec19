// The server's budget of request bodies in hand: how many bytes of hook requests may be read, parsed and answered at
// once, whatever number of them arrive. Parsed JSON costs 2 to 21 times its size (one long string 2, many tiny keys
// 14, an array of empty objects 21: 171 MiB of heap for 8 MiB of `{},`), and every hook call holds its parsed body
// until it has answered: without a bound, five bodies of empty objects at the body limit at once (Metacontroller's 5
// workers per controller) took the server to 488 MiB of its 512. By default the budget is one body at the limit: the
// bodies in hand, parsed at their worst (~136-171 MiB), then fit in the Deployment's heap cap (`--max-old-space-size=256`,
// manifests/deploy/deployment.yaml), where two (~300 MiB) would not (docs/operating.md, "Memory with the worst
// objects"). A request takes its turn before its body is read (its Content-Length; the body limit when it has none)
// and gives it back once its answer is sent or its caller has gone and its hook has settled; one that waits longer
// than its wait is answered 429 with Retry-After (lib/answer.ts), which Metacontroller honours. Turns are given in
// arrival order: a large body is not passed by small ones forever.

/** The bytes of request bodies in hand at once, by default: one body at the 8 MiB limit (or any smaller ones). */
export const DEFAULT_BODY_BUDGET = 8 * 1024 * 1024;
/** Requests waiting for their turn at most, by default; more are answered 429 at once. */
export const MAX_WAITING = 256;

/** Why a request got no turn: it waited too long, too many wait, or its caller went away. */
export class NoTurn extends Error {
  constructor(
    message: string,
    readonly why: 'deadline' | 'queue' | 'gone',
  ) {
    super(message);
  }
}

interface Waiter {
  bytes: number;
  grant: () => void;
  refuse: (err: NoTurn) => void;
}

export class BodyBudget {
  private inHand = 0;
  private readonly waiting: Waiter[] = [];
  /** The most bytes ever in hand at once (for tests and metrics). */
  peak = 0;

  constructor(
    readonly bytes: number,
    private readonly maxWaiting = MAX_WAITING,
  ) {}

  /** The bytes a request of this size takes: never more than the whole budget (else it would never run). */
  weigh(size: number): number {
    return Math.max(1, Math.min(size, this.bytes));
  }

  get used(): number {
    return this.inHand;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /**
   * A turn for `size` bytes: resolves with the function that gives it back (once; later calls do nothing), or
   * rejects with NoTurn after `waitMs`, when MAX_WAITING already wait, or when `signal` aborts.
   */
  take(size: number, waitMs: number, signal?: AbortSignal): Promise<() => void> {
    const bytes = this.weigh(size);
    const release = this.releaser(bytes);
    if (this.waiting.length === 0 && this.inHand + bytes <= this.bytes) {
      this.hold(bytes);
      return Promise.resolve(release);
    }
    if (this.waiting.length >= this.maxWaiting)
      return Promise.reject(new NoTurn(`${this.waiting.length} requests already wait for their turn`, 'queue'));
    if (signal?.aborted) return Promise.reject(new NoTurn('the caller went away', 'gone'));
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', gone);
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
      };
      const waiter: Waiter = {
        bytes,
        grant: () => {
          done();
          resolve(release);
        },
        refuse: (err) => {
          done();
          reject(err);
          // The head of the queue gone: whoever is next may fit now.
          this.grantWaiting();
        },
      };
      const gone = () => waiter.refuse(new NoTurn('the caller went away', 'gone'));
      const timer: NodeJS.Timeout = setTimeout(
        () =>
          waiter.refuse(
            new NoTurn(
              `the server had no room for this request's ${bytes} bytes within ${waitMs} ms (${this.inHand} of ${this.bytes} bytes of request bodies in hand)`,
              'deadline',
            ),
          ),
        waitMs,
      );
      signal?.addEventListener('abort', gone, { once: true });
      this.waiting.push(waiter);
    });
  }

  private hold(bytes: number): void {
    this.inHand += bytes;
    if (this.inHand > this.peak) this.peak = this.inHand;
  }

  private releaser(bytes: number): () => void {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.inHand -= bytes;
      this.grantWaiting();
    };
  }

  /** Turns for the waiting requests, in arrival order, as long as the first fits. */
  private grantWaiting(): void {
    while (this.waiting.length > 0) {
      const next = this.waiting[0]!;
      if (this.inHand + next.bytes > this.bytes) return;
      this.hold(next.bytes);
      next.grant();
    }
  }
}
