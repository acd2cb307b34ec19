// A small client for etcd's HTTP/JSON gateway on the client port: member list/add/remove/promote, health,
// version and status. Every call has a hard deadline and a size limit; the work of one sync fits in a budget
// well below the hook route's deadline (8.5 s): reads go to every member at once (the member list takes the
// first answer; a member's health, version and status are asked together), so that silent members cost one
// call deadline, not one each; a membership change tries the endpoints in turn within MUTATION_BUDGET_MS.
// The calls in flight are capped per sync (a view made by `scoped`) and per server (every client etcdClients
// makes shares one Limiter), and a sync's view dials only the host names its scope allows (the cluster's own
// member names), each looked up once per sync so that every call of the sync reaches the same address.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import {
  AnswerTooLargeError,
  boundedText,
  call,
  type CallOptions,
  ChainRefusedError,
  chainProblem,
  HANDSHAKE_RESET,
  InvalidAnswerError,
  MAX_ERROR_TEXT,
  NamespaceCalls,
  NamespaceShares,
  fairTake,
} from '../../lib/index.js';
import { idOf } from './identity.js';
import { parseJson } from '../../lib/index.js';

export interface EtcdMember {
  /** The member ID: a uint64, kept as the decimal string etcd's gateway sends. */
  id: string;
  /** Empty until the member has started. */
  name: string;
  peerURLs: string[];
  clientURLs: string[];
  isLearner: boolean;
}

export interface MemberHealth {
  healthy: boolean;
  /** etcdserver version, when the member answered. */
  version?: string;
  /** The leader's member ID as this member sees it. */
  leader?: string;
  error?: string;
  /**
   * The alarm the member's /health names, when it is unhealthy for it: NOSPACE (a backend reached the quota) or
   * CORRUPT (etcd's corruption check found a member whose data disagrees); under either every write is refused, the
   * member still answers reads and votes. CORRUPT is named when both are raised.
   */
  alarm?: 'NOSPACE' | 'CORRUPT';
  /** What a failed TLS handshake with the member means (tls.ts), when that is why it did not answer. */
  tls?: string;
  /** The cluster and member IDs the member's own status answer carried (its identity), when it answered. */
  clusterId?: string;
  memberId?: string;
  /**
   * The size of the member's backend file in bytes (its status dbSize: what etcd checks its backend quota against),
   * when it answered with one.
   */
  dbSize?: number;
}

export interface TlsFiles {
  ca?: string;
  cert?: string;
  key?: string;
}

/** An active etcd alarm: the member ID that raised it and its kind (NOSPACE, CORRUPT). */
export interface EtcdAlarm {
  memberId: string;
  alarm: string;
}

/**
 * The alarm an unhealthy member of etcd 3.4+ names: its /health's reason ("ALARM NOSPACE", "ALARM CORRUPT"), or its
 * status' errors (`memberID:7 alarm:NOSPACE`); CORRUPT when both are raised.
 */
function alarmNamed(reason: unknown, errors: unknown): MemberHealth['alarm'] {
  const listed = Array.isArray(errors) ? (errors as unknown[]) : [];
  const says = (word: RegExp) => word.test(String(reason ?? '')) || listed.some((e) => word.test(String(e)));
  if (says(/CORRUPT/)) return 'CORRUPT';
  return says(/NOSPACE/) ? 'NOSPACE' : undefined;
}

/**
 * A backend size as etcd's gateway sends it (an int64 as a decimal string, or a number), when it is one: bounded to
 * Number's exact integers, else not taken.
 */
