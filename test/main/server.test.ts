// The server process as deployed: TLS from files (reloaded when they change), client certificates (mTLS),
// and graceful shutdown on SIGTERM that finishes the requests in flight.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request } from 'node:https';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { freePort } from '../fixtures/net.js';
import { Pki } from '../fixtures/pki.js';
import { example, root } from '../fixtures/requests.js';

const TOKEN = 'a-test-token-0123456789abcdef';
const pki = new Pki();
const dir = pki.dir;
pki.issue('client', 'metacontroller');

/** A server certificate for 127.0.0.1 signed by the test CA, with this serial. */
function serverCert(serial: number): void {
  pki.issue(`server${serial}`, '127.0.0.1', { serial, san: 'IP:127.0.0.1' });
}

async function startServer(
  env: NodeJS.ProcessEnv,
  scheme: 'http' | 'https',
  port: number,
): Promise<{ proc: ChildProcess; exited: Promise<number | null> }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', join(root, 'main', 'server.ts')], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  for (let i = 0; i < 100; i++) {
    try {
      await get(scheme, port, '/healthz', { rejectUnauthorized: false, ...clientCert() });
      return { proc, exited };
    } catch {
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  throw new Error('server did not start');
}

function clientCert() {
  try {
    return { cert: readPem('client.crt'), key: readPem('client.key') };
  } catch {
    return {};
  }
}
function readPem(name: string): Buffer {
  return readFileSync(join(dir, name));
}

function get(
  scheme: 'http' | 'https',
  port: number,
  path: string,
  tls: Record<string, unknown> = {},
): Promise<{ status: number; serial?: string }> {
  return new Promise((resolve, reject) => {
    const mod = scheme === 'https' ? request : httpRequest;
    const req = mod({ host: '127.0.0.1', port, path, method: 'GET', agent: false, ...tls }, (res) => {
      const serial = (
        res.socket as unknown as { getPeerCertificate?: () => { serialNumber?: string } }
      ).getPeerCertificate?.().serialNumber;
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ...(serial ? { serial } : {}) }));
    });
    req.on('error', reject);
    req.end();
  });
}

