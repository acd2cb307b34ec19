// Settings are checked before anything listens: a setting that is present but wrong stops the server with a
// message naming it, so that a typo can never turn a check off.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ConfigError, DEFAULT_BODY_LIMIT, DEFAULT_HOOK_DEADLINE_MS, settingsFromEnv } from '../../lib/config.js';
import { configProblems } from '../../main/operators.js';
import { freePort } from '../fixtures/net.js';
import { Pki } from '../fixtures/pki.js';
import { root } from '../fixtures/requests.js';

const TOKEN = 'config-test-token-0123456789';

t.test('defaults: port 8080, no credentials, no opt-out, the stated body limit and deadline', async (t) => {
  const s = settingsFromEnv({});
  t.same(s, {
    port: 8080,
    host: '0.0.0.0',
    logLevel: 'info',
    auth: {},
    allowUnauthenticated: false,
    bodyLimit: DEFAULT_BODY_LIMIT,
    bodyBudget: DEFAULT_BODY_LIMIT,
    hookDeadlineMs: DEFAULT_HOOK_DEADLINE_MS,
  });
  t.equal(DEFAULT_HOOK_DEADLINE_MS, 8500, "below Metacontroller's 10 s webhook timeout");
  t.equal(DEFAULT_BODY_LIMIT, 8 * 1024 * 1024);
  t.equal(settingsFromEnv({ METAOPS_HOOK_DEADLINE_MS: '2000', PORT: '9000' }).hookDeadlineMs, 2000);
  t.equal(settingsFromEnv({ METAOPS_ALLOW_UNAUTHENTICATED: 'true' }).allowUnauthenticated, true);
  t.equal(settingsFromEnv({ METAOPS_ALLOW_UNAUTHENTICATED: 'false' }).allowUnauthenticated, false);
  t.same(
    settingsFromEnv({ METAOPS_AUTH_TOKEN: 'abcDEF0123456789-._~+/==' }).auth,
    { bearer: 'abcDEF0123456789-._~+/==' },
    'token68 characters',
  );
  t.doesNotThrow(
    () =>
      settingsFromEnv(
        {
          METAOPS_DEBUG_IMAGE_ALLOWLIST: 'busybox*,docker.io/library/busybox*,ghcr.io/acme/*,*',
          METAOPS_DEBUG_PROFILES: 'general,sysadmin',
        },
        configProblems,
      ),
    'valid debug policy settings',
  );
  const dir = mkdtempSync(join(tmpdir(), 'metaops-config-'));
  writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
  t.same(
    settingsFromEnv({ METAOPS_AUTH_TOKEN_FILE: join(dir, 'token') }).auth,
    { bearer: TOKEN },
    'from a file, trailing newline trimmed',
  );
});

const pki = new Pki();
pki.issue('a', '127.0.0.1');
pki.issue('b', '127.0.0.1');
const files = mkdtempSync(join(tmpdir(), 'metaops-config-files-'));
const notPem = join(files, 'not.pem');
writeFileSync(notPem, 'this is not a certificate');
const emptyFile = join(files, 'empty.pem');
writeFileSync(emptyFile, '');

