// A small Kubernetes API client for what Metacontroller cannot do for a hook (the pods/ephemeralcontainers
// subresource). In a cluster it uses the pod's service account; elsewhere the current context of KUBECONFIG
// (server, CA or insecure-skip-tls-verify, bearer token or client certificate).
import { readFileSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { call, type CallOptions, MAX_READ_BYTES } from './http.js';
import { parseInPieces } from './json.js';
import type { KubeObject } from './metacontroller.js';

/** Preconditions of a write: the apiserver refuses it (409) when the object is no longer this one. */
export interface Precondition {
  uid?: string;
  resourceVersion?: string;
}

/** What an object reference in an event carries. */
export interface ObjectReference {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid?: string;
}

/** An events.k8s.io/v1 Event, as a hook reports a failure to act; the client adds who reports it. */
export interface KubeEvent {
  namespace: string;
  /** Deterministic for one occurrence, so that a repeat is refused (409) rather than a second event. */
  name: string;
  eventTime: Date;
  type: 'Normal' | 'Warning';
  /** The same reason as the condition it accompanies. */
  reason: string;
  action: string;
  note: string;
  regarding: ObjectReference;
  related?: ObjectReference;
}

/** Deadline of one call to the Kubernetes API. */
export const KUBE_CALL_TIMEOUT_MS = 3000;
export const REPORTING_CONTROLLER = 'metaops';
/**
 * The most of an API server's answer to an event write that is read: an Event is a few KB, and up to 64 writes
 * may be under way at once (lib/events.ts), so a hostile or broken server cannot make them hold 64 x 4 MiB.
 */
export const EVENT_ANSWER_BYTES = 64 * 1024;

/**
 * The largest object the API server can answer, as JSON: etcd stores a request of at most 1.5 MiB (its default
 * --max-request-bytes; the object is stored as protobuf, strings as they are), and the API server's JSON writes some
 * characters in six bytes (`<`, `>` and `&` as \u003c..., control characters as \u0000...), plus room for a list's
 * envelope (its metadata and continue token). A pod of 1 MB of `<` is 6,001,558 bytes as JSON: above the 4 MiB of
 * MAX_READ_BYTES, below this. Single-object reads and one-item pages read up to this; nothing else does.
 */
export const MAX_OBJECT_READ_BYTES = 6 * 1536 * 1024 + 64 * 1024;
/**
 * How many answers larger than MAX_READ_BYTES the process reads at once (every client shares them): a count or an
 * injector that reads several such objects concurrently waits its turn rather than multiplying the memory held
 * (each is held as text and parsed: a few times its size). The turn is taken once the answer is known to be larger
 * (its Content-Length, or the bytes read passing MAX_READ_BYTES; the answer paused meanwhile, so a waiting call holds
 * at most what any other read may), never for an answer that is not: one namespace's large pods never hold up the
 * reads of another's small ones. A call that cannot take a turn before its deadline fails as a slow API server's
 * call does.
 */
export const LARGE_READS = 2;

/** A count of turns, taken in order and given back; a waiter stops waiting when its signal aborts or time is up. */
export class ReadTurns {
  private free: number;
  private readonly waiting: Array<() => void> = [];
  constructor(readonly size: number) {
    this.free = size;
  }

  get available(): number {
    return this.free;
  }

  /** Waits for a turn (at most `timeoutMs`, or until `signal` aborts); resolves to the function that gives it back. */
  take(timeoutMs: number, signal?: AbortSignal): Promise<() => void> {
    let given = false;
    const release = () => {
      if (given) return;
      given = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.free += 1;
    };
    if (this.free > 0) {
      this.free -= 1;
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      const stop = (err: Error) => {
        const at = this.waiting.indexOf(granted);
        if (at >= 0) this.waiting.splice(at, 1);
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
        reject(err);
      };
      const granted = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
        resolve(release);
      };
      const aborted = () =>
        stop(signal?.reason instanceof Error ? signal.reason : new Error('the hook call was abandoned'));
      const timer = setTimeout(
        () => stop(new KubeError(0, `no turn to read a large answer within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiting.push(granted);
      if (signal?.aborted) aborted();
      else signal?.addEventListener('abort', aborted, { once: true });
    });
  }
}

/** The process's turns for large answers (LARGE_READS). */
export const largeReads = new ReadTurns(LARGE_READS);

/** Whom a write is sent as (Kubernetes impersonation): a user, with their UID, groups and extra information. */
export interface Impersonation {
  user: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/**
 * The most bytes of impersonation headers sent with a request: the API server (Go's net/http) reads at most 1 MiB of
 * headers; a user whose groups take more cannot be impersonated.
 */
export const MAX_IMPERSONATION_BYTES = 512 * 1024;

/**
 * A header value as it is sent, or undefined for a value that a header cannot carry exactly: empty, with a character
 * outside printable ASCII (Node.js writes the bytes of other characters as it pleases: latin1 or UTF-8 depending
 * on the call, so the API server could read another name), or with white space at either end (which HTTP drops:
 * " alice" would be read as "alice", another user).
 */
function headerValue(text: string): string | undefined {
  if (text === '' || !/^[\x20-\x7e]+$/.test(text) || /^ | $/.test(text)) return undefined;
  return text;
}

/** A byte of an extra key sent as it is: a header name's token characters, lower case (the API server lowercases). */
const KEY_BYTE = /^[a-z0-9!#$&'*+\-.^_`|~]$/;

/**
 * An extra key as the header name's tail: every byte but lower-case token characters percent-encoded (`%XX`), as
 * the API server undoes it (it lowercases the header name, then unescapes it as a URL path): upper-case letters too,
 * so that a key keeps its case.
 */
export function extraKeyHeader(key: string): string {
  let out = '';
  for (const byte of Buffer.from(key, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += KEY_BYTE.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * The headers that make the API server take a request as `who`'s (Impersonate-User, Impersonate-Uid, one
 * Impersonate-Group per group, one Impersonate-Extra-<key> per value), or why they cannot say who exactly: a name
 * a header cannot carry, or more than MAX_IMPERSONATION_BYTES. Never an approximation of the user.
 */
export function impersonationHeaders(
  who: Impersonation,
): { headers: Record<string, string | string[]> } | { problem: string } {
  const user = headerValue(who.user);
  if (user === undefined) return { problem: 'its user name cannot be sent in an HTTP header as it is' };
  const headers: Record<string, string | string[]> = { 'impersonate-user': user };
  let bytes = 'impersonate-user: \r\n'.length + user.length;
  if (who.uid) {
    const uid = headerValue(who.uid);
    if (uid === undefined) return { problem: 'its UID cannot be sent in an HTTP header as it is' };
    headers['impersonate-uid'] = uid;
    bytes += 'impersonate-uid: \r\n'.length + uid.length;
  }
  const groups: string[] = [];
  for (const group of who.groups) {
    const value = headerValue(group);
    if (value === undefined) return { problem: 'one of its groups cannot be sent in an HTTP header as it is' };
    groups.push(value);
    bytes += 'impersonate-group: \r\n'.length + value.length;
    if (bytes > MAX_IMPERSONATION_BYTES) break;
  }
  if (groups.length > 0) headers['impersonate-group'] = groups;
  for (const [key, values] of Object.entries(who.extra ?? {})) {
    if (key === '') return { problem: 'one of its extra keys is empty' };
    const name = `impersonate-extra-${extraKeyHeader(key)}`;
    const sent: string[] = [];
    for (const v of values) {
      const value = headerValue(v);
      if (value === undefined)
        return { problem: `a value of its extra ${key} cannot be sent in an HTTP header as it is` };
      sent.push(value);
      bytes += name.length + 4 + value.length;
    }
    if (sent.length > 0) headers[name] = sent;
  }
  if (bytes > MAX_IMPERSONATION_BYTES)
    return {
      problem: `its user information takes more than the ${MAX_IMPERSONATION_BYTES / 1024} KiB of headers the hook server sends (too many groups)`,
    };
  return { headers };
}

/** One page of a list: its objects, and the token of the next page when there is one. */
export interface ListPage {
  items: KubeObject[];
  continue?: string;
}

export interface ListOptions {
  labelSelector?: string;
  /** The most objects in the page (the API server may answer fewer). */
  limit: number;
  /** The token of the previous page. */
  continue?: string;
  /** The largest answer read, in bytes (default: lib/http.ts MAX_READ_BYTES). */
  maxBytes?: number;
  /**
   * Only the objects' metadata (a PartialObjectMetadataList: names, labels, annotations, owners), never their spec
   * or status: how an object too large to read whole is still named and passed.
   */
  metadataOnly?: boolean;
}

/** What the API server is asked to answer a metadata-only list with (and plain JSON, from one that cannot). */
export const METADATA_LIST_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

export interface GetOptions {
  /** The largest answer read, in bytes (default: lib/http.ts MAX_READ_BYTES; at most MAX_OBJECT_READ_BYTES). */
  maxBytes?: number;
}

export interface KubeApi {
  /**
   * Reads one object; undefined when it does not exist (404). `namespace` is '' for a cluster-scoped object.
   */
  get(
    apiVersion: string,
    resource: string,
    namespace: string,
    name: string,
    options?: GetOptions,
  ): Promise<KubeObject | undefined>;
  /** Lists one page of the objects of a namespace (`labelSelector`, `limit`, `continue`). */
  list?(apiVersion: string, resource: string, namespace: string, options: ListOptions): Promise<ListPage>;
  /**
   * Creates an object and answers what the API server made of it: for a review (a SubjectAccessReview) that is
   * the answer itself. `namespace` is '' for a cluster-scoped resource.
   */
  create?(apiVersion: string, resource: string, namespace: string, body: Record<string, unknown>): Promise<KubeObject>;
  /**
   * Adds ephemeral containers to a pod (strategic merge by name on the ephemeralcontainers subresource), only if
   * the pod is still the one of the precondition.
   */
  addEphemeralContainers(
    namespace: string,
    pod: string,
    containers: Array<Record<string, unknown>>,
    precondition?: Precondition,
  ): Promise<void>;
  /**
   * Records an event (events.k8s.io/v1, reportingController `metaops`); an event that exists already is no error
   * (`'exists'`: its name is deterministic, so this is a repeat of that occurrence).
   */
  createEvent?(event: KubeEvent): Promise<'created' | 'exists' | void>;
  /**
   * The same client, every call of which stops when `signal` aborts (the hook call's deadline passed): a call in
   * flight is abandoned rather than finished after the caller was answered. Clients without it ignore the signal.
   */
  withSignal?(signal: AbortSignal): KubeApi;
  /**
   * The same client, every call of which the API server takes as `who`'s (impersonation: RBAC and admission decide
   * on that user, not on the client's own). The client's own identity must be allowed to impersonate them; a user
   * the headers cannot name exactly is thrown (KubeError, AuthorUnverified), never approximated.
   */
  impersonating?(who: Impersonation): KubeApi;
  /** Marks an existing event as a series (events.k8s.io/v1 `series`, a merge PATCH): seen `count` times, last at `lastObservedTime`. */
  patchEventSeries?(namespace: string, name: string, series: EventSeries): Promise<void>;
}

/** events.k8s.io/v1 EventSeries: how often an event recurred (at least 2) and when it was last seen. */
export interface EventSeries {
  count: number;
  lastObservedTime: Date;
}

/** A MicroTime as the API server takes it (RFC 3339 with microseconds). */
export function microTime(time: Date): string {
  return time.toISOString().replace(/Z$/, '000Z');
}

/** An event as the API server takes it: eventTime in microseconds, the reporting controller and instance. */
export function eventObject(event: KubeEvent, instance: string): Record<string, unknown> {
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: event.name, namespace: event.namespace },
    eventTime: microTime(event.eventTime),
    reportingController: REPORTING_CONTROLLER,
    reportingInstance: instance,
    action: event.action,
    reason: event.reason,
    type: event.type,
    note: event.note.slice(0, 1024),
    regarding: event.regarding,
    ...(event.related ? { related: event.related } : {}),
  };
}

/** The most of an API server's own words an error carries (they reach logs and, through hooks, statuses). */
export const MAX_ERROR_TEXT = 200;

/**
 * Text from elsewhere as one bounded line: control characters (line breaks, terminal escapes) and runs of white
 * space become one space, and the text is cut to `max` characters. An API server, or anything answering in its place,
 * may say anything, at any length: its words are logged as a line of metaops, never verbatim.
 */
export function boundedText(value: unknown, max: number): string {
  // \p{Cc}: the control characters (line breaks, terminal escapes); \s: line and paragraph separators, white space.
  const line = String(value)
    .replace(/[\p{Cc}\s]+/gu, ' ')
    .trim();
  return line.length > max ? `${line.slice(0, max - 3)}...` : line;
}

export class KubeError extends Error {
  /** The apiserver's Status reason (Forbidden, NotFound, Conflict, Invalid...), or one from the HTTP status. */
  readonly reason: string;

  constructor(
    readonly status: number,
    message: string,
    reason?: string,
  ) {
    super(message);
    this.reason = reason && /^[A-Za-z]{1,64}$/.test(reason) ? reason : reasonOf(status);
  }
}

function reasonOf(status: number): string {
  const known: Record<number, string> = {
    0: 'Unreachable',
    400: 'BadRequest',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'NotFound',
    409: 'Conflict',
    422: 'Invalid',
    429: 'TooManyRequests',
  };
  return Object.hasOwn(known, status) ? known[status]! : status >= 500 ? 'ServerError' : `HTTP${status}`;
}

/** The stable reason of any error of a call (a KubeError's, else Unreachable): fit for a condition. */
/**
 * The stable reason of a failed call: the API server's own, `Unreachable` for a network failure or a deadline,
 * `InvalidAnswer` for anything else (an answer the hook could not use): never a programming error disguised as a
 * network one.
 */
export function errorReason(err: unknown): string {
  if (err instanceof KubeError) return err.reason;
  const code = (err as { code?: unknown } | null)?.code;
  const name = (err as { name?: unknown } | null)?.name;
  if (typeof code === 'string' && /^(E[A-Z]+|ERR_[A-Z_]+)$/.test(code)) return 'Unreachable';
  if (name === 'TimeoutError' || name === 'AbortError' || name === 'AnswerTooLargeError') return 'Unreachable';
  return 'InvalidAnswer';
}

export interface Connection {
  server: string;
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  token?: string;
  /** A file the bearer token is read from, again whenever it changes (bound service-account tokens rotate). */
  tokenFile?: string;
  insecure?: boolean;
}

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The in-cluster connection: the service account's CA, and its token file (read at each change, not once). */
export function fromServiceAccount(dir = SA_DIR, env: NodeJS.ProcessEnv = process.env): Connection | undefined {
  const host = env['KUBERNETES_SERVICE_HOST'];
  const port = env['KUBERNETES_SERVICE_PORT'];
  if (!host || !port) return undefined;
  try {
    readFileSync(`${dir}/token`);
    return {
      server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
      ca: readFileSync(`${dir}/ca.crt`),
      tokenFile: `${dir}/token`,
    };
  } catch {
    return undefined;
  }
}

function data(value: unknown, file: unknown): Buffer | undefined {
  if (typeof value === 'string') return Buffer.from(value, 'base64');
  if (typeof file === 'string') return readFileSync(file);
  return undefined;
}

/** The connection a kubeconfig's current context names (the YAML parser is loaded only when one is used). */
export async function fromKubeconfig(path: string): Promise<Connection> {
  // perf: loaded on first use, only the CLI of backup Jobs reads kubeconfig YAML (docs/performance.md).
  const { default: YAML } = await import('yaml');
  const cfg = YAML.parse(readFileSync(path, 'utf8')) as any;
  const ctxName = cfg['current-context'];
  const ctx = (cfg.contexts ?? []).find((c: any) => c.name === ctxName)?.context ?? cfg.contexts?.[0]?.context;
  const cluster = (cfg.clusters ?? []).find((c: any) => c.name === ctx?.cluster)?.cluster;
  const user = (cfg.users ?? []).find((u: any) => u.name === ctx?.user)?.user ?? {};
  if (!cluster?.server) throw new Error(`kubeconfig ${path}: no server for context ${ctxName}`);
  const conn: Connection = { server: cluster.server };
  const ca = data(cluster['certificate-authority-data'], cluster['certificate-authority']);
  if (ca) conn.ca = ca;
  if (cluster['insecure-skip-tls-verify']) conn.insecure = true;
  if (user.token) conn.token = user.token;
  else if (typeof user.tokenFile === 'string') conn.tokenFile = user.tokenFile;
  const cert = data(user['client-certificate-data'], user['client-certificate']);
  const key = data(user['client-key-data'], user['client-key']);
  if (cert) conn.cert = cert;
  if (key) conn.key = key;
  return conn;
}

/**
 * The path of a resource's collection (core group under /api, the others under /apis), in a namespace, or
 * cluster-wide when `namespace` is ''.
 */
export function collectionPath(apiVersion: string, resource: string, namespace: string): string {
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const scope = namespace === '' ? '' : `/namespaces/${encodeURIComponent(namespace)}`;
  return `${base}${scope}/${encodeURIComponent(resource)}`;
}

/** The path of an object: namespaced, or cluster-scoped when `namespace` is ''. */
export function objectPath(apiVersion: string, resource: string, namespace: string, name: string): string {
  return `${collectionPath(apiVersion, resource, namespace)}/${encodeURIComponent(name)}`;
}

export class HttpKubeApi implements KubeApi {
  /** The connection and the token read, shared by every view withSignal makes of this client. */
  private readonly cache: {
    conn?: Connection;
    token?: { file: string; mtimeMs: number; size: number; ino: number; value: string };
  };
  /** The hook call's signal (withSignal): every call stops when it aborts. */
  private signal: AbortSignal | undefined;
  /** The impersonation headers of every call (impersonating), when set. */
  private asWho: Record<string, string | string[]> | undefined;

  constructor(
    private readonly timeoutMs = KUBE_CALL_TIMEOUT_MS,
    conn?: Connection,
  ) {
    this.cache = conn ? { conn } : {};
  }

  withSignal(signal: AbortSignal): HttpKubeApi {
    const scoped = Object.create(this) as HttpKubeApi;
    scoped.signal = signal;
    return scoped;
  }

  impersonating(who: Impersonation): HttpKubeApi {
    const made = impersonationHeaders(who);
    if ('problem' in made)
      throw new KubeError(0, `cannot act as ${who.user.slice(0, 64)}: ${made.problem}`, 'AuthorUnverified');
    const scoped = Object.create(this) as HttpKubeApi;
    scoped.asWho = made.headers;
    return scoped;
  }

  private async connection(): Promise<Connection> {
    if (this.cache.conn) return this.cache.conn;
    const kubeconfig = process.env['KUBECONFIG'];
    const conn = kubeconfig ? await fromKubeconfig(kubeconfig.split(':')[0]!) : fromServiceAccount();
    if (!conn) throw new KubeError(0, 'no Kubernetes API: neither KUBECONFIG nor an in-cluster service account');
    this.cache.conn = conn;
    return conn;
  }

  /** The bearer token: the fixed one, or the token file's content, read again when the file changed. */
  private bearer(conn: Connection): string | undefined {
    if (!conn.tokenFile) return conn.token;
    const file = conn.tokenFile;
    const st = statSync(file);
    const cached = this.cache.token;
    if (
      cached &&
      cached.file === file &&
      cached.mtimeMs === st.mtimeMs &&
      cached.size === st.size &&
      cached.ino === st.ino
    ) {
      return cached.value;
    }
    const value = readFileSync(file, 'utf8').trim();
    this.cache.token = { file, mtimeMs: st.mtimeMs, size: st.size, ino: st.ino, value };
    return value;
  }

  async get(
    apiVersion: string,
    resource: string,
    namespace: string,
    name: string,
    options: GetOptions = {},
  ): Promise<KubeObject | undefined> {
    let answer: unknown;
    try {
      const path = objectPath(apiVersion, resource, namespace, name);
      answer = await this.call('GET', path, undefined, undefined, options.maxBytes);
    } catch (err) {
      if (err instanceof KubeError && err.status === 404) return undefined;
      throw err;
    }
    // Whatever the server said, callers get the object they asked for or an error: an answer that is not that
    // object (`{}`, a string, another object) is the server's failure, never a crash of the hook.
    const meta = (answer as { metadata?: { name?: unknown; namespace?: unknown } } | null)?.metadata;
    if (
      !answer ||
      typeof answer !== 'object' ||
      Array.isArray(answer) ||
      !meta ||
      typeof meta !== 'object' ||
      meta.name !== name ||
      (meta.namespace ?? namespace) !== namespace
    ) {
      throw new KubeError(
        502,
        `the API server's answer for ${resource} ${namespace}/${name} is not that object`,
        'InvalidAnswer',
      );
    }
    return answer as KubeObject;
  }

  async list(apiVersion: string, resource: string, namespace: string, options: ListOptions): Promise<ListPage> {
    const query = new URLSearchParams({ limit: String(Math.max(1, Math.floor(options.limit))) });
    if (options.labelSelector) query.set('labelSelector', options.labelSelector);
    if (options.continue) query.set('continue', options.continue);
    const path = `${collectionPath(apiVersion, resource, namespace)}?${query.toString()}`;
    const accept = options.metadataOnly ? METADATA_LIST_ACCEPT : undefined;
    const answer = (await this.call('GET', path, undefined, undefined, options.maxBytes, false, accept)) as {
      items?: unknown;
      metadata?: { continue?: unknown };
    } | null;
    // A list is a list, or the server's failure: never a crash of the caller.
    if (!answer || typeof answer !== 'object' || !Array.isArray(answer.items)) {
      throw new KubeError(
        502,
        `the API server's answer for ${resource} in ${namespace} is not a list`,
        'InvalidAnswer',
      );
    }
    const next = answer.metadata?.continue;
    return {
      items: (answer.items as unknown[]).filter(
        (o): o is KubeObject =>
          Boolean(o) && typeof o === 'object' && typeof (o as KubeObject).metadata?.name === 'string',
      ),
      ...(typeof next === 'string' && next !== '' ? { continue: next } : {}),
    };
  }

  async create(
    apiVersion: string,
    resource: string,
    namespace: string,
    body: Record<string, unknown>,
  ): Promise<KubeObject> {
    const answer = await this.call('POST', collectionPath(apiVersion, resource, namespace), body, 'application/json');
    if (!answer || typeof answer !== 'object' || Array.isArray(answer)) {
      throw new KubeError(502, `the API server's answer to a new ${resource} is not an object`, 'InvalidAnswer');
    }
    return answer as KubeObject;
  }

  async addEphemeralContainers(
    namespace: string,
    pod: string,
    containers: Array<Record<string, unknown>>,
    precondition?: Precondition,
  ): Promise<void> {
    const path = `${objectPath('v1', 'pods', namespace, pod)}/ephemeralcontainers`;
    const metadata =
      precondition && (precondition.uid || precondition.resourceVersion) ? { metadata: { ...precondition } } : {};
    await this.call(
      'PATCH',
      path,
      { ...metadata, spec: { ephemeralContainers: containers } },
      'application/strategic-merge-patch+json',
      undefined,
      // The answer is the pod, which may be as large as a pod can be (MAX_OBJECT_READ_BYTES): not read.
      true,
    );
  }

  async createEvent(event: KubeEvent): Promise<'created' | 'exists'> {
    const path = `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(event.namespace)}/events`;
    try {
      await this.call(
        'POST',
        path,
        eventObject(event, `${REPORTING_CONTROLLER}-${hostname()}`.slice(0, 128)),
        'application/json',
        EVENT_ANSWER_BYTES,
      );
      return 'created';
    } catch (err) {
      if (err instanceof KubeError && err.status === 409) return 'exists';
      throw err;
    }
  }

  async patchEventSeries(namespace: string, name: string, series: EventSeries): Promise<void> {
    const body = {
      series: { count: Math.max(2, Math.floor(series.count)), lastObservedTime: microTime(series.lastObservedTime) },
    };
    await this.call(
      'PATCH',
      objectPath('events.k8s.io/v1', 'events', namespace, name),
      body,
      'application/merge-patch+json',
      EVENT_ANSWER_BYTES,
    );
  }

  // eslint-disable-next-line max-params -- the one place every call goes through; each argument is one option of it
  private async call(
    method: string,
    path: string,
    body?: unknown,
    contentType?: string,
    maxBytes?: number,
    ignoreSuccessBody = false,
    accept = 'application/json',
  ): Promise<unknown> {
    const limit = Math.min(maxBytes ?? MAX_READ_BYTES, MAX_OBJECT_READ_BYTES);
    // An answer allowed past MAX_READ_BYTES is read past it in one of the process's LARGE_READS turns, taken only
    // once it is known to be larger (its Content-Length, or the bytes read), and held until it is parsed: a small
    // answer never waits for another's large ones.
    let release: (() => void) | undefined;
    // The call ended (answered, failed, out of time): a wait for a turn stops with it.
    const ended = new AbortController();
    // (Nothing to wait for when the limit is MAX_READ_BYTES or less: lib/http.ts asks only past `above`.)
    const large = {
      above: MAX_READ_BYTES,
      wait: async () => {
        const stop = this.signal ? AbortSignal.any([this.signal, ended.signal]) : ended.signal;
        const given = await largeReads.take(this.timeoutMs, stop);
        if (ended.signal.aborted) given();
        else release = given;
      },
    };
    try {
      return await this.send(method, path, body, contentType, limit, ignoreSuccessBody, accept, large);
    } finally {
      ended.abort(new Error('the call ended'));
      release?.();
    }
  }

  // eslint-disable-next-line max-params -- call's arguments, passed on
  private async send(
    method: string,
    path: string,
    body: unknown,
    contentType: string | undefined,
    maxBytes: number,
    ignoreSuccessBody: boolean,
    accept: string,
    large: NonNullable<CallOptions['large']>,
  ): Promise<unknown> {
    const conn = await this.connection();
    let token: string | undefined;
    try {
      token = this.bearer(conn);
    } catch (err) {
      throw new KubeError(
        0,
        `${method} ${path}: cannot read the token file: ${(err as Error).message}`,
        'Unauthorized',
      );
    }
    const tls: NonNullable<CallOptions['tls']> = { rejectUnauthorized: !conn.insecure };
    if (conn.ca) tls.ca = conn.ca;
    if (conn.cert) tls.cert = conn.cert;
    if (conn.key) tls.key = conn.key;
    const res = await call(new URL(path, conn.server), {
      method,
      headers: {
        ...(contentType ? { 'content-type': contentType } : {}),
        accept,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(this.asWho ?? {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      timeoutMs: this.timeoutMs,
      ...(this.signal ? { signal: this.signal } : {}),
      maxBytes,
      large,
      ...(ignoreSuccessBody ? { ignoreSuccessBody } : {}),
      tls,
      timeoutError: () => new KubeError(0, `${method} ${path}: no answer within ${this.timeoutMs} ms`),
    });
    if (ignoreSuccessBody && res.status >= 200 && res.status < 300) return undefined;
    let parsed: any;
    try {
      // A page of a list is up to `maxBytes` (4 MiB of PodBuggerTools) of what the objects' writers put in them
      // (labels, annotations: many keys): parsed a piece at a time, the server's thread not held by one read.
      parsed = await parseInPieces(res.body);
    } catch {
      parsed = { message: res.body };
    }
    if (res.status >= 200 && res.status < 300) return parsed;
    const said = boundedText(parsed?.message ?? '', MAX_ERROR_TEXT);
    throw new KubeError(res.status, `${method} ${path}: ${res.status} ${said}`.trim(), parsed?.reason);
  }
}