export function sizeOf(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^[0-9]{1,16}$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** The member's backend size (MemberHealth.dbSize) set from its status answer's dbSize, when it is one. */
function withSize(result: MemberHealth, value: unknown): void {
  const size = sizeOf(value);
  if (size !== undefined) result.dbSize = size;
}

/** Whether an etcd version (`3.3.25`) is before 3.4: its /health names no reason, its status no errors. */
function before34(version: string): boolean {
  const [major, minor] = version.split('.').map((x) => Number.parseInt(x, 10));
  return major === 3 && minor !== undefined && minor < 4;
}

/** At most this many alarms are read of one answer (one per member and kind: far fewer). */
export const MAX_LISTED_ALARMS = 64;

/** What a member list answer holds: the members, the cluster version, and the cluster's ID from its header. */
export interface MemberListAnswer {
  members: EtcdMember[];
  clusterVersion?: string;
  clusterId?: string;
}

/**
 * What one sync's view of a client may dial, and how much at once: `scoped` makes it. Anything else is refused
 * before a socket is opened.
 */
export interface DialScope {
  signal: AbortSignal;
  /** Whether a URL's host name is one of the cluster's own member addresses. */
  allows(hostname: string): boolean;
  /** The name looked up in DNS for an allowed host name (its fully qualified form). */
  lookupName(hostname: string): string;
  /**
   * At most this many calls of the view in flight at once (SYNC_MAX_CALLS by default; with a tenant, at most the
   * tenant's share). What the view takes of its tenant's share is this, or a TENANT_MAX_SYNCS-th of the share if
   * more (so that at most TENANT_MAX_SYNCS views of a tenant dial at once however few calls each makes).
   */
  maxCalls?: number;
  /**
   * Whose calls these are (the parent's namespace): every tenant's calls in flight together are capped at
   * TENANT_MAX_CALLS, so that one namespace's members cannot take the server's whole share. A view takes its
   * calls' room in the share all at once (`maxCalls`), or not at all: it never waits for the namespace's other
   * syncs, so that a namespace whose members are silent cannot hold the hook's callers (Metacontroller's workers,
   * shared by every namespace) waiting on its own share.
   */
  tenant?: string;
}

export interface EtcdClient {
  /**
   * Lists members through the first endpoint that answers with an answer `accept` takes (by the cluster ID of its
   * header): an answer of another cluster is no answer.
   */
  memberList(endpoints: string[], accept?: (clusterId: string | undefined) => boolean): Promise<MemberListAnswer>;
  memberAdd(endpoints: string[], peerURL: string, learner: boolean): Promise<EtcdMember>;
  memberRemove(endpoints: string[], id: string): Promise<void>;
  memberPromote(endpoints: string[], id: string): Promise<void>;
  /** Health, version and leader of one member, through its own client URL. */
  health(clientURL: string): Promise<MemberHealth>;
  /** The cluster's active alarms (etcd's Maintenance Alarm GET), through the first endpoint that answers. */
  alarms?(endpoints: string[]): Promise<EtcdAlarm[]>;
  /** Disarms one alarm of one member ID (Maintenance Alarm DEACTIVATE). */
  alarmDisarm?(endpoints: string[], alarm: EtcdAlarm): Promise<void>;
  /** The same client, every call of which stops when `signal` aborts (clients without one ignore the signal). */
  withSignal?(signal: AbortSignal): EtcdClient;
  /** One sync's view: its signal, the only hosts it dials, its own cap on calls in flight. */
  scoped?(scope: DialScope): EtcdClient;
  /**
   * A view's room in its tenant's share, taken now for every call until `release` (a sync takes it before it
   * dials anything), with its calls of the server's (Shares.tryTake): false when the share has not that room now, or
   * the server no call its namespace may take (nothing dialled; the caller comes back later).
   * Without it, a view takes the room at its first call and gives it back once none of its calls is in flight;
   * a call for which there is no room fails at once (EtcdError Busy), nothing sent.
   */
  hold?(): boolean;
  /** Gives back what `hold` took. */
  release?(): void;
  /** Whether the view's calls were made and every one that ended timed out: its members are silent. */
  silent?(): boolean;
  /**
   * The whole seconds until the view's tenant's budget of calls to etcd over time (Shares.budget,
   * ETCD_CALLS_PER_PERIOD) holds `need` calls, at `now`: 0 when it holds them now (a sync starts only then; its calls
   * are spent as they are made). Without it, or without a tenant, there is no budget.
   */
  budgetWait?(need: number, now: Date): number;
}

export class EtcdError extends Error {
  constructor(
    message: string,
    /** Invalid: an answer no etcd of a cluster the CRD allows gives (a member list of thousands). */
    /** Busy: the tenant's share of calls has no room for the view's now; nothing was sent. */
    /** Unauthenticated: etcd's authentication is on and the call carried no credentials (authRefusal). */
    readonly code:
      'Unreachable' | 'Timeout' | 'Rejected' | 'TLS' | 'Foreign' | 'Refused' | 'Invalid' | 'Busy' | 'Unauthenticated',
  ) {
    super(message);
  }
}

export interface HttpEtcdOptions {
  /** Deadline of one HTTP call, in milliseconds. */
  timeoutMs?: number;
  /** Maps a URL before it is dialled (tests map pod DNS names to loopback addresses). */
  resolve?: (url: string) => string;
  tls?: TlsFiles;
  /** Total time a membership change may spend over endpoints tried in turn (MUTATION_BUDGET_MS). */
  budgetMs?: number;
  /** The server's cap on calls in flight, shared by every client of the server (etcdClients). */
  limiter?: Limiter;
  /** The caps per tenant (DialScope.tenant), shared like `limiter`. */
  tenants?: Shares;
  /**
   * The syncs of one tenant that dial at once in this server (TENANT_MAX_SYNCS alone; with the Deployment's replicas
   * told, METAOPS_REPLICAS: perReplica(TENANT_MAX_SYNCS, replicas), lib/server-replicas.ts), shared like `tenants`.
   */
  tenantMaxSyncs?: number;
  /** DNS lookup (tests); node:dns lookup by default. */
  dnsLookup?: (name: string) => Promise<LookupAddress>;
}

/**
 * Whether etcd refused a call for want of credentials (its authentication on: `etcdctl auth enable`): HTTP 401 or
 * 403, gRPC Unauthenticated (16) or PermissionDenied (7), or the InvalidArgument (3, HTTP 400) etcd answers a call
 * with no user ("etcdserver: user name is empty").
 */
export function authRefusal(status: number, json: Json): boolean {
  const code = json['code'];
  return (
    status === 401 ||
    status === 403 ||
    code === 16 ||
    code === 7 ||
    (code === 3 && json['message'] === 'etcdserver: user name is empty')
  );
}

/** At most `max` tasks at once; the others wait their turn, in order, or until their signal aborts. */
export class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  /** The most tasks seen in flight at once (what a test or a metric reads). */
  peak = 0;
  constructor(readonly max: number) {}

  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.active < this.max) {
      this.take();
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const go = () => {
        signal?.removeEventListener('abort', abandon);
        this.take();
        resolve();
      };
      const abandon = () => {
        const at = this.waiting.indexOf(go);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(abortReason(signal!));
      };
      this.waiting.push(go);
      signal?.addEventListener('abort', abandon, { once: true });
    });
  }

  private take(n = 1): void {
    this.active += n;
    this.peak = Math.max(this.peak, this.active);
  }

  /** Takes `n` turns at once, now or not at all (never ahead of a task waiting its turn). */
  tryTake(n: number): boolean {
    if (this.waiting.length > 0 || this.active + n > this.max) return false;
    this.take(n);
    return true;
  }

  /** Gives back `n` turns tryTake took; the tasks waiting take them in order. */
  give(n: number): void {
    this.active -= n;
    while (this.active < this.max && this.waiting.length > 0) this.waiting.shift()!();
  }
}

/** What `Shares.tryTake` gave: the function that gives it all back (once), and the view's part of the server's calls. */
export type TakenShare = (() => void) & {
  /** The view's calls in flight at once, of the server's (at least 1, at most what was asked). */
  readonly calls: number;
};

/**
 * One Limiter per key (a tenant), made when it is first used and forgotten when idle; and each key's part of the
 * server's calls in flight (`bound`, SERVER_MAX_CALLS), taken at once by a view and shared fairly between keys
 * (lib/shares.ts fairTake): a key holds at most `max` of them and never more than it leaves free, so that keys that
 * take all they may still leave the next one some.
 */
export class Shares {
  private readonly byKey = new Map<string, { limiter: Limiter; users: number; calls: number }>();
  private calls = 0;
  /**
   * Each key's budget of calls over time (lib/namespace-calls.ts, as S3's): `callsPerPeriod` every
   * ETCD_CALLS_PERIOD_SECONDS, spent by every call a view of the key makes.
   */
  readonly budget = new NamespaceCalls(ETCD_CALLS_PERIOD_SECONDS);
  constructor(
    readonly max: number,
    readonly bound: number = SERVER_MAX_CALLS,
    readonly callsPerPeriod: number = ETCD_CALLS_PER_PERIOD,
  ) {}

  async run<T>(key: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const share = this.entry(key);
    share.users++;
    try {
      return await share.limiter.run(task, signal);
    } finally {
      if (--share.users === 0) this.byKey.delete(key);
    }
  }

