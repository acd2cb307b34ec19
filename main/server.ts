// The only file that listens: $HOST:$PORT (0.0.0.0:8080 by default), with graceful shutdown on SIGTERM/SIGINT
// (in-flight requests finish), optional TLS reloaded when the files change, and optional client certificates; a bug
// that escapes every handler is logged as fatal and ends the process (exit 1).
// Every setting is checked first (lib/config.ts, and each operator's own): a wrong one stops the server with a message naming it.
//
//   PORT, HOST, LOG_LEVEL
//   METAOPS_AUTH_TOKEN[_FILE]        Bearer token every hook requires (Metacontroller's webhook `authorization`)
//   METAOPS_BASIC_AUTH[_FILE]        "user:password" the hooks accept (Metacontroller's `basicAuth`)
//   METAOPS_ALLOW_UNAUTHENTICATED    true: side-effecting hooks serve callers without credentials (development)
//   METAOPS_TLS_CERT_FILE, METAOPS_TLS_KEY_FILE   serve https (Metacontroller's `caBundle` trusts it)
//   METAOPS_TLS_CLIENT_CA_FILE       hooks require client certificates signed by this CA (mTLS, `clientTLS`)
//   METAOPS_TLS_CLIENT_NAMES         only these client certificate names (CN or DNS SAN), comma-separated
//   METAOPS_BODY_LIMIT               largest request body in bytes (default 8 MiB, at most 32 MiB)
//   METAOPS_HOOK_DEADLINE_MS         a hook's deadline (default 8500, 100..9500: below the 10 s webhook timeout)
import { readFileSync, watchFile } from 'node:fs';
import type { Server as HttpsServer } from 'node:https';
import { buildApp } from '../lib/app.js';
import { ConfigError, settingsFromEnv, type Settings } from '../lib/config.js';
import { jsonParseKeepsKeys } from '../lib/parse-json.js';
import { configProblems, configWarnings, operators } from './operators.js';

// First, before the process has parsed much (the check needs a fresh place in V8's hidden classes): whether this
// Node release's JSON.parse reads a key by what an earlier text held (lib/parse-json.ts). metaops parses every text
// through parseJson, which holds on such a runtime too; the log says so, and which release to run instead.
const jsonKeepsKeys = jsonParseKeepsKeys();

let settings: Settings;
try {
  settings = settingsFromEnv(process.env, configProblems);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`${err.message}\n`);
  process.exit(2);
}
const tlsSettings = settings.tls;

function tls() {
  if (!tlsSettings) return undefined;
  return {
    cert: readFileSync(tlsSettings.certFile),
    key: readFileSync(tlsSettings.keyFile),
    ...(tlsSettings.clientCaFile ? { ca: readFileSync(tlsSettings.clientCaFile) } : {}),
  };
}

const https = tls();
const app = buildApp({
  operators,
  logger: { level: settings.logLevel },
  auth: settings.auth,
  allowUnauthenticated: settings.allowUnauthenticated,
  bodyLimit: settings.bodyLimit,
  bodyBudget: settings.bodyBudget,
  hookDeadlineMs: settings.hookDeadlineMs,
  ...(tlsSettings?.clientNames ? { clientNames: tlsSettings.clientNames } : {}),
  ...(https ? { https } : {}),
});

// A bug that escapes (a promise rejection nobody handles, an exception nobody catches) leaves the process in a state
// nobody knows: say so in one fatal line of the log, with the error, and exit 1 so that the kubelet restarts it
// (Metacontroller retries the hook meanwhile; hooks keep no memory that a restart loses). Node's default for an
// unhandled rejection is to raise it as an uncaught exception, so one handler sees both, with their origin.
process.on('uncaughtException', (err, origin) => {
  app.log.fatal({ err, origin }, 'a bug escaped every handler; exiting so that the kubelet restarts the server');
  process.exit(1);
});

const authenticatedBy = [
  ...(settings.auth.bearer ? ['Bearer token'] : []),
  ...(settings.auth.basic ? ['Basic credentials'] : []),
  ...(tlsSettings?.clientCaFile ? ['client certificate'] : []),
];
if (authenticatedBy.length > 0) {
  app.log.info({ authenticatedBy }, 'hooks require authentication');
  if (tlsSettings?.clientCaFile && !tlsSettings.clientNames) {
    app.log.warn(
      'METAOPS_TLS_CLIENT_CA_FILE without METAOPS_TLS_CLIENT_NAMES: any client certificate of that CA is accepted',
    );
  }
  if (settings.allowUnauthenticated)
    app.log.warn('METAOPS_ALLOW_UNAUTHENTICATED is ignored: credentials are configured');
} else if (settings.allowUnauthenticated) {
  app.log.warn(
    'METAOPS_ALLOW_UNAUTHENTICATED=true: hooks that act on the cluster, etcd and AWS serve callers WITHOUT credentials; ' +
      'anyone who can reach this port can use them. For development only. It is how Metacontroller v1.5.20, which ' +
      'cannot send credentials, is served: v1.5.20 keeps customize answers by parent name and generation, so a ' +
      "parent in one namespace can keep another namespace's same-named parent of its kind from being synced; not for " +
      'a cluster shared by tenants (docs/metacontroller.md).',
  );
} else {
  app.log.warn(
    'no credentials configured (METAOPS_AUTH_TOKEN): pure hooks answer anyone; hooks that act on the cluster, etcd or AWS answer 401',
  );
}

for (const warning of configWarnings(process.env)) app.log.warn(warning);

if (jsonKeepsKeys)
  app.log.error(
    { node: process.version },
    "this Node release's JSON.parse reads an object key by what an earlier text held (Node 24.x, 25.x and 26.x up to " +
      '26.10.0): metaops reads every text with such a key by its own parser (lib/parse-json.ts), but run a fixed ' +
      'release (26.12.1 or later: scripts/node.sh, the Dockerfile) (docs/operating.md, "JSON parsing and the Node release")',
  );

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
  for (const file of [
    tlsSettings!.certFile,
    tlsSettings!.keyFile,
    ...(tlsSettings!.clientCaFile ? [tlsSettings!.clientCaFile] : []),
  ])
    watchFile(file, { interval: 2000 }, reload);
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
  await app.listen({ port: settings.port, host: settings.host });
} catch (err) {
  app.log.error({ err }, 'cannot listen');
  process.exit(1);
}
