// The settings as the deployed server reads them from its environment (main/server.ts, lib/config.ts, each operator's clients),
// checked end to end on the server process: Basic credentials alone, the hook deadline (set, and its default),
// and the PodBuggerTool image allowlist from METAOPS_DEBUG_IMAGE_ALLOWLIST. The values each test expects are
// written out here, not read from the code under test.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { freePort } from '../fixtures/net.js';
import { root } from '../fixtures/requests.js';

const BASIC = { user: 'metacontroller', password: 'a-long-password-0123' };
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

async function startServer(env: NodeJS.ProcessEnv, t: { teardown(fn: () => unknown): void }): Promise<number> {
  const port = await freePort();
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('METAOPS_') && !k.startsWith('AWS_')),
  );
  const proc: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(root, 'main', 'server.ts')], {
    cwd: root,
    env: { ...clean, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const exited = new Promise((r) => proc.on('exit', r));
  t.teardown(async () => {
    proc.kill('SIGTERM');
    await exited;
  });
  // Up to a minute or so: on a loaded machine, compiling and starting the server took more than 15 s.
  for (let i = 0; i < 400; i++) {
    try {
      if ((await call(port, 'GET', '/healthz')).status === 200) return port;
    } catch {
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  throw new Error('server did not start');
}

function call(
  port: number,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; json: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        agent: false,
        headers: { 'content-type': 'application/json', ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, json });
        });
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** An AWS endpoint that accepts connections and never answers: every S3 call waits for the hook's budget. */
async function blackHole(t: { teardown(fn: () => unknown): void }): Promise<string> {
  return (await awsEndpoint(t)).url;
}

/**
 * An AWS endpoint the test steers: while `refusing`, every connection is reset as it comes (the call fails at once);
 * else it is held, never answered, until the caller gives up on it. `held` counts the requests held.
 */
async function awsEndpoint(t: { teardown(fn: () => unknown): void }) {
  const sockets = new Set<Socket>();
  const endpoint = { url: '', refusing: false, held: 0 };
  const server = createServer((s) => {
    s.on('error', () => {});
    if (endpoint.refusing) {
      s.resetAndDestroy();
      return;
    }
    sockets.add(s);
    s.once('data', () => endpoint.held++);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  endpoint.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return endpoint;
}

const s3 = {
  controller: {},
  parent: {
    apiVersion: 'metaops.dev/v1alpha1',
    kind: 'S3',
    metadata: { name: 'app', namespace: 'ns', uid: 'uid-app', generation: 1 },
    spec: { bucketName: 'app-bucket' },
  },
  children: { 'Secret.v1': {} },
};

const awsEnv = (endpoint: string) => ({
  AWS_ENDPOINT_URL: endpoint,
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'example',
  AWS_MAX_ATTEMPTS: '1',
});

t.test(
  'Basic credentials alone: side-effecting hooks want exactly them, and the deadline set in the environment applies',
  async (t) => {
    const port = await startServer(
      {
        METAOPS_BASIC_AUTH: `${BASIC.user}:${BASIC.password}`,
        METAOPS_HOOK_DEADLINE_MS: '300',
        ...awsEnv(await blackHole(t)),
      },
      t,
    );
    t.equal((await call(port, 'POST', '/hooks/s3/sync', s3)).status, 401, 'no credentials');
    t.equal(
      (await call(port, 'POST', '/hooks/s3/sync', s3, { authorization: basic(BASIC.user, 'wrong') })).status,
      401,
      'a wrong password',
    );
    t.equal(
      (await call(port, 'POST', '/hooks/s3/sync', s3, { authorization: basic('someone', BASIC.password) })).status,
      401,
      'a wrong user',
    );
    t.equal(
      (await call(port, 'POST', '/hooks/s3/sync', s3, { authorization: `Bearer ${BASIC.password}` })).status,
      401,
      'the password as a Bearer token',
    );
    t.equal(
      (
        await call(port, 'POST', '/hooks/memcached/sync', {
          controller: {},
          parent: { apiVersion: 'x/v1', kind: 'Memcached', metadata: { name: 'm' }, spec: {} },
          children: {},
        })
      ).status,
      401,
      'every hook, once credentials are configured',
    );
    const ok = await call(port, 'POST', '/hooks/s3/sync', s3, { authorization: basic(BASIC.user, BASIC.password) });
    // Past authentication, the S3 calls wait on an endpoint that never answers: the 300 ms deadline answers 429.
    t.equal(ok.status, 429, 'the right Basic credentials reach the hook, which misses the 300 ms deadline');
    t.equal(ok.headers['retry-after'], '5');
  },
);

t.test(
  'without METAOPS_HOOK_DEADLINE_MS the default deadline (8.5 s, pinned in lib/config.test.ts) lets a hook that waits on AWS answer itself, not 429',
  async (t) => {
    const aws = await awsEndpoint(t);
    const port = await startServer({ METAOPS_BASIC_AUTH: `${BASIC.user}:${BASIC.password}`, ...awsEnv(aws.url) }, t);
    const auth = { authorization: basic(BASIC.user, BASIC.password) };
    // The AWS SDK is loaded on the first call of an S3 hook (hooks/s3/sync.ts), inside that call's deadline: on a
    // loaded machine its loading took seconds of it. It is loaded first, by a sync whose AWS calls are refused at
    // once, so that the sync below spends its deadline waiting on AWS, which is what this is about.
    aws.refusing = true;
    const warm = await call(port, 'POST', '/hooks/s3/sync', s3, auth);
    t.equal(warm.status, 200, 'AWS refusing: the hook answered itself at once');
    t.match(
      warm.json?.status?.conditions?.find((c: any) => c.type === 'Ready'),
      { status: 'False', reason: 'Unreachable' },
    );
    // Each S3 request gives up after 4 s (hooks/s3/aws.ts): the hook answers Unreachable well within the default.
    aws.refusing = false;
    const res = await call(port, 'POST', '/hooks/s3/sync', s3, auth);
    t.equal(res.status, 200, 'the hook answered itself');
    t.match(
      res.json?.status?.conditions?.find((c: any) => c.type === 'Ready'),
      { status: 'False', reason: 'Unreachable', message: /no answer within the deadline/ },
      'it gave up on AWS by its own deadline for the call',
    );
    t.equal(res.json?.resyncAfterSeconds, 30);
    t.ok(aws.held >= 1, 'AWS was sent the call and never answered it');
  },
);

t.test('METAOPS_DEBUG_IMAGE_ALLOWLIST replaces the default allowlist (busybox) for PodBuggerTools', async (t) => {
  // The injector asked about a pod that a tool of this image selects. An image the server allows is acted on: the
  // pod is read again, which fails here (no Kubernetes API), and the failure is recorded on the pod. An image it
  // refuses is not acted on: no call, nothing recorded.
  const request = (image: string) => ({
    controller: {},
    object: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'ns', labels: { app: 'web' } },
      spec: { containers: [{ name: 'app', image: 'nginx' }] },
    },
    attachments: {},
    related: {
      'PodBuggerTool.debug.metaops.dev/v1alpha1': {
        dbg: {
          apiVersion: 'debug.metaops.dev/v1alpha1',
          kind: 'PodBuggerTool',
          metadata: { name: 'dbg', namespace: 'ns', uid: 'uid-dbg', generation: 1 },
          spec: { label: 'app=web', image },
        },
      },
    },
  });
  const actedOn = (res: { json: any }) =>
    typeof res.json?.annotations?.['debug.metaops.dev/failures'] === 'string' ? 'acted on' : 'left alone';
  const auth = { authorization: basic(BASIC.user, BASIC.password) };
  const custom = await startServer(
    { METAOPS_BASIC_AUTH: `${BASIC.user}:${BASIC.password}`, METAOPS_DEBUG_IMAGE_ALLOWLIST: 'ghcr.io/org/*' },
    t,
  );
  const url = '/hooks/podbuggertool-injector/sync';
  t.equal(
    actedOn(await call(custom, 'POST', url, request('ghcr.io/org/tools:1'), auth)),
    'acted on',
    'allowed by the environment',
  );
  t.equal(
    actedOn(await call(custom, 'POST', url, request('busybox:1.36'), auth)),
    'left alone',
    'the default is replaced, not added to',
  );
  const defaults = await startServer({ METAOPS_BASIC_AUTH: `${BASIC.user}:${BASIC.password}` }, t);
  t.equal(actedOn(await call(defaults, 'POST', url, request('busybox:1.36'), auth)), 'acted on', 'busybox by default');
  t.equal(
    actedOn(await call(defaults, 'POST', url, request('ghcr.io/org/tools:1'), auth)),
    'left alone',
    'nothing else by default',
  );
});

t.test('METAOPS_DEBUG_AUTHOR_CHECK=off is said at start, once, as a warning', async (t) => {
  const port = await freePort();
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('METAOPS_') && !k.startsWith('AWS_')),
  );
  const start = (env: NodeJS.ProcessEnv) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', join(root, 'main', 'server.ts')], {
      cwd: root,
      env: { ...clean, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise((r) => proc.on('exit', r));
    return { proc, exited, out: () => out };
  };
  for (const [env, expected] of [
    [{ METAOPS_DEBUG_AUTHOR_CHECK: 'off' }, 1],
    [{}, 0],
  ] as const) {
    const server = start(env);
    for (let i = 0; i < 100; i++) {
      try {
        if ((await call(port, 'GET', '/healthz')).status === 200) break;
      } catch {
        await new Promise((r) => setTimeout(r, 150));
      }
    }
    server.proc.kill('SIGTERM');
    await server.exited;
    const warnings = server
      .out()
      .split('\n')
      .filter((l) => l.includes('METAOPS_DEBUG_AUTHOR_CHECK=off'));
    t.equal(warnings.length, expected, JSON.stringify(env));
    if (expected) t.match(JSON.parse(warnings[0]!), { level: 40, msg: /whoever wrote them/ });
  }
});

