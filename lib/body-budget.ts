// The server's budget of request bodies in hand: how many bytes of hook requests may be read, parsed and answered at
// once, whatever number of them arrive. Parsed JSON costs 2 to 21 times its size (one long string 2, many tiny keys
// 14, an array of empty objects 21: 171 MiB of heap for 8 MiB of `{},`), and every hook call holds its parsed body
// until it has answered: without a bound, five bodies of empty objects at the body limit at once (Metacontroller's 5
// workers per controller) took the server to 488 MiB of its 512. By default the budget is one body at the limit: the
// bodies in hand, parsed at their worst (~136-171 MiB), then fit in the Deployment's heap cap (`--max-old-space-size=256`,
// manifests/deploy/deployment.yaml), where two (~300 MiB) would not (docs/operating.md, "Memory with the worst
// objects"). A request takes its turn before its body is read (its Content-Length; the body limit when it has none)
// and gives it back once its answer is sent or its caller has gone, and its body's parse has ended and its hook has
// settled (lib/hook-routes.ts takeTurn; a caller gone before its hook ran has its hook not run); one that waits longer
// than its wait is answered 429 with Retry-After (lib/answer.ts), which Metacontroller honours.
//
// Every namespace's hooks share the budget. A tenant decides how large its requests are and how long its hooks hold
// them (its members, its images): in arrival order, one namespace's large, slow syncs, one always in hand and four
// waiting (Metacontroller's five workers), held the budget all the time, and another namespace's request queued
// behind them waited for all of them and was answered 429. So turns of the budget are shared between namespaces: the
// next turn goes to the namespace whose last turn of the budget is the oldest (one never served, or not for long,
// first), and in arrival order within a namespace; a request that does not fit yet holds back the others, so a large
// body is not passed by small ones forever. Another namespace's request then waits for at most the turns in hand,
// not for every request the first namespace has waiting; and once one has waited half its wait (GIVE_WAY_SHARE), the
// turns of other namespaces in hand are asked to give way (Release.wanted, a hook's turnWanted): a hook waiting on what
// its tenant controls (an EtcdCluster membership change its members never answer) stops waiting and answers, and its
// turn is given back as ever, once it has answered. Metacontroller names the namespace only in the body (one URL
// per hook, no header): a request that finds no turn at once has the start of its body read first (lib/hook-routes.ts,
// NAMESPACE_HEAD_BYTES at most, lib/body-head.ts namespaceOfHead), the bytes given back to the body's parse; the
// starts read and waiting are at most HEADS_ROOM together. A start that names no namespace within those bytes (the
// object's annotations, labels and managedFields come before it) counts as the namespace '' (with every other such).
// So the server also keeps a reserve
// for small requests (the server's: an eighth of the budget, RESERVE_SHARE; small is half the reserve at most): a
// small request that finds no room in the budget (or others waiting) takes its turn from the reserve, never behind a
// large one. Once its body is read its namespace is known (claim): a namespace holds one small request of the
// reserve, or several within a quarter of it, so at most half of it: one namespace's small slow syncs (or one of
// half the reserve) leave room for another namespace's small request of any size up to half the reserve. A request
// over its namespace's share is answered 429 with Retry-After at once. The bytes in hand are then at most the budget
// and its reserve: 9 MiB by default, whatever the size of the small requests within it.

/** The bytes of request bodies in hand at once, by default: one body at the 8 MiB limit (or any smaller ones). */
export const DEFAULT_BODY_BUDGET = 8 * 1024 * 1024;
/** Requests waiting for their turn at most, by default; more are answered 429 at once. */
export const MAX_WAITING = 256;
/** The server's reserve for small requests, as a part of its budget (an eighth: 1 MiB of the default 8 MiB). */
export const RESERVE_SHARE = 1 / 8;

/**
 * The most of a body's start read before its turn, to learn its namespace: the controller (Metacontroller writes it
 * first) and the object's metadata up to its namespace, for an object whose annotations, labels and managedFields are
 * of ordinary size.
 */
export const NAMESPACE_HEAD_BYTES = 64 * 1024;
/**
 * The bytes of body starts read and waiting for their turn at once (64 of NAMESPACE_HEAD_BYTES, more of smaller
 * ones: Metacontroller's workers, five per controller, send fewer requests at once); a request that finds no room
 * reads none and counts as the namespace ''.
 */
export const HEADS_ROOM = 4 * 1024 * 1024;
/**
 * The part of its wait after which a request waiting for a turn of the budget asks the turns of other namespaces in
 * hand to give way (Release.wanted): half (by default, a quarter of the hook deadline: 2.1 s of 8.5).
 */
