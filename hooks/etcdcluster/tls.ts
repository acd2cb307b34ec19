// TLS.static: the Secrets a cluster's TLS is made of, read from the related objects Metacontroller sends and
// checked before anything is dialled or any pod is made; and what a failed TLS handshake with etcd means.
// A problem found here is reported (a condition naming the Secret and the problem) and holds the cluster as it
// is: nothing is dialled with material that cannot work, no pod is made that could not start.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import type { ObjectMap } from '../../lib/metacontroller.js';
import { observedNamed } from '../../lib/objects.js';
import type { TlsFiles } from './etcd.js';
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
  const s = (spec as { TLS?: { static?: { operatorSecret?: unknown; member?: { peerSecret?: unknown; serverSecret?: unknown } } } } | undefined)?.TLS
    ?.static;
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
export function checkSecret(related: ObjectMap | null | undefined, namespace: string, role: SecretRole, name: string, now: Date): SecretCheck {
  const where = `Secret ${namespace}/${name} (TLS.static.${role === 'operatorSecret' ? '' : 'member.'}${role})`;
  // observedNamed: own keys only (a name such as "constructor" must not resolve), in the cluster's namespace.
  const secret = observedNamed(related, 'Secret', 'v1', name, namespace);
  if (!secret) return { problem: `${where} was not found` };
  const data = (secret['data'] ?? {}) as Record<string, unknown>;
  const keys = SECRET_KEYS[role];
  const read = (key: string) => {
    const v = Object.hasOwn(data, key) ? data[key] : undefined;
    return typeof v === 'string' && v ? Buffer.from(v, 'base64').toString('utf8') : undefined;
  };
  const files = { ca: read(keys.ca), cert: read(keys.cert), key: read(keys.key) };
  const missing = [keys.ca, keys.cert, keys.key].filter((k, i) => ![files.ca, files.cert, files.key][i]);
  if (missing.length) return { problem: `${where} has no ${missing.join(', ')}` };
  // The CA file may be a bundle (several CAs during a rotation): every block must be a certificate, and one
  // that has not expired is enough (an expired old CA beside the new one is not a problem).
  let cas: X509Certificate[];
  let cert: X509Certificate;
  try {
    const blocks = files.ca!.match(/-----BEGIN [^-]+-----[\s\S]*?-----END [^-]+-----/g) ?? [];
    if (blocks.length === 0 || blocks.length > 64) throw new Error('no certificate');
    cas = blocks.map((b) => new X509Certificate(b));
  } catch {
    return { problem: `${where}: ${keys.ca} is not a PEM certificate` };
  }
  try {
    cert = new X509Certificate(files.cert!);
  } catch {
    return { problem: `${where}: ${keys.cert} is not a PEM certificate` };
  }
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(files.key!);
  } catch {
    return { problem: `${where}: ${keys.key} is not a PEM private key` };
  }
  if (!cert.checkPrivateKey(key)) return { problem: `${where}: ${keys.key} is not the key of ${keys.cert}` };
  // Expiry only: a certificate issued a moment ago by a clock slightly ahead is not held against anyone.
  if (Date.parse(cert.validTo) < now.getTime()) return { problem: `${where}: ${keys.cert} expired on ${new Date(cert.validTo).toISOString()}` };
  if (cas.every((c) => Date.parse(c.validTo) < now.getTime())) {
    const last = Math.max(...cas.map((c) => Date.parse(c.validTo)));
    return { problem: `${where}: ${keys.ca} expired on ${new Date(last).toISOString()}` };
  }
  return { files: files as Required<TlsFiles> };
}

export interface TlsState {
  /** The operator's client certificate, when it is usable. */
  operator?: TlsFiles;
  /** Every problem found in the Secrets, each naming its Secret. */
  problems: string[];
}

/** The Secrets of a cluster's TLS.static, checked; undefined for a cluster without TLS. */
export function tlsState(spec: unknown, related: ObjectMap | null | undefined, namespace: string, now: Date): TlsState | undefined {
  const names = tlsSecretNames(spec);
  if (!names.operatorSecret && !names.peerSecret && !names.serverSecret) return undefined;
  const state: TlsState = { problems: [] };
  // The operator's certificate is only used against members that serve TLS (etcd-operator ignored it otherwise).
  const roles: SecretRole[] = [...(names.serverSecret ? (['operatorSecret'] as const) : []), 'peerSecret', 'serverSecret'];
  for (const role of roles) {
    const name = names[role];
    if (!name) continue;
    const check = checkSecret(related, namespace, role, name, now);
    if (check.problem) state.problems.push(check.problem);
    else if (role === 'operatorSecret') state.operator = check.files!;
  }
  return state;
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
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return "etcd's server certificate does not name the member (its SANs must cover *.<cluster>.<namespace>.svc)";
  if (SERVER_NOT_TRUSTED.has(code)) return "etcd's server certificate is not signed by the CA in etcd-client-ca.crt";
  if (CLIENT_REFUSED.has(code)) return 'etcd refused the client certificate etcd-client.crt (not signed by a CA etcd trusts, or expired)';
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER') return 'etcd does not serve TLS on its client port';
  return undefined;
}