function post(port: number, path: string, tls: Record<string, unknown>): Promise<{ status: number }> {
  const body = JSON.stringify(example('memcached-sync'));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json' },
        ...tls,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

t.test(
  'TLS from files, reloaded when they change; mTLS: hooks refuse a caller without a client certificate, probes do not',
  async (t) => {
    serverCert(1);
    writeFileSync(join(dir, 'tls.crt'), readPem('server1.crt'));
    writeFileSync(join(dir, 'tls.key'), readPem('server1.key'));
    const port = await freePort();
    const { proc, exited } = await startServer(
      {
        METAOPS_TLS_CERT_FILE: join(dir, 'tls.crt'),
        METAOPS_TLS_KEY_FILE: join(dir, 'tls.key'),
        METAOPS_TLS_CLIENT_CA_FILE: join(dir, 'ca.crt'),
      },
      'https',
      port,
    );
    t.teardown(async () => {
      proc.kill('SIGTERM');
      await exited;
    });
    const ca = readPem('ca.crt');
    const first = await get('https', port, '/healthz', { ca, ...clientCert() });
    t.equal(first.status, 200);
    t.equal(first.serial, '01', 'served with the first certificate');
    // The kubelet's probes have no client certificate: they still reach /healthz and /readyz ...
    t.equal((await get('https', port, '/healthz', { ca })).status, 200, 'probe without a client certificate: answered');
    t.equal((await get('https', port, '/readyz', { ca })).status, 200);
    // ... while a hook call without one is refused.
    t.equal((await post(port, '/hooks/memcached/sync', { ca })).status, 401, 'hook without a client certificate: 401');
    t.equal(
      (await post(port, '/hooks/memcached/sync', { ca, ...clientCert() })).status,
      200,
      'hook with one: answered',
    );

    // Rotate: new files in place (as a mounted Secret changes), then a new connection sees the new certificate.
    serverCert(2);
    writeFileSync(join(dir, 'tls.key.new'), readPem('server2.key'));
    writeFileSync(join(dir, 'tls.crt.new'), readPem('server2.crt'));
    renameSync(join(dir, 'tls.key.new'), join(dir, 'tls.key'));
    renameSync(join(dir, 'tls.crt.new'), join(dir, 'tls.crt'));
    let serial = first.serial;
    for (let i = 0; i < 40 && serial !== '02'; i++) {
      await new Promise((r) => setTimeout(r, 250));
      serial = (await get('https', port, '/healthz', { ca, ...clientCert() })).serial;
    }
    t.equal(serial, '02', 'reloaded without a restart');
  },
);

t.test('SIGTERM finishes the request in flight, then exits', async (t) => {
  // A "dependency" that accepts connections and never answers: the S3 hook waits on it until its deadline.
  const sockets: Socket[] = [];
  const blackhole = createServer((s) => sockets.push(s));
  await new Promise<void>((r) => blackhole.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    blackhole.close();
  });
  const port = await freePort();
  const { proc, exited } = await startServer(
    {
      AWS_ENDPOINT_URL: `http://127.0.0.1:${(blackhole.address() as { port: number }).port}`,
      AWS_ACCESS_KEY_ID: 'AKIDTEST',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: 'us-east-1',
      METAOPS_AUTH_TOKEN: TOKEN,
    },
    'http',
    port,
  );
  const body = JSON.stringify({
    ...example('memcached-sync'),
    parent: {
      apiVersion: 'systek.no/v1',
      kind: 'S3',
      metadata: { name: 'slow', namespace: 'default', generation: 1 },
      spec: { bucketName: 'metaops-slow' },
    },
    children: { 'Secret.v1': {} },
  });
  const started = Date.now();
  const inFlight = fetch(`http://127.0.0.1:${port}/hooks/s3/sync`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
  });
  await new Promise((r) => setTimeout(r, 500));
  proc.kill('SIGTERM');
  const res = await inFlight;
  t.equal(res.status, 200, 'the request in flight got its answer');
  const json = (await res.json()) as any;
  t.match(json.status.conditions[0], { type: 'Ready', status: 'False', reason: 'Unreachable' });
  t.ok(Date.now() - started < 9000, 'within the deadline');
  const code = await exited;
  t.equal(code, 0, `then the server exited cleanly (exit code ${code})`);
});

// Memory: the AWS SDK (S3 controller) and the YAML parser (kubeconfig) are loaded on first use, so a service that
// serves no S3 resource and runs in-cluster never holds them (about 20 MB of RSS between them).
t.test('building the app loads neither the AWS SDK nor the YAML parser; using them does', async (t) => {
  const loaded = (extra: string) => {
    const script = `
      import { createRequire } from 'node:module';
      const { buildApp } = await import(${JSON.stringify(join(root, 'lib', 'app.ts'))});
      const { operators } = await import(${JSON.stringify(join(root, 'main', 'operators.ts'))});
      const app = await buildApp({ operators, logger: false });
      await app.ready();
      ${extra}
      const cache = Object.keys(createRequire(import.meta.url).cache);
      const has = (name) => cache.some((k) => k.includes('/node_modules/' + name + '/'));
      console.log(JSON.stringify({ sdk: has('@aws-sdk/client-s3') || has('@aws-sdk/client-iam'), yaml: has('yaml') }));
      await app.close();`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
    });
    return JSON.parse(out.trim().split('\n').pop()!) as { sdk: boolean; yaml: boolean };
  };
  t.same(loaded(''), { sdk: false, yaml: false });
  t.same(
    loaded(`await import(${JSON.stringify(join(root, 'hooks', 's3', 'aws.ts'))}); await import('yaml');`),
    { sdk: true, yaml: true },
    'the check sees them once they are imported',
  );
});
