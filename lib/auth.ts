// Who may call the hooks: when a token is configured, only callers presenting it (Metacontroller's webhook
// `authorization` Bearer token, or `basicAuth`), compared in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface AuthConfig {
  bearer?: string;
  basic?: { user: string; password: string };
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time string comparison: equal-length digests, so neither content nor length leaks by timing. */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

export function authorized(header: string | undefined, auth: AuthConfig): boolean {
  if (!auth.bearer && !auth.basic) return true;
  if (!header) return false;
  const [scheme, value = ''] = header.split(' ', 2) as [string, string?];
  if (auth.bearer && scheme.toLowerCase() === 'bearer') return safeEqual(value.trim(), auth.bearer);
  if (auth.basic && scheme.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value.trim(), 'base64').toString('utf8');
    const at = decoded.indexOf(':');
    if (at < 0) return false;
    // Both compared every time, so a wrong user costs the same as a wrong password.
    const userOk = safeEqual(decoded.slice(0, at), auth.basic.user);
    const passOk = safeEqual(decoded.slice(at + 1), auth.basic.password);
    return userOk && passOk;
  }
  return false;
}

function secret(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const file = env[`${name}_FILE`];
  if (file) return readFileSync(file, 'utf8').trim();
  const value = env[name];
  return value ? value.trim() : undefined;
}

/** METAOPS_AUTH_TOKEN (or _FILE) and METAOPS_BASIC_AUTH "user:password" (or _FILE). */
export function authFromEnv(env: NodeJS.ProcessEnv = process.env): AuthConfig {
  const config: AuthConfig = {};
  const bearer = secret(env, 'METAOPS_AUTH_TOKEN');
  if (bearer) config.bearer = bearer;
  const basic = secret(env, 'METAOPS_BASIC_AUTH');
  if (basic) {
    const at = basic.indexOf(':');
    if (at <= 0) throw new Error('METAOPS_BASIC_AUTH must be "user:password"');
    config.basic = { user: basic.slice(0, at), password: basic.slice(at + 1) };
  }
  return config;
}