export const GIVE_WAY_SHARE = 1 / 2;
/** The namespaces whose last turn is remembered, at most: past it those with nothing waiting are forgotten. */
export const NAMESPACES_REMEMBERED = 1024;

/** The reserve for small requests that goes with a budget of `bytes` (the server's: RESERVE_SHARE of it). */
export function reserveOf(bytes: number): number {
  return Math.floor(bytes * RESERVE_SHARE);
}

/** The server's body budget of `bytes`, with its reserve for small requests (reserveOf). */
export function serverBudget(bytes: number = DEFAULT_BODY_BUDGET): BodyBudget {
  return new BodyBudget(bytes, MAX_WAITING, reserveOf(bytes), HEADS_ROOM);
}

/** A signal never aborted (a turn the budget never asks to give way). */
const NEVER = new AbortController().signal;

/** Why a request got no turn: it waited too long, too many wait, or its caller went away. */
export class NoTurn extends Error {
  constructor(
    message: string,
    readonly why: 'deadline' | 'queue' | 'gone',
  ) {
    super(message);
  }
}

/**
 * A turn: the function that gives it back (once; later calls do nothing), its bytes, whether of the reserve, and the
 * namespace it waited as ('' when its body's start named none; undefined when given before it was read).
 */
export type Release = (() => void) & {
  readonly bytes: number;
  readonly reserved: boolean;
  readonly namespace: string | undefined;
  /**
   * Aborted when a request of another namespace has waited half its wait for a turn of the budget while this turn is
   * in hand (GIVE_WAY_SHARE): a hook that waits long on what its tenant controls (an EtcdCluster membership change)
   * stops waiting then and answers, and the turn goes to the other namespace. Made when first asked for.
   */
  wanted(): AbortSignal;
};

/** What the budget knows of a turn of it in hand: its namespace (once its body named it), who asked it to give way. */
interface InHand {
  namespace: string | undefined;
  askedBy: Set<string> | undefined;
  controller: AbortController | undefined;
}

interface Waiter {
  bytes: number;
  namespace: string;
  grant: (reserved: boolean) => void;
  refuse: (err: NoTurn) => void;
}

export class BodyBudget {
  private inHand = 0;
  private reservedInHand = 0;
  private readonly waiting: Waiter[] = [];
  /** The reserve's bytes each namespace holds (claim). */
  private readonly byNamespace = new Map<string, number>();
  private readonly claimed = new WeakMap<Release, string>();
  /** When each namespace was last given a turn of the budget (a count of the turns given), and that count. */
  private readonly lastTurn = new Map<string, number>();
  private turnsGiven = 0;
  /** Turns of the budget given as the namespace '' (or before it was read), until their body names it (claim). */
  private readonly unnamed = new WeakSet<Release>();
  private headsInHand = 0;
  /** The budget's turns in hand (not the reserve's): their namespace and who asked them to give way. */
  private readonly turnsInHand = new Map<Release, InHand>();
  /** The most bytes ever in hand at once, the reserve's included (for tests and metrics). */
  peak = 0;
  /**
   * The largest request that may take its turn from the reserve: half of it, so that it fits beside what any one
   * other namespace holds of the reserve (one request up to this size, or several within namespaceShare).
   */
  readonly small: number;
  /** The reserve's bytes one namespace may hold (claim): a quarter of it. */
  readonly namespaceShare: number;

  /**
   * `bytes` for any request, and `reserve` more for small requests only (none unless given: the server gives
   * reserveOf(bytes)); `headsRoom` for the starts of bodies read before their turn (none unless given: then every
   * request counts as the namespace '' until its body is read, and turns go in arrival order).
   */
  constructor(
    readonly bytes: number,
    private readonly maxWaiting = MAX_WAITING,
    readonly reserve = 0,
    readonly headsRoom = 0,
  ) {
    this.small = Math.floor(reserve / 2);
    this.namespaceShare = Math.floor(reserve / 4);
  }

  /** The bytes a request of this size takes: never more than the whole budget (else it would never run). */
  weigh(size: number): number {
    return Math.max(1, Math.min(size, this.bytes));
  }

  /** The bytes in hand, the reserve's included. */
  get used(): number {
    return this.inHand + this.reservedInHand;
  }

