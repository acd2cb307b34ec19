// An etcd endpoint a cluster admin lists in METAOPS_BACKUP_ETCD_ENDPOINTS is compared with the spec as a whole URL,
// its path included (tenancy.ts normalUrl keeps it: `a=https://gateway/tenant-a` is not `https://gateway/`). The
// backup must then dial under that path: an endpoint allowed as `/tenant-a` must not be dialled at the gateway's root
// (or another tenant's path), where the allowlist never allowed namespace a.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { snapshotStream } from '../../hooks/etcdbackup/backup.js';
import { etcdTargets, STRICT_TENANCY } from '../../hooks/etcdcommon/tenancy.js';

t.test('a backup dials an allowlisted etcd endpoint under the path the allowlist names', async (t) => {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? '');
    req.resume();
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":"not here"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const { port } = server.address() as AddressInfo;
  const allowed = `http://127.0.0.1:${port}/tenant-a`;

  // The allowlist admits the endpoint for namespace a, path and all.
  const targets = etcdTargets('a', { etcdEndpoints: [allowed] }, [], {
    ...STRICT_TENANCY,
    etcdEndpoints: [{ namespace: 'a', url: allowed }],
  });
  t.same(targets, { ok: true, endpoints: [allowed], clusters: [] });
  // ... and refuses the gateway's root for it.
  const root = etcdTargets('a', { etcdEndpoints: [`http://127.0.0.1:${port}`] }, [], {
    ...STRICT_TENANCY,
    etcdEndpoints: [{ namespace: 'a', url: allowed }],
  });
  t.equal(root.ok, false);

  try {
    for await (const _chunk of snapshotStream({ url: allowed }, 2000)) break;
  } catch {
    // a 404: only where the request went matters here
  }
  t.equal(seen.length, 1, 'one request');
  t.ok(seen[0]!.startsWith('/tenant-a/'), `the snapshot request went to ${seen[0]}, outside /tenant-a`);
});
