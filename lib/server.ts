// The only file that listens: $HOST:$PORT (0.0.0.0:8080 by default), with graceful shutdown on SIGTERM/SIGINT
// (in-flight requests finish), optional TLS reloaded when the files change, and optional client certificates.
//
//   PORT, HOST, LOG_LEVEL
//   METAOPS_AUTH_TOKEN[_FILE]        Bearer token the hooks require (Metacontroller's webhook `authorization`)
//   METAOPS_BASIC_AUTH[_FILE]        "user:password" the hooks accept (Metacontroller's `basicAuth`)
//   METAOPS_TLS_CERT_FILE, METAOPS_TLS_KEY_FILE   serve https (Metacontroller's `caBundle` trusts it)
//   METAOPS_TLS_CLIENT_CA_FILE       require client certificates signed by this CA (mTLS, `clientTLS`)
//   METAOPS_BODY_LIMIT               largest request body in bytes (default 32 MiB)
//   METAOPS_HOOK_DEADLINE_MS         a hook's deadline (default 8500, below the 10 s webhook timeout)
import { readFileSync, watchFile } from 'node:fs';
import type { Server as HttpsServer } from 'node:https';
import { buildApp, DEFAULT_BODY_LIMIT, DEFAULT_HOOK_DEADLINE_MS } from './app.js';
import { authFromEnv } from './auth.js';

const env = process.env;
const port = Number(env['PORT'] ?? 8080);
const host = env['HOST'] ?? '0.0.0.0';
const level = env['LOG_LEVEL'] ?? 'info';
const certFile = env['METAOPS_TLS_CERT_FILE'];
const keyFile = env['METAOPS_TLS_KEY_FILE'];
const clientCaFile = env['METAOPS_TLS_CLIENT_CA_FILE'];

function tls() {
  if (!certFile || !keyFile) return undefined;
  return {
    cert: readFileSync(certFile),
    key: readFileSync(keyFile),
    ...(clientCaFile ? { ca: readFileSync(clientCaFile), requestCert: true, rejectUnauthorized: true } : {}),
  };
}

const https = tls();
const app = buildApp({
  logger: { level },
  auth: authFromEnv(env),
  bodyLimit: Number(env['METAOPS_BODY_LIMIT'] ?? DEFAULT_BODY_LIMIT),
  hookDeadlineMs: Number(env['METAOPS_HOOK_DEADLINE_MS'] ?? DEFAULT_HOOK_DEADLINE_MS),
  ...(https ? { https } : {}),
});

if (https) {
  // Certificates rotate (cert-manager): reload them without a restart.
  const reload = () => {
    try {
      const next = tls()!;
      (app.server as unknown as HttpsServer).setSecureContext(next);
      app.log.info('TLS certificate reloaded');
    } catch (err) {
      app.log.error({ err }, 'TLS certificate reload failed; keeping the previous one');
    }
  };
  for (const file of [certFile!, keyFile!, ...(clientCaFile ? [clientCaFile] : [])]) watchFile(file, { interval: 2000 }, reload);
}

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  app.log.info({ signal }, 'shutting down: finishing in-flight requests');
  const timer = setTimeout(() => {
    app.log.error('shutdown took longer than 10s; exiting');
    process.exit(1);
  }, 10_000);
  timer.unref();
  // Connections that finish their request while closing become idle keep-alive connections: close those as
  // they appear, so that shutdown does not wait for their keep-alive timeout.
  const idle = setInterval(() => app.server.closeIdleConnections(), 100);
  idle.unref();
  await app.close();
  clearInterval(idle);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

try {
  await app.listen({ port, host });
} catch (err) {
  app.log.error({ err }, 'cannot listen');
  process.exit(1);
}
