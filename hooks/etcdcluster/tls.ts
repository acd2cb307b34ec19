// TLS.static: the Secrets a cluster's TLS is made of, read from the related objects Metacontroller sends and
// checked before anything is dialled or any pod is made; and what a failed TLS handshake with etcd means.
// A problem found here is reported (a condition naming the Secret and the problem) and holds the cluster as it
// is: nothing is dialled with material that cannot work, no pod is made that could not start.
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { kib, type ObjectMap, observedNamed, VERIFY_KEY_RULE, verifyKeyProblem } from '../../lib/index.js';
import type { TlsFiles } from '../etcdcommon/etcd.js';
import type { EtcdClusterSpec } from './schema.js';

/** The keys of each Secret, as etcd-operator named them. */
export const SECRET_KEYS = {
  operatorSecret: { ca: 'etcd-client-ca.crt', cert: 'etcd-client.crt', key: 'etcd-client.key' },
  peerSecret: { ca: 'peer-ca.crt', cert: 'peer.crt', key: 'peer.key' },
  serverSecret: { ca: 'server-ca.crt', cert: 'server.crt', key: 'server.key' },
} as const;
export type SecretRole = keyof typeof SECRET_KEYS;

/** The Secrets TLS.static names, by role (operatorSecret, peerSecret, serverSecret). */
export function tlsSecretNames(spec: unknown): Partial<Record<SecretRole, string>> {
  const s = (
    spec as
      | { TLS?: { static?: { operatorSecret?: unknown; member?: { peerSecret?: unknown; serverSecret?: unknown } } } }
      | undefined
  )?.TLS?.static;
  const names: Partial<Record<SecretRole, string>> = {};
  const put = (role: SecretRole, v: unknown) => {
    if (typeof v === 'string' && v) names[role] = v;
  };
  put('operatorSecret', s?.operatorSecret);
  put('peerSecret', s?.member?.peerSecret);
  put('serverSecret', s?.member?.serverSecret);
  return names;
}

/** Why TLS.static cannot work whatever the Secrets hold, or undefined (checked with the rest of the spec). */
export function tlsSpecProblem(spec: EtcdClusterSpec): string | undefined {
  const names = tlsSecretNames(spec);
  if (names.serverSecret && !names.operatorSecret) {
    return 'TLS.static.member.serverSecret needs TLS.static.operatorSecret: members that serve clients over TLS require a client certificate, and without one the hook cannot reach etcd';
  }
  return undefined;
}

export interface SecretCheck {
  /** The PEM files, when every key is there and usable. */
  files?: Required<TlsFiles>;
  /** What is wrong, naming the Secret: stable for the same Secret and time (it goes into a condition). */
  problem?: string;
}

/**
 * Reads and checks one Secret of TLS.static: present in the cluster's namespace, every key there, each one PEM
 * that parses, the key belonging to the certificate, the certificate valid now.
 */
