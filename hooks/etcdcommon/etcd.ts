// A small client for etcd's HTTP/JSON gateway on the client port: member list/add/remove/promote, health,
// version and status. Every call has a hard deadline and a size limit; the work of one sync fits in a budget
// well below the hook route's deadline (8.5 s): reads go to every member at once (the member list takes the
// first answer; a member's health, version and status are asked together), so that silent members cost one
// call deadline, not one each; a membership change tries the endpoints in turn within MUTATION_BUDGET_MS.
import { call } from '../../lib/http.js';

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
  /** NOSPACE when the member raised that alarm (its backend reached the quota; it refuses writes). */
  alarm?: 'NOSPACE';
  /** What a failed TLS handshake with the member means (tls.ts), when that is why it did not answer. */
  tls?: string;
}

export interface TlsFiles {
  ca?: string;
  cert?: string;
  key?: string;
}

export interface EtcdClient {
  /** Lists members through the first endpoint that answers. */
  memberList(endpoints: string[]): Promise<{ members: EtcdMember[]; clusterVersion?: string }>;
  memberAdd(endpoints: string[], peerURL: string, learner: boolean): Promise<EtcdMember>;
  memberRemove(endpoints: string[], id: string): Promise<void>;
  memberPromote(endpoints: string[], id: string): Promise<void>;
  /** Health, version and leader of one member, through its own client URL. */
  health(clientURL: string): Promise<MemberHealth>;
  /** The same client, every call of which stops when `signal` aborts (clients without one ignore the signal). */
  withSignal?(signal: AbortSignal): EtcdClient;
}

export class EtcdError extends Error {
  constructor(
    message: string,
    readonly code: 'Unreachable' | 'Timeout' | 'Rejected' | 'TLS',
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
}

type Json = Record<string, unknown>;

/** The largest answer read from etcd: its JSON answers are small (a member list of 9 is about 2 KiB). */
export const MAX_ANSWER_BYTES = 1024 * 1024;
/** Deadline of one HTTP call to etcd. */
export const CALL_TIMEOUT_MS = 1500;
/** Total time a membership change may spend trying endpoints one after another. */
export const MUTATION_BUDGET_MS = 3000;
/** What an etcd version looks like; anything else a member answers is not reported. */
const VERSION = /^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]{1,40})?$/;

/** The gateway prefixes by etcd version: /v3 (3.4+), /v3beta (3.3), /v3alpha (3.2 and older). */
export const GATEWAY_PREFIXES = ['/v3', '/v3beta', '/v3alpha'];
/**
 * Endpoints whose prefix is remembered, the least recently used forgotten first (and learnt again): the client
 * lives as long as the server, and every member of every cluster, ever, is an endpoint.
 */
export const MAX_KNOWN_PREFIXES = 1024;

export class HttpEtcdClient implements EtcdClient {
  private readonly timeoutMs: number;
  /** The hook call's signal (withSignal): every call stops when it aborts. */
  private signal: AbortSignal | undefined;
  private readonly resolve: (url: string) => string;
  private readonly prefixByEndpoint = new Map<string, string>();

  constructor(private readonly options: HttpEtcdOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? CALL_TIMEOUT_MS;
    this.resolve = options.resolve ?? ((u) => u);
  }

  /** The same client (its gateway prefixes shared), every call of which stops when `signal` aborts. */
  withSignal(signal: AbortSignal): HttpEtcdClient {
    const scoped = Object.create(this) as HttpEtcdClient;
    scoped.signal = signal;
    return scoped;
  }