  /**
   * `n` turns of `key`'s share at once, and between 1 and `calls` (n by default) of the server's calls in flight,
   * now or not at all: what was taken and the function that gives it back (once), or undefined when the key's share
   * has not `n` free now or the server has no call it may take.
   */
  tryTake(key: string, n: number, calls: number = n): TakenShare | undefined {
    const held = this.entry(key);
    held.users++;
    const done = () => {
      if (--held.users === 0 && this.byKey.get(key) === held) this.byKey.delete(key);
    };
    const granted = fairTake(Math.max(1, calls), held.calls, this.calls, this.bound, this.max);
    if (granted < 1 || !held.limiter.tryTake(n)) {
      done();
      return undefined;
    }
    held.calls += granted;
    this.calls += granted;
    let given = false;
    const give = () => {
      if (given) return;
      given = true;
      held.calls -= granted;
      this.calls -= granted;
      held.limiter.give(n);
      done();
    };
    return Object.assign(give, { calls: granted });
  }

  /** The keys with calls in flight or waiting (what a test reads: none are kept once idle). */
  get size(): number {
    return this.byKey.size;
  }

  /** The server's calls the keys' views hold together (what a test reads). */
  get held(): number {
    return this.calls;
  }

  private entry(key: string) {
    let share = this.byKey.get(key);
    if (!share) this.byKey.set(key, (share = { limiter: new Limiter(this.max), users: 0, calls: 0 }));
    return share;
  }
}

/** A sync's view's room in its tenant's share (HttpEtcdClient.scoped), and what its calls met. */
interface ViewShare {
  /** Gives the room back; set while the view has it. */
  release?: () => void;
  /** The view's calls in flight at once within what it took of the server's (set with `release`). */
  calls?: Limiter;
  /** Taken by `hold`: kept until `release`, even while no call is in flight. */
  held: boolean;
  inFlight: number;
  /** Calls a member answered (any HTTP status), and calls that timed out. */
  answered: number;
  timedOut: number;
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('the hook call was abandoned');
}

type Json = Record<string, unknown>;

/**
 * The largest answer read from etcd: its JSON answers are small (a member list of 9 is about 2 KiB, a member add
 * answers the list too); a member that answers more is not etcd as this cluster runs it, and is not parsed.
 */
export const MAX_ANSWER_BYTES = 64 * 1024;
/**
 * The most pieces an answer's body is read in (Node emits one for each chunk it parses): at least 64 bytes a piece
 * on average for the largest answer, where etcd's answers come in a few. A member that sends its answer a byte a
 * chunk cost a callback per byte (156,912 in one health read, ~300 ms of the server's one thread); past this bound
 * the answer is refused as that member's (Invalid).
 */
export const MAX_ANSWER_PIECES = 1024;
/**
 * Informational (1xx) answers read before an answer: none. The client never sends `Expect: 100-continue` and etcd
 * answers none; a member that sends them (endless `102`, once ~500,000 parsed in one call) is refused at the first.
 */
export const MAX_INFORMATIONAL_ANSWERS = 0;
/**
 * The most bytes of a socket read Node's HTTP parser is handed at once (lib/http.ts sliceReads). The parser goes
 * through a whole read (up to 64 KiB), a callback per informational answer or body chunk, before a bound that trips
 * within it can stop it: the rest of one read of a member's endless `102`s was ~3,600 answers parsed after the first
 * refused it, of its one-byte chunks ~11,000 after the 1,024th; per call, on the server's one thread, beside every
 * other tenant's syncs. In 1 KiB slices, at most ~57 and ~170; etcd's answers (a few KiB) are a few slices.
 */
export const MAX_PARSED_BYTES = 1024;
/**
 * The most members a member list may hold: the largest cluster the CRD allows, an addition under way and room
 * for leftovers (MAX_DIALLED_PODS, hooks/etcdcluster/observe.ts), twice over. A longer list is no answer.
 */
export const MAX_LISTED_MEMBERS = 24;
/** Deadline of one HTTP call to etcd. */
export const CALL_TIMEOUT_MS = 1500;
/**
 * Calls to etcd in flight at once, over every sync of the server, and within one sync. A sync dials at most
 * MAX_DIALLED_PODS members (hooks/etcdcluster/sync.ts), three calls each and a member list: it fits in one round,
 * so nine silent members still cost one call deadline.
 */
export const SERVER_MAX_CALLS = 256;
export const SYNC_MAX_CALLS = 64;
/**
 * Calls to etcd in flight at once for one tenant (a namespace, over all its clusters): a quarter of the server's,
 * more than one sync of the largest cluster needs (MAX_DIALLED_PODS members, 37 calls). A namespace whose
 * members are slow or costly waits for its own turns; the others' calls are not queued behind it. Of the server's
 * calls a namespace's views take no more than they leave free (Shares, lib/shares.ts fairTake): six namespaces of 48
 * (more than 256) take 240 and leave the seventh 8, where before they held all 256 and it waited for them.
 */
export const TENANT_MAX_CALLS = 48;
/**
 * The syncs of one tenant that dial at once, at most: each view takes at least TENANT_MAX_CALLS / TENANT_MAX_SYNCS
 * (24) of its tenant's share, whatever its own cap on calls (a sync of one member needs 5). The share is counted in
 * calls, and a sync's calls are few when its cluster is small: counted only by them, 9 syncs of a namespace's
 * single-member clusters fitted at once, more than Metacontroller's 5 workers (shared by every namespace), each held
 * up to a call deadline or two by members that are silent or answer slowly; now at most 2 of the workers wait on one
 * namespace's members (a sync of 9 members, 37 calls, dials alone), the namespace's other syncs answered 429.
 * The count is kept in each process: with the Deployment's replicas told (METAOPS_REPLICAS), each allows
 * perReplica(TENANT_MAX_SYNCS, replicas) (lib/server-replicas.ts), so that the namespace's syncs stay within it over all of them.
 */
export const TENANT_MAX_SYNCS = 2;
/** Total time a membership change may spend trying endpoints one after another. */
export const MUTATION_BUDGET_MS = 3000;
/**
 * The period over which a namespace's budget of calls to etcd refills: ten of EtcdCluster's resyncs (30 s,
 * hooks/etcdcluster/index.ts resyncPeriodSeconds).
 */