export function checkSecret(
  related: ObjectMap | null | undefined,
  namespace: string,
  role: SecretRole,
  name: string,
  now: Date,
): SecretCheck {
  const where = `Secret ${namespace}/${name} (TLS.static.${role === 'operatorSecret' ? '' : 'member.'}${role})`;
  // observedNamed: own keys only (a name such as "constructor" must not resolve), in the cluster's namespace.
  const secret = observedNamed(related, 'Secret', 'v1', name, namespace);
  if (!secret) return { problem: `${where} was not found` };
  const data = (secret['data'] ?? {}) as Record<string, unknown>;
  const keys = SECRET_KEYS[role];
  const raw = (key: string) => {
    const v = Object.hasOwn(data, key) ? data[key] : undefined;
    return typeof v === 'string' && v ? v : undefined;
  };
  const missing = [keys.ca, keys.cert, keys.key].filter((k) => !raw(k));
  if (missing.length) return { problem: `${where} has no ${missing.join(', ')}` };
  // The size of every value is checked before anything decodes or parses it: a Secret may hold up to 1 MiB, and
  // every check below runs on the server's one thread at every sync of the cluster.
  for (const k of [keys.ca, keys.cert, keys.key]) {
    const bytes = base64Bytes(raw(k)!);
    if (bytes > MAX_TLS_FILE_BYTES)
      return {
        problem: `${where}: ${k} is ${kib(bytes)}, more than the ${kib(MAX_TLS_FILE_BYTES)} a TLS file may have (${MAX_CA_BLOCKS} certificates of a CA bundle fit)`,
      };
  }
  const read = (key: string) => Buffer.from(raw(key)!, 'base64').toString('utf8');
  const files = { ca: read(keys.ca), cert: read(keys.cert), key: read(keys.key) };
  // The CA file may be a bundle (several CAs during a rotation): every block must be a certificate, and one
  // that has not expired is enough (an expired old CA beside the new one is not a problem).
  let cas: X509Certificate[];
  let cert: X509Certificate;
  try {
    const blocks = pemBlocks(files.ca, MAX_CA_BLOCKS + 1);
    if (blocks.length === 0 || blocks.length > MAX_CA_BLOCKS) throw new Error('no certificate');
    cas = blocks.map((b) => new X509Certificate(b));
  } catch {
    return { problem: `${where}: ${keys.ca} is not a PEM certificate` };
  }
  try {
    cert = new X509Certificate(files.cert);
  } catch {
    return { problem: `${where}: ${keys.cert} is not a PEM certificate` };
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(files.key);
  } catch {
    return { problem: `${where}: ${keys.key} is not a PEM private key` };
  }
  if (!cert.checkPrivateKey(key)) return { problem: `${where}: ${keys.key} is not the key of ${keys.cert}` };
  // The operator's key is the one the hook server signs with, on its one thread, in every handshake with a member:
  // its cost is bounded like any other field (a 15360-bit RSA key costs ~190 ms a signature).
  const cost = role === 'operatorSecret' ? clientKeyProblem(key) : undefined;
  if (cost) return { problem: `${where}: ${keys.key} is ${cost}` };
  // The operator's CAs are the hook server's trust anchors: OpenSSL verifies members' chains with their keys (and
  // with each other's, when one CA of the bundle signed another), bounded as the chain's own (lib/tls-inspect.ts).
  const anchor = role === 'operatorSecret' ? cas.map((c) => verifyKeyProblem(c.publicKey)).find(Boolean) : undefined;
  if (anchor) return { problem: `${where}: ${keys.ca} holds a certificate with ${anchor}: ${VERIFY_KEY_RULE}` };
  // Expiry only: a certificate issued a moment ago by a clock slightly ahead is not held against anyone.
  if (Date.parse(cert.validTo) < now.getTime())
    return { problem: `${where}: ${keys.cert} expired on ${new Date(cert.validTo).toISOString()}` };
  if (cas.every((c) => Date.parse(c.validTo) < now.getTime())) {
    const last = Math.max(...cas.map((c) => Date.parse(c.validTo)));
    return { problem: `${where}: ${keys.ca} expired on ${new Date(last).toISOString()}` };
  }
  return { files: files as Required<TlsFiles> };
}

/** The most one value of a TLS Secret may hold, decoded: a CA bundle of MAX_CA_BLOCKS RSA 4096 certificates fits. */
export const MAX_TLS_FILE_BYTES = 160 * 1024;
/** The most certificates a CA file may bundle. */
export const MAX_CA_BLOCKS = 64;

/** The decoded size of a base64 text (an upper bound: whitespace and padding are counted as data). */
export function base64Bytes(text: string): number {
  return Math.ceil((text.length * 3) / 4);
}

const BEGIN = '-----BEGIN ';
const DASHES = '-----';

/**
 * The PEM blocks of a text (`-----BEGIN x-----` ... `-----END x-----`), at most `limit` of them, in one pass: every
 * search starts where the last one ended, so the work is linear in the text whatever it holds (a regular expression
 * with a lazy body runs to the end of the text from every BEGIN without END: quadratic). A BEGIN without its END
 * ends the scan (the text is not a PEM bundle; the caller finds fewer blocks than it has BEGINs only in that case).
 */
