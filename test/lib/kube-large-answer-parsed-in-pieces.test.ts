// The hook server's own reads of the Kubernetes API are parsed on its one thread too: a page of a namespace's
// PodBuggerTools is up to MAX_READ_BYTES (4 MiB), a pod up to MAX_OBJECT_READ_BYTES, and their labels are as many keys
// as their writers make (the API server bounds each label, not their number). A page of three tools of ~1.3 MiB of
// labels each is ~330,000 keys: read whole by one JSON.parse, it held the server's thread as long as a hook request
// of them did. Expected: the answer is parsed a piece at a time (lib/json.ts parseInPieces), no JSON.parse making
// more than MAX_MEMBERS_PER_PARSE members, and the page read is what the API server answered.
import { createServer } from 'node:http';
import t from 'tap';
import { MAX_READ_BYTES } from '../../lib/http.js';
import { HttpKubeApi } from '../../lib/kube.js';
import { manyKeys, MAX_MEMBERS_PER_PARSE, watchParses } from '../fixtures/parsed-members.js';

t.test("a page of a namespace's objects with many labels is not parsed in one go", async (t) => {
  const items = [0, 1, 2].map((n) => ({
    apiVersion: 'debug.metaops.dev/v1alpha1',
    kind: 'PodBuggerTool',
    metadata: { name: `tool-${n}`, namespace: 'tenant-a', labels: manyKeys(1.3 * 1024 * 1024, n) },
    spec: { label: 'app=web', image: 'busybox:1.36' },
  }));
  const page = JSON.stringify({
    kind: 'PodBuggerToolList',
    apiVersion: 'debug.metaops.dev/v1alpha1',
    metadata: {},
    items,
  });
  t.ok(page.length < MAX_READ_BYTES, `the page (${page.length} bytes) is within the read bound`);
  const srv = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(page) });
    res.end(page);
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => srv.close(resolve)));
  const api = new HttpKubeApi(60_000, {
    server: `http://127.0.0.1:${(srv.address() as { port: number }).port}`,
    token: 't',
  });
  const watched = watchParses(t);
  const read = await api.list!('debug.metaops.dev/v1alpha1', 'podbuggertools', 'tenant-a', { limit: 100 });
  const parses = watched.counts();
  t.equal(JSON.stringify(read.items), JSON.stringify(items), 'the page read is the one answered');
  const most = Math.max(0, ...parses);
  t.ok(
    most <= MAX_MEMBERS_PER_PARSE,
    `no parse of the page makes more than ${MAX_MEMBERS_PER_PARSE} members (the most: ${most})`,
  );
});