export const ETCD_CALLS_PERIOD_SECONDS = 300;
/**
 * The calls to etcd a namespace's EtcdCluster syncs may make per ETCD_CALLS_PERIOD_SECONDS (100 a second on average):
 * a sync of a cluster of n members at rest makes at most 4n + 1 (a member list and its version through each member,
 * each member's health, version and status), 13 for 3 members, so that 230 clusters of 3 members at rest, each synced
 * every 30 s, fit (or 81 of 9 members). Past it a sync starts only once the budget holds its 4n + 1 again (answered
 * at once with Synced False, WaitingForNamespaceShare, the status kept): a namespace's many clusters, or its edits,
 * make at most this many calls, whatever their number. A guard against a namespace's runaway syncs, set far above
 * what its clusters make at rest: a namespace past it has its larger clusters wait longest (the smaller ones' syncs
 * fit the budget as it refills first), so it must not be reached by clusters at rest (3,000 was: 41 clusters of one
 * namespace, some never synced again in two hours, an attack simulation of 2026-11-30). The calls in flight are
 * bounded apart from it (TENANT_MAX_CALLS, at most 2 syncs of a namespace at once).
 */
export const ETCD_CALLS_PER_PERIOD = 30_000;
/** What an etcd version looks like; anything else a member answers is not reported. */
const VERSION = /^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]{1,40})?$/;

/** The gateway prefixes by etcd version: /v3 (3.4+), /v3beta (3.3), /v3alpha (3.2 and older). */
export const GATEWAY_PREFIXES = ['/v3', '/v3beta', '/v3alpha'];
/**
 * Endpoints whose prefix is remembered, the least recently used forgotten first (and learnt again): the client
 * lives as long as the server, and every member of every cluster, ever, is an endpoint.
 */
export const MAX_KNOWN_PREFIXES = 1024;
/**
 * The endpoints whose prefix one namespace (a view's tenant) has remembered at most: a quarter of MAX_KNOWN_PREFIXES,
 * its own least recently used forgotten first (lib/shares.ts NamespaceShares), as the TLS clients are shared
 * (clientcache.ts). The server's plain client is one for every namespace: without shares one namespace's members
 * (their names its to choose, ordinals only growing) pushed every other namespace's out, and each of their calls
 * asked /v3 and /v3beta again before /v3alpha (etcd 3.2, the default version).
 */
export const MAX_KNOWN_PREFIXES_PER_NAMESPACE = MAX_KNOWN_PREFIXES / 4;
/**
 * The bytes of TLS sessions one client remembers at most, the oldest forgotten first (and the count bound,
 * MAX_KNOWN_PREFIXES, kept): a session as Node hands it over carries the member's certificate, which the member
 * chooses (up to the 32 KiB the chain check lets through, and a TLS 1.2 ticket of up to 64 KiB more). The server keeps
 * a client per TLS identity (64, hooks/etcdcommon/index.ts): their sessions together stay within 128 MiB.
 */
export const MAX_SESSION_BYTES = 2 * 1024 * 1024;
/** A session larger than this is not remembered (the member's next connection is a full handshake). */
export const MAX_SESSION_SIZE = 128 * 1024;

/**
 * What the hook server's TLS client offers etcd: TLS 1.2 (its calls read the member's chain before OpenSSL verifies it:
 * lib/tls-inspect.ts, which offers TLS 1.2 only), key exchange on elliptic curves only (X25519,
 * P-256, P-384: a member that picks finite-field Diffie-Hellman chooses its prime, and a prime of 10,000 bits costs
 * the server's one thread a long exponentiation per handshake). Every etcd 3.x speaks these (Go's crypto/tls never
 * offered DHE; its TLS 1.2 suites are ECDHE with AES-GCM or ChaCha20).
 */
export const CLIENT_TLS = {
  minVersion: 'TLSv1.2',
  ciphers: [
    'TLS_AES_128_GCM_SHA256',
    'TLS_AES_256_GCM_SHA384',
    'TLS_CHACHA20_POLY1305_SHA256',
    'ECDHE-ECDSA-AES128-GCM-SHA256',
    'ECDHE-RSA-AES128-GCM-SHA256',
    'ECDHE-ECDSA-AES256-GCM-SHA384',
    'ECDHE-RSA-AES256-GCM-SHA384',
    'ECDHE-ECDSA-CHACHA20-POLY1305',
    'ECDHE-RSA-CHACHA20-POLY1305',
  ].join(':'),
  ecdhCurve: 'X25519:P-256:P-384',
} as const;

/**
 * TLS sessions by member (host and port), the oldest first, and their bytes: at most MAX_KNOWN_PREFIXES of them and
 * MAX_SESSION_BYTES in all; a session larger than MAX_SESSION_SIZE is not kept (the member's last one forgotten).
 */
export class Sessions extends Map<string, Buffer> {
  /** The bytes of the sessions kept. */
  bytes = 0;

  /** Keeps `session` as `key`'s newest, then forgets the oldest while more are kept than the bounds allow. */
  remember(key: string, session: Buffer): void {
    this.delete(key);
    if (session.length > MAX_SESSION_SIZE) return;
    super.set(key, session);
    this.bytes += session.length;
    while (this.size > MAX_KNOWN_PREFIXES || this.bytes > MAX_SESSION_BYTES) this.delete(this.keys().next().value!);
  }

  override set(key: string, session: Buffer): this {
    this.remember(key, session);
    return this;
  }

  override delete(key: string): boolean {
    const known = super.get(key);
    if (known) this.bytes -= known.length;
    return super.delete(key);
  }

  override clear(): void {
    super.clear();
    this.bytes = 0;
  }
}

