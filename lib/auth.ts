// Who may call the hooks. Credentials are Metacontroller's webhook `authorization` (Bearer token) or `basicAuth`,
// compared in constant time, and/or a client certificate (mTLS, Metacontroller's `clientTLS`). The check is
// attached to each hook route (lib/guard.ts), never to the text of the URL.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { TLSSocket } from 'node:tls';

export interface AuthConfig {
  bearer?: string;
  basic?: { user: string; password: string };
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time string comparison: equal-length digests, so neither content nor length leaks by timing. */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

/** True when a Bearer token or Basic credentials are configured. */
export function hasCredentials(auth: AuthConfig): boolean {
  return Boolean(auth.bearer || auth.basic);
}

/**
 * True when the Authorization header carries the configured credentials. With none configured nobody is
 * authorized by a header (a caller is then authenticated only by a client certificate, or not at all).
 */
export function authorized(header: string | undefined, auth: AuthConfig): boolean {
  if (!hasCredentials(auth) || !header) return false;
  const space = header.indexOf(' ');
  if (space <= 0) return false;
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  if (auth.bearer && scheme === 'bearer') return safeEqual(value, auth.bearer);
  if (auth.basic && scheme === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const at = decoded.indexOf(':');
    if (at < 0) return false;
    // Both compared every time, so a wrong user costs the same as a wrong password.
    const userOk = safeEqual(decoded.slice(0, at), auth.basic.user);
    const passOk = safeEqual(decoded.slice(at + 1), auth.basic.password);
    return userOk && passOk;
  }
  return false;
}

/**
 * Why a request's Authorization headers cannot be read as one set of credentials: more than one. Node keeps only the
 * first of several (and a proxy may keep another), so a request carrying two is refused rather than read either way.
 * `rawHeaders`: the request's header names and values, alternating, as they came.
 */
export function authorizationProblem(rawHeaders: readonly string[]): string | undefined {
  let seen = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'authorization') seen += 1;
  return seen > 1 ? 'more than one Authorization header: send one' : undefined;
}

/** The names a client certificate proves: its subject CN and its DNS subject alternative names. */
export function certificateNames(socket: TLSSocket): string[] {
  const cert = socket.getPeerCertificate();
  if (!cert || Object.keys(cert).length === 0) return [];
  const names: string[] = [];
  // Stryker disable next-line OptionalChaining: every certificate Node hands over has a subject
  const cn = cert.subject?.CN;
  if (typeof cn === 'string') names.push(cn);
  else if (Array.isArray(cn)) names.push(...(cn as string[]));
  for (const entry of (cert.subjectaltname ?? '').split(',')) {
    const trimmed = entry.trim();
    if (trimmed.startsWith('DNS:')) names.push(trimmed.slice(4));
  }
  return names;
}

/**
 * The client certificate check for one request: verified by the server's client CA and, when names are
 * configured, naming one of them. The TLS layer asks for a certificate but does not drop a connection without
 * one (the kubelet's probes have none), so every hook route checks here.
 */
export function clientCertificateProblem(socket: unknown, allowedNames: string[] | undefined): string | undefined {
  const tls = socket as Partial<TLSSocket> | undefined;
  if (!tls || typeof tls.getPeerCertificate !== 'function') return 'a client certificate is required (mTLS)';
  if (tls.authorized !== true) return 'a client certificate signed by the configured CA is required (mTLS)';
  if (allowedNames && allowedNames.length > 0) {
    const names = certificateNames(tls as TLSSocket);
    if (!names.some((n) => allowedNames.includes(n))) return 'this client certificate is not allowed to call the hooks';
  }
  return undefined;
}