  async memberList(endpoints: string[]) {
    return this.any(endpoints, async (ep) => {
      const body = await this.rpc(ep, '/cluster/member/list', { linearizable: true });
      const members = ((body['members'] as Json[] | undefined) ?? []).map(toMember);
      let clusterVersion: string | undefined;
      try {
        clusterVersion = ((await this.get(ep, '/version')) as { etcdcluster?: unknown }).etcdcluster as
          string | undefined;
      } catch {
        clusterVersion = undefined;
      }
      return typeof clusterVersion === 'string' && VERSION.test(clusterVersion)
        ? { members, clusterVersion }
        : { members };
    });
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
      // etcd 3.4+ says why it is unhealthy; its NOSPACE alarm is also in the status' errors.
      const errors = Array.isArray(status['errors']) ? (status['errors'] as unknown[]) : [];
      if (
        !healthy &&
        (String(health.reason ?? '').includes('NOSPACE') || errors.some((e) => String(e).includes('NOSPACE')))
      )
        result.alarm = 'NOSPACE';
      return result;
    } catch (err) {
      if (err instanceof EtcdError && err.code === 'TLS')
        return { healthy: false, error: err.message, tls: err.message };
      return { healthy: false, error: (err as Error).message };
    }
  }

  /**
   * A read through every endpoint at once: the first success wins. A rejection from one member is not the
   * cluster's answer (a learner refuses the member list: "rpc not supported for learner"), so the others are
   * waited for; only when none succeeds is the call failed, with a rejection if there was one.
   */
  private async any<T>(endpoints: string[], call: (endpoint: string) => Promise<T>): Promise<T> {
    if (endpoints.length === 0) throw new EtcdError('no endpoints to reach etcd through', 'Unreachable');
    const errors: string[] = [];
    let rejection: EtcdError | undefined;
    const tls = new Set<string>();
    let tlsFailed = 0;
    return new Promise<T>((resolve, reject) => {
      let left = endpoints.length;
      for (const ep of endpoints) {
        call(ep).then(resolve, (err: Error) => {
          if (err instanceof EtcdError && err.code === 'Rejected') rejection ??= err;
          errors.push(`${ep}: ${err.message}`);
          if (err instanceof EtcdError && err.code === 'TLS') {
            tls.add(err.message);
            tlsFailed++;
          }
          if (--left > 0) return;
          // Every endpoint failed its TLS handshake: say what that means, not which network error came.
          if (tlsFailed === endpoints.length) reject(new EtcdError([...tls].sort().join('; '), 'TLS'));
          else reject(rejection ?? new EtcdError(`no etcd endpoint answered (${errors.join('; ')})`, 'Unreachable'));
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
    const known = this.prefixByEndpoint.get(endpoint);
    for (const prefix of known ? [known, ...GATEWAY_PREFIXES.filter((p) => p !== known)] : GATEWAY_PREFIXES) {
      const res = await this.call('POST', endpoint + prefix + path, body);
      const json = parse(res.body);
      // A path etcd does not serve is a plain-text 404; etcd's own errors are JSON with a gRPC code, and some
      // of them are 404s too (member not found).
      if (res.status === 404 && typeof json['code'] !== 'number') continue;
      this.prefixByEndpoint.delete(endpoint);
      this.prefixByEndpoint.set(endpoint, prefix);
      if (this.prefixByEndpoint.size > MAX_KNOWN_PREFIXES)
        this.prefixByEndpoint.delete(this.prefixByEndpoint.keys().next().value!);
      if (res.status !== 200 || typeof json['code'] === 'number') {
        throw new EtcdError(String(json['message'] ?? json['error'] ?? `HTTP ${res.status}`), 'Rejected');
      }
      return json;
    }
    this.prefixByEndpoint.delete(endpoint);
    throw new EtcdError(`${endpoint} has no v3 gateway`, 'Rejected');
  }

  private async get(endpoint: string, path: string, anyStatus = false): Promise<Json> {
    const res = await this.call('GET', endpoint + path);
    // /health answers 503 with its JSON verdict when the member is unhealthy (an alarm, no leader).
    if (res.status !== 200 && !(anyStatus && res.status === 503))
      throw new EtcdError(`${path}: HTTP ${res.status}`, 'Rejected');
    return parse(res.body);
  }

  private call(method: string, url: string, body?: Json): Promise<{ status: number; body: string }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return call(new URL(this.resolve(url)), {
      method,
      headers: payload ? { 'content-type': 'application/json' } : {},
      ...(payload !== undefined ? { body: payload } : {}),
      timeoutMs: this.timeoutMs,
      ...(this.options.tls ? { tls: this.options.tls } : {}),
      timeoutError: () => new EtcdError(`timed out after ${this.timeoutMs}ms`, 'Timeout'),
      maxBytes: MAX_ANSWER_BYTES,
      ...(this.signal ? { signal: this.signal } : {}),
    }).catch((err: unknown) => {
      const why = tlsFailure(err);
      throw why ? new EtcdError(why, 'TLS') : err;
    });
  }
}

function parse(text: string): Json {
  try {
    const value = JSON.parse(text) as unknown;
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
  if (CLIENT_REFUSED.has(code))
    return 'etcd refused the client certificate etcd-client.crt (not signed by a CA etcd trusts, or expired)';
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER') return 'etcd does not serve TLS on its client port';
  return undefined;
}