t.test('every wrong setting is refused, by name', async (t) => {
  const cases: Array<[NodeJS.ProcessEnv, RegExp]> = [
    [{ METAOPS_AUTH_TOKEN: '' }, /METAOPS_AUTH_TOKEN is empty/],
    [{ METAOPS_AUTH_TOKEN: '   \n' }, /METAOPS_AUTH_TOKEN is empty/],
    [{ METAOPS_AUTH_TOKEN: 'short' }, /METAOPS_AUTH_TOKEN is shorter than 16/],
    [{ METAOPS_AUTH_TOKEN: 'has white space in the middle' }, /white space/],
    [{ METAOPS_AUTH_TOKEN: TOKEN, METAOPS_AUTH_TOKEN_FILE: '/x' }, /both set/],
    [
      { METAOPS_AUTH_TOKEN_FILE: '/nonexistent/token' },
      /METAOPS_AUTH_TOKEN_FILE=\/nonexistent\/token: cannot read the file \(ENOENT\)/,
    ],
    [{ METAOPS_BASIC_AUTH: '' }, /METAOPS_BASIC_AUTH is empty/],
    [{ METAOPS_BASIC_AUTH: 'user:' }, /"user:password"/],
    [{ METAOPS_BASIC_AUTH: ':pw' }, /"user:password"/],
    [{ METAOPS_HOOK_DEADLINE_MS: '10s' }, /METAOPS_HOOK_DEADLINE_MS="10s": expected a whole number from 100 to 9500/],
    [{ METAOPS_HOOK_DEADLINE_MS: '10000' }, /METAOPS_HOOK_DEADLINE_MS/],
    [{ METAOPS_HOOK_DEADLINE_MS: '0' }, /METAOPS_HOOK_DEADLINE_MS/],
    [{ METAOPS_HOOK_DEADLINE_MS: '8.5' }, /METAOPS_HOOK_DEADLINE_MS/],
    [{ METAOPS_HOOK_DEADLINE_MS: '' }, /METAOPS_HOOK_DEADLINE_MS/],
    [{ METAOPS_BODY_LIMIT: '1e9' }, /METAOPS_BODY_LIMIT/],
    [{ METAOPS_BODY_LIMIT: '999999999999' }, /METAOPS_BODY_LIMIT/],
    [{ PORT: 'http' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ LOG_LEVEL: 'verbose' }, /LOG_LEVEL/],
    [{ METAOPS_ALLOW_UNAUTHENTICATED: 'yes please' }, /METAOPS_ALLOW_UNAUTHENTICATED/],
    [{ METAOPS_TLS_CERT_FILE: '/x.crt' }, /go together/],
    [{ METAOPS_TLS_CLIENT_CA_FILE: '/ca.crt' }, /METAOPS_TLS_CLIENT_CA_FILE needs/],
    [{ METAOPS_TLS_CLIENT_NAMES: 'metacontroller' }, /METAOPS_TLS_CLIENT_NAMES needs/],
    [{ METAOPS_TLS_CERT_FILE: '/nonexistent.crt', METAOPS_TLS_KEY_FILE: '/nonexistent.key' }, /cannot read the file/],
    [{ METAOPS_TLS_CERT_FILE: '', METAOPS_TLS_KEY_FILE: '' }, /METAOPS_TLS_CERT_FILE is empty/],
    [{ METAOPS_TLS_CLIENT_CA_FILE: ' ' }, /METAOPS_TLS_CLIENT_CA_FILE is empty/],
    [{ METAOPS_AUTH_TOKEN: 'ä'.repeat(20) }, /ASCII letters, digits/],
    [{ METAOPS_AUTH_TOKEN: 'a-token-with-a-"quote"-in-it' }, /ASCII letters, digits/],
    [{ PORT: '0' }, /PORT/],
    [{ METAOPS_DEBUG_IMAGE_ALLOWLIST: 'busybox,https://evil/x' }, /entry "https:\/\/evil\/x" .* would match nothing/],
    [{ METAOPS_DEBUG_IMAGE_ALLOWLIST: ' ' }, /METAOPS_DEBUG_IMAGE_ALLOWLIST is empty/],
    [{ METAOPS_DEBUG_PROFILES: 'general,sysadmn' }, /no profile "sysadmn"/],
    [{ METAOPS_DEBUG_EXCLUDED_NAMESPACES: '' }, /METAOPS_DEBUG_EXCLUDED_NAMESPACES is empty/],
    [{ METAOPS_DEBUG_EXCLUDED_NAMESPACES: 'kube-system,kube-*' }, /entry "kube-\*" names no namespace/],
    [{ METAOPS_TLS_CERT_FILE: notPem, METAOPS_TLS_KEY_FILE: notPem }, /cannot be used together/],
    [{ METAOPS_TLS_CERT_FILE: pki.path('a.crt'), METAOPS_TLS_KEY_FILE: pki.path('b.key') }, /cannot be used together/],
    [
      {
        METAOPS_TLS_CERT_FILE: pki.path('a.crt'),
        METAOPS_TLS_KEY_FILE: pki.path('a.key'),
        METAOPS_TLS_CLIENT_CA_FILE: emptyFile,
      },
      /no PEM certificate/,
    ],
  ];
  for (const [env, message] of cases) {
    try {
      settingsFromEnv(env, configProblems);
      t.fail(`${JSON.stringify(env)} was accepted`);
    } catch (err) {
      t.ok(err instanceof ConfigError, `${JSON.stringify(env)}: refused`);
      t.match((err as Error).message, message);
    }
  }
  // All problems at once, not one per restart.
  try {
    settingsFromEnv({ METAOPS_AUTH_TOKEN: '', METAOPS_HOOK_DEADLINE_MS: '10s' });
  } catch (err) {
    t.equal((err as ConfigError).problems.length, 2);
  }
});

t.test('the server refuses to start on a wrong setting, saying which (a real process)', async (t) => {
  for (const [env, message] of [
    [{ METAOPS_HOOK_DEADLINE_MS: '10s' }, /METAOPS_HOOK_DEADLINE_MS="10s"/],
    [{ METAOPS_AUTH_TOKEN: ' ' }, /METAOPS_AUTH_TOKEN is empty/],
  ] as const) {
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'main', 'server.ts')], {
      cwd: root,
      env: { ...process.env, PORT: String(await freePort()), HOST: '127.0.0.1', ...env },
      encoding: 'utf8',
      timeout: 30_000,
    });
    t.equal(run.status, 2, 'exit code 2');
    t.match(run.stderr, /metaops cannot start/);
    t.match(run.stderr, message);
  }
});

t.test('the opt-out is announced as a warning at startup (a real process)', async (t) => {
  const { spawn } = await import('node:child_process');
  const proc = spawn(process.execPath, ['--import', 'tsx', join(root, 'main', 'server.ts')], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      METAOPS_ALLOW_UNAUTHENTICATED: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const warned = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 30_000);
    proc.stdout.on('data', (d) => {
      out += d.toString();
      if (out.includes('METAOPS_ALLOW_UNAUTHENTICATED')) {
        clearTimeout(timer);
        resolve(true);
      }
    });
  });
  proc.kill('SIGTERM');
  t.ok(warned, 'a warning names the opt-out');
  const line = JSON.parse(out.split('\n').find((l) => l.includes('METAOPS_ALLOW_UNAUTHENTICATED'))!);
  t.equal(line.level, 40, 'at warn');
  t.match(line.msg, /WITHOUT credentials/);
  t.match(line.msg, /v1\.5\.20[^]*same-named parent[^]*not for a cluster shared by tenants/, 'and what v1.5.20 means');
});