export class HttpEtcdClient implements EtcdClient {
  private readonly timeoutMs: number;
  /** The hook call's signal (withSignal): every call stops when it aborts. */
  private signal: AbortSignal | undefined;
  private readonly resolve: (url: string) => string;
  /** The gateway prefix each endpoint serves, by the namespace of the view that learnt it (views without one: ''). */
  private readonly prefixByEndpoint = new NamespaceShares<string>(MAX_KNOWN_PREFIXES, MAX_KNOWN_PREFIXES_PER_NAMESPACE);
  /**
   * The TLS session each member (host and port dialled) last offered, resumed by the next connection to it: a
   * resumed handshake costs no signature with the client key. At most MAX_KNOWN_PREFIXES of them and
   * MAX_SESSION_BYTES in all, the oldest forgotten (one map, shared by every view of the client).
   */
  private readonly sessions = new Sessions();
  /** TLS handshakes made: in full (the client key signs) or resumed. */
  readonly handshakes = { full: 0, resumed: 0 };
  /** The server's cap on calls in flight (shared by the clients etcdClients makes). */
  readonly limiter: Limiter;
  /** The caps per tenant (shared by the clients etcdClients makes). */
  readonly tenants: Shares;
  /** A tenant's syncs dialling at once in this server, at most (HttpEtcdOptions.tenantMaxSyncs). */
  readonly tenantMaxSyncs: number;
  /**
   * A sync's view (scoped): the hosts it may dial, its own cap (`room`), what it takes of its tenant's share
   * (`reserve`: its cap, or a TENANT_MAX_SYNCS-th of the share if more), the address each host had in this sync, and
   * its room in the share.
   */
  private scope:
    | {
        dial: DialScope;
        limiter: Limiter;
        room: number;
        reserve: number;
        addresses: Map<string, Promise<LookupAddress>>;
        share: ViewShare;
      }
    | undefined;

  constructor(private readonly options: HttpEtcdOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? CALL_TIMEOUT_MS;
    this.resolve = options.resolve ?? ((u) => u);
    this.limiter = options.limiter ?? new Limiter(SERVER_MAX_CALLS);
    this.tenants = options.tenants ?? new Shares(TENANT_MAX_CALLS);
    this.tenantMaxSyncs = Math.max(1, options.tenantMaxSyncs ?? TENANT_MAX_SYNCS);
  }

  /** The same client (its gateway prefixes shared), every call of which stops when `signal` aborts. */
  withSignal(signal: AbortSignal): HttpEtcdClient {
    const scoped = Object.create(this) as HttpEtcdClient;
    scoped.signal = signal;
    return scoped;
  }

  /**
   * One sync's view (its gateway prefixes and the server's cap shared): its signal, the only host names it
   * dials, each looked up once (every call of the sync reaches the address the first one reached: the identity
   * a member proved in one call holds for the next), and at most `maxCalls` of its calls in flight.
   */
  scoped(dial: DialScope): HttpEtcdClient {
    const view = this.withSignal(dial.signal);
    const wanted = Math.max(1, dial.maxCalls ?? SYNC_MAX_CALLS);
    const room = dial.tenant === undefined ? wanted : Math.min(wanted, this.tenants.max);
    // However few calls the view makes, it takes a tenantMaxSyncs-th of the share: a tenant's views dial at most
    // tenantMaxSyncs at a time (TENANT_MAX_SYNCS over the Deployment's replicas), so that its small clusters' syncs
    // cannot hold every one of the hook's callers.
    const reserve = Math.min(this.tenants.max, Math.max(room, Math.ceil(this.tenants.max / this.tenantMaxSyncs)));
    view.scope = {
      dial,
      limiter: new Limiter(room),
      room,
      reserve,
      addresses: new Map(),
      share: { held: false, inFlight: 0, answered: 0, timedOut: 0 },
    };
    return view;
  }

  /** The view's room in its tenant's share, taken now until `release`, or false (nothing taken, nothing dialled). */
  hold(): boolean {
    const scope = this.scope;
    if (!scope || scope.dial.tenant === undefined) return true;
    const share = scope.share;
    if (!this.take(scope.dial.tenant)) return false;
    share.held = true;
    return true;
  }

  /** Gives back the room `hold` took (at once, or when the view's last call in flight ends). */
  release(): void {
    const share = this.scope?.share;
    if (!share) return;
    share.held = false;
    if (share.inFlight === 0) this.giveBack(share);
  }

  /** The seconds until the view's tenant's budget holds `need` calls (0: now; a view without a tenant: always 0). */
  budgetWait(need: number, now: Date): number {
    const tenant = this.scope?.dial.tenant;
    if (tenant === undefined) return 0;
    return this.tenants.budget.waitFor(tenant, this.tenants.callsPerPeriod, need, now);
  }

  /** Whether the view made calls, none of which was answered, and some timed out: its members are silent. */
  silent(): boolean {
    const share = this.scope?.share;
    return share !== undefined && share.timedOut > 0 && share.answered === 0;
  }

  async memberList(endpoints: string[], accept?: (clusterId: string | undefined) => boolean) {
    // Only the first answer taken is needed: the calls to the other endpoints stop once it is (nothing more parsed).
    const taken = new AbortController();
    const view = this.withSignal(this.signal ? AbortSignal.any([this.signal, taken.signal]) : taken.signal);
    try {
      return await view.any(endpoints, (ep) => view.listThrough(ep, accept));
    } finally {
      taken.abort(new EtcdError('another member answered the member list', 'Unreachable'));
    }
  }

  /** The member list as one endpoint answers it, when it is of the cluster `accept` takes. */
  private async listThrough(ep: string, accept?: (clusterId: string | undefined) => boolean) {
    const body = await this.rpc(ep, '/cluster/member/list', { linearizable: true });
    const clusterId = idOf((body['header'] as Json | undefined)?.['cluster_id']);
    if (accept && !accept(clusterId))
      throw new EtcdError(`${ep} answered for another etcd cluster (${clusterId ?? 'no cluster ID'})`, 'Foreign');
    const listed = Array.isArray(body['members']) ? (body['members'] as Json[]) : [];
    // More members than any cluster the CRD allows: not this cluster's etcd as it runs it (refused, said so).
    if (listed.length > MAX_LISTED_MEMBERS)
      throw new EtcdError(
        `${ep} answered a member list of ${listed.length} members, more than the ${MAX_LISTED_MEMBERS} a cluster may list: the answer is refused`,
        'Invalid',
      );
    const members = listed.map(toMember);
    let clusterVersion: string | undefined;
    try {
      clusterVersion = ((await this.get(ep, '/version')) as { etcdcluster?: unknown }).etcdcluster as
        string | undefined;
    } catch {
      clusterVersion = undefined;
    }
    const answer: MemberListAnswer = { members };
    if (typeof clusterVersion === 'string' && VERSION.test(clusterVersion)) answer.clusterVersion = clusterVersion;
    if (clusterId) answer.clusterId = clusterId;
    return answer;
  }

  async memberAdd(endpoints: string[], peerURL: string, learner: boolean) {
    return this.first(endpoints, async (ep) => {
      const body = await this.rpc(
        ep,
        '/cluster/member/add',
        learner ? { peerURLs: [peerURL], isLearner: true } : { peerURLs: [peerURL] },
      );
      return toMember((body['member'] as Json | undefined) ?? {});
    });
  }

