// An answer that may be larger than MAX_READ_BYTES (a pod read, a one-item page: up to MAX_OBJECT_READ_BYTES) is read
// past MAX_READ_BYTES only in one of the process's LARGE_READS turns, taken once the answer is known to be larger: by
// its Content-Length, or, for an answer sent without one (chunked), when the bytes read pass MAX_READ_BYTES. A small
// answer never waits for a turn; a large one never goes on without one; every turn taken is given back.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import t from 'tap';
import { MAX_READ_BYTES } from '../../lib/http.js';
import { HttpKubeApi, LARGE_READS, largeReads, MAX_OBJECT_READ_BYTES } from '../../lib/kube.js';

const podOf = (ns: string, name: string, value: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, uid: `uid-${name}`, resourceVersion: '7' },
  spec: { containers: [{ name: 'app', image: 'nginx', env: [{ name: 'X', value }] }] },
});

t.test('a large answer is read past MAX_READ_BYTES only in a turn, whether its size is said or not', async (t) => {
  const big = 'x'.repeat(MAX_READ_BYTES + 1024);
  const srv = createServer((req: IncomingMessage, res: ServerResponse) => {
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/?]+)/.exec(req.url ?? '')!;
    const [ns, name] = [m[1]!, m[2]!];
    const text = JSON.stringify(podOf(ns, name, name.startsWith('big') ? big : 'small'));
    if (name.endsWith('-chunked')) {
      // No Content-Length: sent in pieces of 64 KiB.
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let at = 0; at < text.length; at += 65536) res.write(text.slice(at, at + 65536));
      res.end();
    } else {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    }
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => srv.close(resolve)));
  const server = `http://127.0.0.1:${(srv.address() as { port: number }).port}`;
  // A client whose calls give up soon (while the turns are held elsewhere), and one that waits for the turns.
  const quick = new HttpKubeApi(500, { server, token: 't' });
  const patient = new HttpKubeApi(20_000, { server, token: 't' });
  const read = (name: string, api = quick) =>
    api.get('v1', 'pods', 'ns', name, { maxBytes: MAX_OBJECT_READ_BYTES }).then(
      (pod) => pod?.metadata.name,
      (err: Error) => err.message,
    );

  t.equal(largeReads.available, LARGE_READS);
  // Every turn held elsewhere (another namespace's large pods being read).
  const held = await Promise.all(Array.from({ length: LARGE_READS }, () => largeReads.take(100)));
  t.equal(await read('small'), 'small', 'a small answer with its size said is read without a turn');
  t.equal(await read('small-chunked'), 'small-chunked', 'a small answer sent in pieces is read without a turn');
  t.match(
    await read('big'),
    /no turn to read a large answer|no answer within 500 ms/,
    'a large answer with its size said waits for a turn, until its call gives up',
  );
  t.match(
    await read('big-chunked'),
    /no turn to read a large answer|no answer within 500 ms/,
    'a large answer in pieces waits for a turn, until its call gives up',
  );
  held.forEach((give) => give());
  t.equal(largeReads.available, LARGE_READS, 'no turn kept by a call that gave up');

  // With the turns free, large answers are read, at most LARGE_READS at once, and every turn comes back.
  const names = ['big', 'big-chunked', 'big-2', 'big-3-chunked'];
  t.same(await Promise.all(names.map((name) => read(name, patient))), names, 'each large answer is read in its turn');
  t.equal(largeReads.available, LARGE_READS, 'every turn given back');
});