  /** The bytes of the reserve in hand. */
  get reserved(): number {
    return this.reservedInHand;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** The bytes of body starts read and waiting for their turn. */
  get heads(): number {
    return this.headsInHand;
  }

  /**
   * Room for a body's start of up to `bytes` read before its turn (HEADS_ROOM): true when taken, to be given back
   * (giveHead) once the request has its turn or none.
   */
  takeHead(bytes: number): boolean {
    if (this.headsInHand + bytes > this.headsRoom) return false;
    this.headsInHand += bytes;
    return true;
  }

  giveHead(bytes: number): void {
    this.headsInHand -= bytes;
  }

  /**
   * A turn for `size` bytes at once, for `namespace` if known, if there is one: the budget has room and nobody waits
   * for it, or the request is small and the reserve has room (and no small request waits for it). Else undefined.
   */
  takeNow(size: number, namespace?: string): Release | undefined {
    const bytes = this.weigh(size);
    if (this.waiting.length === 0 && this.inHand + bytes <= this.bytes) return this.hold(bytes, false, namespace);
    if (this.reserveFits(bytes) && !this.waiting.some((w) => w.bytes <= this.small))
      return this.hold(bytes, true, namespace);
    return undefined;
  }

  /**
   * A turn for `size` bytes for a request about an object of `namespace` (undefined: not known yet; it waits as the
   * namespace ''): resolves with the function that gives it back (once; later calls do nothing), or rejects with
   * NoTurn after `waitMs`, when MAX_WAITING already wait, or when `signal` aborts. A small request (at most `small`
   * bytes) that finds no room takes its turn from the reserve if it has room. The turns of the budget go to the
   * namespace whose last turn is the oldest, in arrival order within it (grantWaiting).
   */
  take(size: number, waitMs: number, signal?: AbortSignal, namespace?: string): Promise<Release> {
    const now = this.takeNow(size, namespace);
    if (now) return Promise.resolve(now);
    const bytes = this.weigh(size);
    if (this.waiting.length >= this.maxWaiting)
      return Promise.reject(new NoTurn(`${this.waiting.length} requests already wait for their turn`, 'queue'));
    if (signal?.aborted) return Promise.reject(new NoTurn('the caller went away', 'gone'));
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        clearTimeout(giveWay);
        signal?.removeEventListener('abort', gone);
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
      };
      const waiter: Waiter = {
        bytes,
        namespace: namespace ?? '',
        grant: (reserved) => {
          done();
          resolve(this.hold(bytes, reserved, waiter.namespace));
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
              `the server had no room for this request's ${bytes} bytes within ${waitMs} ms (${this.used} of ${this.bytes + this.reserve} bytes of request bodies in hand)`,
              'deadline',
            ),
          ),
        waitMs,
      );
      // Waited half its wait: the turns of other namespaces in hand are asked to give way (their hooks that wait on
      // what their tenant controls stop waiting and answer).
      const giveWay: NodeJS.Timeout = setTimeout(
        () => this.askToGiveWay(waiter.namespace),
        Math.floor(waitMs * GIVE_WAY_SHARE),
      );
      giveWay.unref();
      signal?.addEventListener('abort', gone, { once: true });
      this.waiting.push(waiter);
      // Another namespace's request may be the next one and fit now.
      this.grantWaiting();
    });
  }

  /**
   * Whether a turn may stay with the namespace its body names, once read: a turn of the reserve does if its
   * namespace holds nothing else of the reserve, or what it holds with this one is within its share
   * (namespaceShare); a turn of the budget always does (and, given before its namespace was read or as the namespace
   * '', counts as its namespace's last turn too). When not, the caller gives the turn back and answers 429.
   */
  claim(turn: Release, namespace: string): boolean {
    const inHand = this.turnsInHand.get(turn);
    if (inHand) {
      inHand.namespace = namespace;
      const by = [...(inHand.askedBy ?? [])].find((n) => n !== namespace);
      if (by !== undefined) this.giveWay(inHand, by);
    }
    if (this.unnamed.has(turn)) {
      this.unnamed.delete(turn);
      if (namespace !== turn.namespace) this.served(namespace);
    }
    if (!turn.reserved || this.claimed.has(turn)) return true;
    const held = this.byNamespace.get(namespace) ?? 0;
    if (held > 0 && held + turn.bytes > this.namespaceShare) return false;
    this.byNamespace.set(namespace, held + turn.bytes);
    this.claimed.set(turn, namespace);
    return true;
  }

  /**
   * The request whose turn of the budget is next: the first to arrive of the namespace whose last turn is the oldest
   * (never, or forgotten: before any other; between those, the first to arrive).
   */
  private nextInTurn(): Waiter | undefined {
    let next: Waiter | undefined;
    let oldest = Infinity;
    const seen = new Set<string>();
    for (const w of this.waiting) {
      if (seen.has(w.namespace)) continue;
      seen.add(w.namespace);
      const last = this.lastTurn.get(w.namespace) ?? 0;
      if (last < oldest) {
        oldest = last;
        next = w;
      }
    }
    return next;
  }

  private reserveFits(bytes: number): boolean {
    return bytes <= this.small && this.reservedInHand + bytes <= this.reserve;
  }

  /**
   * A request of `namespace` has waited half its wait: every turn of the budget in hand of another namespace is asked
   * to give way (its `wanted` signal aborted; a turn whose namespace is not known yet is once its body names another).
   * A request of no known namespace ('') asks nobody: it could be the namespace in hand.
   */
  private askToGiveWay(namespace: string): void {
    if (namespace === '') return;
    for (const inHand of this.turnsInHand.values()) {
      if (inHand.namespace === namespace) continue;
      (inHand.askedBy ??= new Set()).add(namespace);
      if (inHand.namespace !== undefined) this.giveWay(inHand, namespace);
    }
  }

  private giveWay(inHand: InHand, namespace: string): void {
    inHand.controller?.abort(
      new Error(`a request of namespace ${namespace} has waited for the server's body budget this turn holds`),
    );
  }

  /** `namespace`'s turn of the budget is the latest given. */
  private served(namespace: string): void {
    this.lastTurn.delete(namespace);
    this.lastTurn.set(namespace, ++this.turnsGiven);
    if (this.lastTurn.size <= NAMESPACES_REMEMBERED) return;
    // Forgotten, a namespace counts as never served: only those with nothing waiting are, the longest served first.
    const waiting = new Set(this.waiting.map((w) => w.namespace));
    for (const known of this.lastTurn.keys()) {
      if (this.lastTurn.size <= NAMESPACES_REMEMBERED / 2) break;
      if (!waiting.has(known)) this.lastTurn.delete(known);
    }
  }

  /** Holds `bytes` of the budget or of its reserve for `namespace`: the turn that gives them back. */
  private hold(bytes: number, reserved: boolean, namespace: string | undefined): Release {
    if (reserved) this.reservedInHand += bytes;
    else this.inHand += bytes;
    if (this.used > this.peak) this.peak = this.used;
    let given = false;
    const release: Release = Object.assign(
      () => {
        if (given) return;
        given = true;
        if (reserved) this.reservedInHand -= bytes;
        else this.inHand -= bytes;
        this.turnsInHand.delete(release);
        this.unclaim(release);
        this.grantWaiting();
      },
      { bytes, reserved, namespace, wanted: () => this.wantedOf(release) },
    );
    if (!reserved) {
      this.turnsInHand.set(release, { namespace: namespace || undefined, askedBy: undefined, controller: undefined });
      if (namespace !== undefined) this.served(namespace);
      if (!namespace) this.unnamed.add(release);
    }
    return release;
  }

  /**
   * The signal aborted when `turn` is asked to give way (askToGiveWay): already aborted if a request of another
   * namespace than the one its body named has asked. A turn of the reserve, or one given back, is never asked.
   */
  private wantedOf(turn: Release): AbortSignal {
    const inHand = this.turnsInHand.get(turn);
    if (!inHand) return NEVER;
    if (!inHand.controller) {
      inHand.controller = new AbortController();
      const by = [...(inHand.askedBy ?? [])].find((n) => n !== inHand.namespace);
      if (by !== undefined && inHand.namespace !== undefined) this.giveWay(inHand, by);
    }
    return inHand.controller.signal;
  }

  private unclaim(turn: Release): void {
    const namespace = this.claimed.get(turn);
    if (namespace === undefined) return;
    this.claimed.delete(turn);
    const left = (this.byNamespace.get(namespace) ?? 0) - turn.bytes;
    if (left > 0) this.byNamespace.set(namespace, left);
    else this.byNamespace.delete(namespace);
  }

  /**
   * Turns for the waiting requests: of the budget, as long as the next fits (nextInTurn); then of the reserve for
   * the small ones, in arrival order, as long as the first of them fits.
   */
  private grantWaiting(): void {
    for (let next = this.nextInTurn(); next; next = this.nextInTurn()) {
      if (this.inHand + next.bytes > this.bytes) break;
      next.grant(false);
    }
    for (const next of this.waiting.filter((w) => w.bytes <= this.small)) {
      if (!this.reserveFits(next.bytes)) return;
      next.grant(true);
    }
  }
}