  async memberRemove(endpoints: string[], id: string) {
    await this.first(endpoints, (ep) => this.rpc(ep, '/cluster/member/remove', { ID: id }));
  }

  async memberPromote(endpoints: string[], id: string) {
    await this.first(endpoints, (ep) => this.rpc(ep, '/cluster/member/promote', { ID: id }));
  }

  async alarms(endpoints: string[]): Promise<EtcdAlarm[]> {
    return this.any(endpoints, async (ep) => {
      const body = await this.rpc(ep, '/maintenance/alarm', { action: 'GET' });
      const listed = Array.isArray(body['alarms']) ? (body['alarms'] as unknown[]).slice(0, MAX_LISTED_ALARMS) : [];
      // Read by type: an alarm without a member ID, or of a kind not spelled as etcd's (NONE: the enum's 0,
      // left out of the JSON), is none.
      return listed.flatMap((raw) => {
        const a = raw as { memberID?: unknown; alarm?: unknown } | null;
        const memberId = idOf(a?.memberID);
        const alarm = a?.alarm;
        return memberId && typeof alarm === 'string' && /^[A-Z]{1,16}$/.test(alarm) && alarm !== 'NONE'
          ? [{ memberId, alarm }]
          : [];
      });
    });
  }

  async alarmDisarm(endpoints: string[], a: EtcdAlarm) {
    await this.first(endpoints, (ep) =>
      this.rpc(ep, '/maintenance/alarm', { action: 'DEACTIVATE', memberID: a.memberId, alarm: a.alarm }),
    );
  }

  async health(clientURL: string): Promise<MemberHealth> {
    try {
      // Asked together: a silent member costs one deadline, not three (perf: docs/performance.md).
      const [health, version, status] = await Promise.all([
        this.get(clientURL, '/health', true) as Promise<{ health?: unknown; reason?: unknown }>,
        this.get(clientURL, '/version') as Promise<{ etcdserver?: unknown }>,
        this.rpc(clientURL, '/maintenance/status', {}).catch(() => ({}) as Json),
      ]);
      const leader =
        typeof status['leader'] === 'string' && /^[0-9]{1,20}$/.test(status['leader']) ? status['leader'] : undefined;
      const healthy = health.health === true || health.health === 'true';
      const result: MemberHealth = { healthy };
      if (typeof version.etcdserver === 'string' && VERSION.test(version.etcdserver))
        result.version = version.etcdserver;
      if (leader) result.leader = leader;
      // Who answered: the IDs in the status answer's header (checked by the caller against its own cluster).
      const header = status['header'] as Json | undefined;
      const clusterId = idOf(header?.['cluster_id']);
      const memberId = idOf(header?.['member_id']);
      if (clusterId) result.clusterId = clusterId;
      if (memberId) result.memberId = memberId;
      withSize(result, status['dbSize']);
      // etcd 3.4+ says why it is unhealthy (alarmNamed); before, the alarms are asked for (alarmBefore34).
      const named = healthy ? undefined : alarmNamed(health.reason, status['errors']);
      if (named) result.alarm = named;
      else if (!healthy && memberId && result.version && before34(result.version))
        await this.alarmBefore34(clientURL, result);
      return result;
    } catch (err) {
      if (err instanceof EtcdError && err.code === 'TLS')
        return { healthy: false, error: err.message, tls: err.message };
      return { healthy: false, error: (err as Error).message };
    }
  }

  /**
   * etcd before 3.4 names no reason in /health (`{"health":"false"}` under an alarm as without a leader) and no
   * errors in its status: an unhealthy member of such a version that answered as itself is asked for the cluster's
   * alarms (Maintenance Alarm GET, through raft: without quorum it fails, and the member is unhealthy as before).
   */
  private async alarmBefore34(clientURL: string, result: MemberHealth): Promise<void> {
    const kinds = await this.rpc(clientURL, '/maintenance/alarm', { action: 'GET' }).then(
      (body): unknown[] =>
        (Array.isArray(body['alarms']) ? (body['alarms'] as unknown[]).slice(0, MAX_LISTED_ALARMS) : []).map(
          (a) => (a as { alarm?: unknown } | null)?.alarm,
        ),
      (): unknown[] => [],
    );
    if (kinds.includes('CORRUPT')) result.alarm = 'CORRUPT';
    else if (kinds.includes('NOSPACE')) result.alarm = 'NOSPACE';
  }

  /**
   * A read through every endpoint at once: the first success wins. A rejection from one member is not the
   * cluster's answer (a learner refuses the member list: "rpc not supported for learner"), so the others are
   * waited for; only when none succeeds is the call failed, with a rejection if there was one.
   */
  private async any<T>(endpoints: string[], call: (endpoint: string) => Promise<T>): Promise<T> {
    if (endpoints.length === 0) throw new EtcdError('no endpoints to reach etcd through', 'Unreachable');
    const errors: string[] = [];
    // The first failure of each kind, and how many endpoints failed so.
    const firstOf = new Map<EtcdError['code'], EtcdError>();
    const failedBy = new Map<EtcdError['code'], number>();
    const tls = new Set<string>();
    return new Promise<T>((resolve, reject) => {
      let left = endpoints.length;
      for (const ep of endpoints) {
        call(ep).then(resolve, (err: Error) => {
          if (err instanceof EtcdError) {
            if (!firstOf.has(err.code)) firstOf.set(err.code, err);
            failedBy.set(err.code, (failedBy.get(err.code) ?? 0) + 1);
            if (err.code === 'TLS') tls.add(err.message);
          }
          errors.push(`${ep}: ${err.message}`);
          if (--left > 0) return;
          const all = (code: EtcdError['code']) => failedBy.get(code) === endpoints.length;
          // Every endpoint failed its TLS handshake: say what that means, not which network error came.
          if (all('TLS')) reject(new EtcdError([...tls].sort().join('; '), 'TLS'));
          // Nothing was sent: there was no room in the tenant's share.
          else if (all('Busy')) reject(firstOf.get('Busy'));
          else
            reject(
              firstOf.get('Invalid') ??
                firstOf.get('Foreign') ??
                firstOf.get('Unauthenticated') ??
                firstOf.get('Rejected') ??
                new EtcdError(`no etcd endpoint answered (${errors.join('; ')})`, 'Unreachable'),
            );
        });
      }
    });
  }

