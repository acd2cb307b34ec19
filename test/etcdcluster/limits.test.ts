// The etcd findings of issue 15: a spec field cannot make the hook dial elsewhere (SSRF), an answer cannot
// exhaust memory, and silent members cannot push one sync past the hook route's deadline (8.5 s). Each is run
// with the real HttpEtcdClient against loopback servers.
import { etcdParent } from '../fixtures/etcd.js';
import { createServer, type Server } from 'node:http';
import { listening } from '../fixtures/net.js';
import t from 'tap';
import { HttpEtcdClient } from '../../hooks/etcdcommon/etcd.js';
import { memberPod } from '../../hooks/etcdcluster/members.js';
import { etcdSync as sync } from '../fixtures/hooks.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { asObserved, FIXED_NOW, objectMap } from '../fixtures/requests.js';

async function listen(
  t: { teardown(fn: () => void): void },
  handler: Parameters<typeof createServer>[1],
): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  return { server, port: await listening(t, server) };
}

const parent = etcdParent;

const pods = (n: number, spec: Record<string, unknown> = {}): KubeObject[] =>
  Array.from({ length: n }, (_, i) =>
    asObserved(
      memberPod({
        parent: parent(spec),
        spec: { repository: 'quay.io/coreos/etcd', paused: false, version: '3.5.0', size: n, ...spec } as any,
        name: `e-${i}`,
        initialCluster: '',
        state: 'existing',
      }),
      {
        phase: 'Running',
      },
    ),
  );

t.test(
  'clusterDomain cannot point the hook elsewhere: refused, nothing dialled, nothing reflected (SSRF)',
  async (t) => {
    let hits = 0;
    const { port } = await listen(t, (_req, res) => {
      hits++;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('INTERNAL-SECRET-TEXT');
    });
    const spec = { size: 1, pod: { clusterDomain: `x@127.0.0.1:${port}/internal?q=1#` } };
    const res = await sync(
      {
        controller: {},
        parent: parent(spec, { phase: 'Running' }),
        children: objectMap(pods(1), 'v1', ['Pod.v1', 'Service.v1']),
      },
      { etcd: new HttpEtcdClient({ timeoutMs: 500 }), now: FIXED_NOW },
    );
    t.equal(hits, 0, 'no request reached the address in the spec');
    t.notMatch(JSON.stringify(res.status), /INTERNAL-SECRET-TEXT/);
    t.match((res.status as any).conditions[0], { reason: 'InvalidSpec', message: /clusterDomain/ });
    t.same(
      res.children.filter((c) => c.kind === 'Pod').map((c) => c.metadata.name),
      ['e-0'],
      'the pods are kept',
    );
  },
);

t.test('an answer larger than the limit fails the call and is not read to the end (exhaustion)', async (t) => {
  const total = 64 * 1024 * 1024;
  let sent = 0;
  const { port } = await listen(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const write = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', write);
      }
      res.end();
    };
    res.on('close', () => (sent = Math.min(sent, total)));
    write();
  });
  const client = new HttpEtcdClient({ timeoutMs: 5000 });
  const before = process.memoryUsage().rss;
  const err = await client.memberList([`http://127.0.0.1:${port}`]).catch((e: unknown) => e);
  t.ok(err instanceof Error, 'the call fails');
  t.ok(sent < 16 * 1024 * 1024, `the answer was cut short (${(sent / 1048576).toFixed(1)} MiB of 64 sent)`);
  t.ok(process.memoryUsage().rss - before < 48 * 1024 * 1024, 'memory did not grow with the answer');
});

t.test('nine silent members: one sync well inside the route deadline, and QuorumLost is reported', async (t) => {
  // Members that accept the connection and never answer.
  const { port } = await listen(t, () => undefined);
  const client = new HttpEtcdClient({
    resolve: (url) => {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
  });
  const started = Date.now();
  const res = await sync(
    {
      controller: {},
      parent: parent({ size: 9 }, { phase: 'Running' }),
      children: objectMap(pods(9), 'v1', ['Pod.v1', 'Service.v1']),
    },
    { etcd: client, now: FIXED_NOW },
  );
  const ms = Date.now() - started;
  t.ok(ms < 4500, `one sync took ${ms} ms (the route's deadline is 8500)`);
  t.match(
    (res.status as any).conditions.find((c: any) => c.type === 'Available'),
    { status: 'False', reason: 'QuorumLost' },
  );
  t.equal(res.children.filter((c) => c.kind === 'Pod').length, 9, 'every pod kept');
});

t.test('a version or leader a member answers is reported only when it looks like one', async (t) => {
  const { port } = await listen(t, (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url === '/health') return res.end(JSON.stringify({ health: 'true' }));
    if (req.url === '/version')
      return res.end(JSON.stringify({ etcdserver: 'see http://evil.example/<script>', etcdcluster: 'x'.repeat(5000) }));
    res.end(JSON.stringify({ leader: 'not-an-id' }));
  });
  const h = await new HttpEtcdClient().health(`http://127.0.0.1:${port}`);
  t.same(h, { healthy: true });
});

t.test('the CRD states the limits: size at most 9, clusterDomain a DNS name', async (t) => {
  const { resource } = await import('../../hooks/etcdcluster/schema.js');
  const spec = resource.spec as any;
  t.equal(spec.properties.size.maximum, 9);
  const pattern = new RegExp(spec.properties.pod.properties.clusterDomain.pattern);
  t.ok(pattern.test('cluster.local'));
  t.ok(pattern.test('.cluster.local'));
  t.notOk(pattern.test('x@127.0.0.1:18460/internal?q=1#'));
  const tooBig = await sync(
    { controller: {}, parent: parent({ size: 50 }), children: objectMap([], 'v1', ['Pod.v1', 'Service.v1']) },
    { etcd: new HttpEtcdClient(), now: FIXED_NOW },
  );
  t.match((tooBig.status as any).conditions[0], { reason: 'InvalidSpec' });
  t.same(
    tooBig.children.filter((c) => c.kind === 'Pod'),
    [],
    'no 50 pods',
  );
});