export function pemBlocks(text: string, limit = Number.POSITIVE_INFINITY): string[] {
  const blocks: string[] = [];
  let at = 0;
  while (blocks.length < limit) {
    const begin = text.indexOf(BEGIN, at);
    if (begin < 0) break;
    // A label is a few words (`CERTIFICATE`, `X509 CRL`): a longer one is not PEM, and is not searched for.
    const labelEnd = text.indexOf(DASHES, begin + BEGIN.length);
    if (labelEnd < 0 || labelEnd - begin - BEGIN.length > 64) {
      blocks.push(text.slice(begin, begin + BEGIN.length));
      break;
    }
    const label = text.slice(begin + BEGIN.length, labelEnd);
    const endMark = `-----END ${label}-----`;
    const end = label && !label.includes('\n') ? text.indexOf(endMark, labelEnd + DASHES.length) : -1;
    if (end < 0) {
      // Not a block: the caller refuses the text (a BEGIN must have its END).
      blocks.push(text.slice(begin, Math.min(text.length, labelEnd + DASHES.length)));
      break;
    }
    blocks.push(text.slice(begin, end + endMark.length));
    at = end + endMark.length;
  }
  return blocks;
}

/** The client keys the hook server signs with: what each costs stays within an RSA 4096 signature (~10 ms). */
export const CLIENT_KEY_RULE =
  'the hook server signs with it in every TLS handshake with a member, so it takes RSA keys of 2048 to 4096 bits, EC keys on P-256, P-384 or P-521, and Ed25519 keys';
export const RSA_MIN_BITS = 2048;
export const RSA_MAX_BITS = 4096;
const CURVES = new Set(['prime256v1', 'secp384r1', 'secp521r1']);

/** What is wrong with a client key the hook server would sign with (`an RSA key of 15360 bits: ...`), or undefined. */
export function clientKeyProblem(key: KeyObject): string | undefined {
  const type = key.asymmetricKeyType;
  const details = key.asymmetricKeyDetails ?? {};
  if (type === 'rsa' || type === 'rsa-pss') {
    const bits = details.modulusLength ?? 0;
    if (bits >= RSA_MIN_BITS && bits <= RSA_MAX_BITS) return undefined;
    return `an RSA key of ${bits} bits: ${CLIENT_KEY_RULE}`;
  }
  if (type === 'ec') {
    if (CURVES.has(details.namedCurve ?? '')) return undefined;
    return `an EC key on ${details.namedCurve ?? 'an unnamed curve'}: ${CLIENT_KEY_RULE}`;
  }
  if (type === 'ed25519') return undefined;
  return `a key of type ${type ?? 'unknown'}: ${CLIENT_KEY_RULE}`;
}

export interface TlsState {
  /** The operator's client certificate, when it is usable. */
  operator?: TlsFiles;
  /** The members' certificates (peer and server), when usable: the names they carry decide the member URLs. */
  members?: Partial<Record<'peerSecret' | 'serverSecret', Required<TlsFiles>>>;
  /** Every problem found in the Secrets, each naming its Secret. */
  problems: string[];
}

/** The Secrets of a cluster's TLS.static, checked; undefined for a cluster without TLS. */
export function tlsState(
  spec: unknown,
  related: ObjectMap | null | undefined,
  namespace: string,
  now: Date,
): TlsState | undefined {
  const names = tlsSecretNames(spec);
  if (!names.operatorSecret && !names.peerSecret && !names.serverSecret) return undefined;
  const state: TlsState = { problems: [] };
  // The operator's certificate is only used against members that serve TLS (etcd-operator ignored it otherwise).
  const roles: SecretRole[] = [
    ...(names.serverSecret ? (['operatorSecret'] as const) : []),
    'peerSecret',
    'serverSecret',
  ];
  for (const role of roles) {
    const name = names[role];
    if (!name) continue;
    const check = checkSecret(related, namespace, role, name, now);
    if (check.problem) state.problems.push(check.problem);
    else if (role === 'operatorSecret') state.operator = check.files!;
    else (state.members ??= {})[role] = check.files!;
  }
  return state;
}