  /**
   * A change through each endpoint in turn (never two at once: an add must not happen twice), within
   * MUTATION_BUDGET_MS; a rejection (etcd answered with an error) is not retried elsewhere.
   */
  private async first<T>(endpoints: string[], call: (endpoint: string) => Promise<T>): Promise<T> {
    if (endpoints.length === 0) throw new EtcdError('no endpoints to reach etcd through', 'Unreachable');
    const errors: string[] = [];
    const until = Date.now() + Math.max(this.options.budgetMs ?? MUTATION_BUDGET_MS, this.timeoutMs);
    for (const ep of endpoints) {
      if (Date.now() + this.timeoutMs > until) {
        errors.push('budget spent');
        break;
      }
      try {
        return await call(ep);
      } catch (err) {
        if (err instanceof EtcdError && err.code === 'Rejected') throw err;
        // No room in the tenant's share, and nothing sent through any endpoint: said as such (nothing changed).
        if (err instanceof EtcdError && err.code === 'Busy' && errors.length === 0) throw err;
        errors.push(`${ep}: ${(err as Error).message}`);
      }
    }
    throw new EtcdError(`no etcd endpoint answered (${errors.join('; ')})`, 'Unreachable');
  }

  /**
   * A call to the gateway under the prefix this endpoint serves: learnt on the first call and kept (a client
   * lives as long as the server, etcdcommon/index.ts etcdClients), tried again from the start when etcd stops serving it (an upgrade
   * from 3.3 to 3.5 drops /v3beta).
   */
  private async rpc(endpoint: string, path: string, body: Json): Promise<Json> {
    // Remembered in the share of the namespace whose sync dials it (one endpoint is one namespace's member).
    const tenant = this.scope?.dial.tenant ?? '';
    const known = this.prefixByEndpoint.get(tenant, endpoint);
    for (const prefix of known ? [known, ...GATEWAY_PREFIXES.filter((p) => p !== known)] : GATEWAY_PREFIXES) {
      const res = await this.call('POST', endpoint + prefix + path, body);
      const json = parse(res.body);
      // A path etcd does not serve is a plain-text 404; etcd's own errors are JSON with a gRPC code, and some
      // of them are 404s too (member not found).
      if (res.status === 404 && typeof json['code'] !== 'number') continue;
      // Now the namespace's most recently used; past its share or the bound over all, the oldest goes.
      this.prefixByEndpoint.set(tenant, endpoint, prefix);
      if (res.status !== 200 || typeof json['code'] === 'number') {
        // The member's words (its image is its cluster author's choice): one bounded line, as the API server's are.
        throw new EtcdError(
          boundedText(json['message'] ?? json['error'] ?? `HTTP ${res.status}`, MAX_ERROR_TEXT),
          authRefusal(res.status, json) ? 'Unauthenticated' : 'Rejected',
        );
      }
      return json;
    }
    this.prefixByEndpoint.delete(tenant, endpoint);
    throw new EtcdError(`${endpoint} has no v3 gateway`, 'Rejected');
  }

  private async get(endpoint: string, path: string, anyStatus = false): Promise<Json> {
    const res = await this.call('GET', endpoint + path);
    // /health answers 503 with its JSON verdict when the member is unhealthy (an alarm, no leader).
    if (res.status !== 200 && !(anyStatus && res.status === 503))
      throw new EtcdError(`${path}: HTTP ${res.status}`, 'Rejected');
    return parse(res.body);
  }

  private giveBack(share: ViewShare): void {
    const release = share.release;
    delete share.release;
    delete share.calls;
    release?.();
  }

  /**
   * The view's room in its tenant's share and its part of the server's calls (Shares.tryTake), taken unless the view
   * has them: whether it has them now.
   */
  private take(tenant: string): boolean {
    const scope = this.scope!;
    const share = scope.share;
    if (share.release) return true;
    const taken = this.tenants.tryTake(tenant, scope.reserve, scope.room);
    if (!taken) return false;
    share.release = taken;
    share.calls = new Limiter(taken.calls);
    return true;
  }

  /**
   * A call within the view's room in its tenant's share: taken at once if the view does not hold it (given back
   * when none of its calls is in flight), or the call fails at once (Busy), nothing sent: a namespace's syncs never
   * wait for one another's calls.
   */
  private async inShare<T>(tenant: string, task: () => Promise<T>): Promise<T> {
    const scope = this.scope!;
    const share = scope.share;
    if (!this.take(tenant))
      throw new EtcdError(
        `namespace ${tenant} has no room for this sync's calls in its share of calls to etcd (${this.tenants.max} in flight, and no more than it leaves free of the server's ${this.tenants.bound}): nothing was sent`,
        'Busy',
      );
    share.inFlight++;
    try {
      return await share.calls!.run(() => {
        // Spent from the tenant's budget of calls over time as it is made (a started sync is never cut).
        this.tenants.budget.spend(tenant);
        return task();
      }, this.signal);
    } finally {
      if (--share.inFlight === 0 && !share.held) this.giveBack(share);
    }
  }

  private call(method: string, url: string, body?: Json): Promise<{ status: number; body: string }> {
    const scope = this.scope;
    // A sync's view dials only its cluster's member names: anything else is refused before a socket opens.
    const host = new URL(url).hostname;
    if (scope && !scope.dial.allows(host))
      return Promise.reject(new EtcdError(`${host} is not an address of this cluster`, 'Refused'));
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const send = () =>
      call(new URL(this.resolve(url)), {
        method,
        headers: payload ? { 'content-type': 'application/json' } : {},
        ...(payload !== undefined ? { body: payload } : {}),
        timeoutMs: this.timeoutMs,
        ...(this.options.tls ? this.tlsOptions(url) : {}),
        // Every member's chain is checked before it is verified (lib/tls-inspect.ts): a tenant's members choose it.
        ...(this.options.tls ? { inspectChain: chainProblem } : {}),
        timeoutError: () => new EtcdError(`timed out after ${this.timeoutMs}ms`, 'Timeout'),
        maxBytes: MAX_ANSWER_BYTES,
        maxPieces: MAX_ANSWER_PIECES,
        maxInformational: MAX_INFORMATIONAL_ANSWERS,
        maxParsedBytes: MAX_PARSED_BYTES,
        ...(this.signal ? { signal: this.signal } : {}),
        ...(scope ? { lookup: this.pinnedLookup(scope) } : {}),
      })
        .then(
          (res) => {
            if (scope) scope.share.answered++;
            return res;
          },
          (err: unknown) => {
            if (scope && err instanceof EtcdError && err.code === 'Timeout') scope.share.timedOut++;
            throw err;
          },
        )
        .catch((err: unknown) => {
          const why = tlsFailure(err);
          if (why) this.sessions.delete(new URL(url).host);
          if (err instanceof AnswerTooLargeError)
            throw new EtcdError(
              `${new URL(url).host} answered more than the ${MAX_ANSWER_BYTES / 1024} KiB an etcd answer may have: the answer is refused`,
              'Invalid',
            );
          if (err instanceof InvalidAnswerError)
            throw new EtcdError(
              `${new URL(url).host} sent no etcd answer (${err.reason}): the answer is refused`,
              'Invalid',
            );
          throw why ? new EtcdError(why, 'TLS') : err;
        });
    // The sync's own cap first, then its room in its tenant's share (taken at once or not at all: never waited
    // for), then the server's: a sync that waits for the server holds none of its own turns.
    const server = () => this.limiter.run(send, this.signal);
    const tenant = scope?.dial.tenant;
    const shared = tenant === undefined ? server : () => this.inShare(tenant, server);
    return scope ? scope.limiter.run(shared, this.signal) : shared();
  }

