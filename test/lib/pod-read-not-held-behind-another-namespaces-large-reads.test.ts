// The hook server reads answers larger than MAX_READ_BYTES (4 MiB) a few at a time (lib/kube.ts LARGE_READS, 2 for
// the whole process), so that several pods of 6 MiB as JSON are not held at once. But the turn is taken for every
// read that *may* be large, before anything is known of its size: every single-object read the injector makes of a
// pod asks for up to MAX_OBJECT_READ_BYTES (hooks/podbuggertool/inject.ts), so every pod re-read of every namespace
// queues behind the same two turns, for the whole round trip. A tenant whose PodBuggerTools select its own pods of
// 1.5 MB of `<` in an env value (9 MiB as JSON, slow to serve and send) holds both turns, and another tenant's
// injection of a 2 KB pod waits for them until its call's time is up ("no turn to read a large answer"): recorded on
// the pod as Unreachable, retried after 30 s, then 60, doubling up to an hour (match.ts retryDelaySeconds), with no
// Event. One namespace's large reads must not keep another namespace's pods from being read.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import t from 'tap';
import { HttpKubeApi, MAX_OBJECT_READ_BYTES } from '../../lib/kube.js';

const smallPod = (ns: string, name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, uid: `uid-${name}`, resourceVersion: '7' },
  spec: { containers: [{ name: 'app', image: 'nginx' }] },
});

const A_SERVED_MS = 1000;
const CALL_TIMEOUT_MS = 1500;

t.test("a small pod of one namespace is read while another namespace's large pods are being read", async (t) => {
  let arrivedA = 0;
  let twoServing!: () => void;
  const serving = new Promise<void>((resolve) => (twoServing = resolve));
  const timers = new Set<NodeJS.Timeout>();
  t.teardown(() => timers.forEach(clearTimeout));
  const srv = createServer((req: IncomingMessage, res: ServerResponse) => {
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/?]+)/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404).end();
      return;
    }
    const ns = m[1]!;
    const name = m[2]!;
    if (ns === 'tenant-a') {
      // Tenant A's pods: an env value of 1 MB of `<` (a pod may hold ~1.5 MB), as the API server writes it (6 bytes
      // each): above MAX_READ_BYTES; served in 1 s.
      const pod = {
        ...smallPod(ns, name),
        spec: { containers: [{ name: 'app', image: 'nginx', env: [{ name: 'X', value: '<'.repeat(1_000_000) }] }] },
      };
      const timer = setTimeout(() => {
        timers.delete(timer);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(pod).replace(/</g, '\\u003c'));
      }, A_SERVED_MS);
      timers.add(timer);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(smallPod(ns, name)));
  });
  srv.on('request', (req) => {
    if ((req.url ?? '').includes('/namespaces/tenant-a/') && ++arrivedA === 2) twoServing();
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => srv.close(resolve)));
  // The hook server's one client (every injector call of every namespace reads through it).
  const api = new HttpKubeApi(CALL_TIMEOUT_MS, {
    server: `http://127.0.0.1:${(srv.address() as { port: number }).port}`,
    token: 't',
  });

  // Tenant A's injector calls (Metacontroller runs several at once): re-reads of its large pods, as inject.ts makes them.
  const a = [0, 1, 2, 3].map((i) => api.get('v1', 'pods', 'tenant-a', `big-${i}`, { maxBytes: MAX_OBJECT_READ_BYTES }));
  await serving; // two of them reach the API server (they hold the turns), two wait for a turn

  // Tenant B's injector call: its small pod, read the same way.
  let b: unknown;
  try {
    b = await api.get('v1', 'pods', 'tenant-b', 'web', { maxBytes: MAX_OBJECT_READ_BYTES });
  } catch (err) {
    b = err instanceof Error ? err.message : String(err);
  }
  t.match(
    b,
    { metadata: { namespace: 'tenant-b', name: 'web' } },
    "tenant B's pod is read, not held behind tenant A's",
  );
  await Promise.allSettled(a);
});