t.test(
  'a Node release whose JSON.parse reads keys by what it parsed before is said at start, as an error',
  async (t) => {
    // The server's runtime as it is, and with a JSON.parse that misreads as Node 24.x-26.10.0 do
    // (test/fixtures/json-keeps-keys.ts): the line is logged exactly when the runtime misreads. Whether this runtime
    // does is asked of a fresh process of it, as the bug shows itself (lib/parse-json.ts).
    const probe = spawnSync(
      process.execPath,
      [
        '-e',
        'JSON.parse(\'{"u":0,"\\\\\\\\":1}\'); process.stdout.write(JSON.stringify(JSON.parse(\'{"u":0,"\\\\u0062":2}\')))',
      ],
      { encoding: 'utf8' },
    );
    const affected = probe.stdout !== '{"u":0,"b":2}';
    t.match(probe.stdout, /^\{"u":0,"(b|\\\\)":2\}$/, 'the probe read one of the two');
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('METAOPS_') && !k.startsWith('AWS_')),
    );
    const preload = join(root, 'test', 'fixtures', 'json-keeps-keys-preload.ts');
    for (const [name, extra, expected] of [
      [`this runtime (${process.version}, ${affected ? 'affected' : 'not affected'})`, [], affected ? 1 : 0],
      ['a JSON.parse that keeps keys across calls', ['--import', preload], 1],
    ] as const) {
      const port = await freePort();
      const proc = spawn(process.execPath, ['--import', 'tsx', ...extra, join(root, 'main', 'server.ts')], {
        cwd: root,
        env: { ...clean, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let out = '';
      proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
      const exited = new Promise((r) => proc.on('exit', r));
      for (let i = 0; i < 400; i++) {
        try {
          if ((await call(port, 'GET', '/healthz')).status === 200) break;
        } catch {
          await new Promise((r) => setTimeout(r, 150));
        }
      }
      proc.kill('SIGTERM');
      await exited;
      const lines = out.split('\n').filter((l) => l.includes('reads an object key by what an earlier text held'));
      t.equal(lines.length, expected, name);
      if (expected) t.match(JSON.parse(lines[0]!), { level: 50, node: process.version, msg: /26\.12\.1 or later/ });
    }
  },
);