  /**
   * The TLS options of a call: the operator's files, CLIENT_TLS, and the member's last session (resumed: no
   * signature with the client key); the sessions its server offers are kept, and a failed handshake forgets it.
   */
  private tlsOptions(url: string): Pick<CallOptions, 'tls' | 'tlsSessions'> {
    const key = new URL(url).host;
    const session = this.sessions.get(key);
    const handshakes = this.handshakes;
    return {
      tls: { ...this.options.tls, ...CLIENT_TLS, ...(session ? { session } : {}) },
      tlsSessions: {
        connected: (reused) => {
          if (reused) handshakes.resumed++;
          else handshakes.full++;
        },
        offered: (offered) => this.sessions.remember(key, offered),
      },
    };
  }

  /**
   * The lookup of a sync's view: a host name's fully qualified form (the scope's), looked up once per sync and
   * kept, so that every call of the sync to that member reaches the same address.
   */
  private pinnedLookup(scope: NonNullable<HttpEtcdClient['scope']>) {
    const lookup = this.options.dnsLookup ?? defaultLookup;
    return (
      hostname: string,
      options: { all?: boolean },
      done: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
    ) => {
      let found = scope.addresses.get(hostname);
      if (!found) {
        found = lookup(scope.dial.lookupName(hostname));
        scope.addresses.set(hostname, found);
      }
      found.then(
        (a) => (options.all ? done(null, [a]) : done(null, a.address, a.family)),
        (err: Error) => done(err, options.all ? [] : ''),
      );
    };
  }
}

function defaultLookup(name: string): Promise<LookupAddress> {
  return new Promise((resolve, reject) =>
    dnsLookup(name, { verbatim: true }, (err, address, family) => (err ? reject(err) : resolve({ address, family }))),
  );
}

function parse(text: string): Json {
  try {
    const value = parseJson(text) as unknown;
    return value && typeof value === 'object' ? (value as Json) : {};
  } catch {
    return { message: text.slice(0, 200) };
  }
}

function toMember(m: Json): EtcdMember {
  return {
    id: String(m['ID'] ?? ''),
    name: typeof m['name'] === 'string' ? m['name'] : '',
    peerURLs: Array.isArray(m['peerURLs']) ? (m['peerURLs'] as string[]) : [],
    clientURLs: Array.isArray(m['clientURLs']) ? (m['clientURLs'] as string[]) : [],
    isLearner: m['isLearner'] === true,
  };
}

/** Node's TLS error codes, by what they mean for the operator's identity and etcd's server certificate. */
const SERVER_NOT_TRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
]);
const CLIENT_REFUSED = new Set([
  'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE',
  'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA',
  'ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN',
  'ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED',
  'ERR_SSL_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE',
  'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED',
  'ERR_SSL_TLSV1_ALERT_ACCESS_DENIED',
]);

/**
 * The TLS alerts (RFC 8446 6.2) that say the server refused the client's certificate: bad_certificate,
 * unsupported_certificate, certificate_expired, certificate_unknown, unknown_ca, access_denied,
 * certificate_required. Through an inspected connection (lib/tls-inspect.ts) OpenSSL reports an alert as a write
 * error (EPROTO) whose message carries its number.
 */
const CLIENT_REFUSED_ALERTS = new Set([42, 43, 45, 46, 48, 49, 116]);

/** The alert number an EPROTO error's message names (`SSL alert number 48`), or -1. */
function alertOf(err: unknown): number {
  const message = String((err as { message?: unknown }).message ?? '');
  const at = message.indexOf('SSL alert number ');
  if (at < 0) return -1;
  const n = Number.parseInt(message.slice(at + 17, at + 20), 10);
  return Number.isFinite(n) ? n : -1;
}

/**
 * What a failed TLS handshake with etcd means, in words that stay the same between syncs; undefined when the
 * error is not about TLS (a refused connection, a timeout).
 */
export function tlsFailure(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return undefined;
  if (code === 'CERT_HAS_EXPIRED') return "etcd's server certificate has expired";
  if (code === 'CERT_NOT_YET_VALID') return "etcd's server certificate is not valid yet";
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return "etcd's server certificate does not name the member (its SANs must cover *.<cluster>.<namespace>.svc)";
  if (SERVER_NOT_TRUSTED.has(code)) return "etcd's server certificate is not signed by the CA in etcd-client-ca.crt";
  if (CLIENT_REFUSED.has(code) || (code === 'EPROTO' && CLIENT_REFUSED_ALERTS.has(alertOf(err))))
    return 'etcd refused the client certificate etcd-client.crt (not signed by a CA etcd trusts, or expired)';
  // TLS 1.2 (lib/tls-inspect.ts): etcd closes the handshake when it refuses the client certificate, and the close
  // may arrive as a reset that discards its alert.
  if ((err as { tlsStage?: unknown }).tlsStage === HANDSHAKE_RESET)
    return 'etcd refused the client certificate etcd-client.crt (it closed the TLS handshake once it had it: not signed by a CA etcd trusts, or expired)';
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER') return 'etcd does not serve TLS on its client port';
  // The member's chain, refused before it was verified (lib/tls-inspect.ts): the reason is stable.
  if (err instanceof ChainRefusedError) return `etcd's server certificate chain is refused unverified: ${err.reason}`;
  return undefined;
}
