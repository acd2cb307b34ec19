// Real etcd (3.6.9 and 3.5.21, run by the test kubelet) and moto: the backup writes a snapshot only whole, and etcd's
// Snapshot RPC ends every snapshot with the sha256 of the bytes before it, which the backup checks before its upload
// completes (hooks/etcdbackup/backup.ts snapshotStream). Here: a snapshot of each version is written with that
// trailer and restores (etcdutl, which checks it too); the same etcd behind a proxy that ends the snapshot's response
// early, as if complete, writes nothing and prunes nothing of the lineage (maxBackups 1). The fast test with a
// stand-in gateway: test/etcdbackup/snapshot-cut-short-not-written-nor-pruned-over.test.ts.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import t from 'tap';
import { runBackup } from '../../hooks/etcdbackup/backup.js';
import { EtcdKubelet, etcdBin } from '../fixtures/etcd-kubelet.js';
import { startMoto, type Moto } from '../fixtures/moto.js';

etcdBin();
let moto: Moto;
let s3: S3Client;
t.before(async () => {
  moto = await startMoto();
  s3 = new S3Client({ endpoint: moto.endpoint, region: moto.region, credentials: moto.admin, forcePathStyle: true });
  await s3.send(new CreateBucketCommand({ Bucket: 'backups' }));
});
t.teardown(() => moto?.stop());

async function keys(prefix: string): Promise<string[]> {
  const page = await s3.send(new ListObjectsV2Command({ Bucket: 'backups', Prefix: prefix }));
  return (page.Contents ?? []).map((o) => o.Key!).sort();
}

async function body(key: string): Promise<Buffer> {
  const res = await s3.send(new GetObjectCommand({ Bucket: 'backups', Key: key }));
  return Buffer.from(await res.Body!.transformToByteArray());
}

/**
 * A proxy in front of an etcd client URL: every call passed through as it is, but the snapshot's response ended,
 * as if complete, after its first `keep` bytes (a proxy or load balancer that closes a long response early).
 */
async function cuttingProxy(t: { teardown(fn: () => void): void }, target: string, keep: number): Promise<string> {
  const to = new URL(target);
  const server = createServer((req, res) => {
    const up = request(
      { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (req.url !== '/v3/maintenance/snapshot') return void answer.pipe(res);
        // Whole messages (lines) only, up to the first that ends past `keep` bytes: then the response ends.
        let sent = 0;
        let done = false;
        answer.on('data', (chunk: Buffer) => {
          if (done) return;
          const nl = sent + chunk.length > keep ? chunk.indexOf(0x0a, Math.max(0, keep - sent)) : -1;
          if (nl < 0) {
            res.write(chunk);
            sent += chunk.length;
            return;
          }
          done = true;
          res.end(chunk.subarray(0, nl + 1));
          answer.destroy();
        });
        answer.on('end', () => res.end());
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

for (const version of ['3.6.9', '3.5.21']) {
  t.test(
    `etcd ${version}: a snapshot is written whole, and one cut short is not written nor pruned over`,
    async (t) => {
      const name = `whole-${version.replace(/\./g, '')}`;
      const k = new EtcdKubelet(name, { size: 1, version }, 'default');
      t.teardown(() => k.shutdown());
      await k.converge(`default/${name}`, (res) => (res.status as any).members.ready.length === 1);
      // Enough data for a snapshot of several of etcd's 32 KiB messages.
      for (let i = 0; i < 20; i++) await k.put(`key-${i}`, `value-${i}-`.repeat(2000));
      const member = k.endpoint(k.livePods()[0]!);
      const base = `backups/default/${name}/snap`;
      const options = (endpoint: string, at: number) => ({
        endpoints: [endpoint],
        path: base,
        periodic: true,
        maxBackups: 1,
        timeoutMs: 10_000,
        s3,
        now: () => new Date(Date.UTC(2026, 0, 1, at)),
        backup: { uid: `uid-${name}`, name: `default/${name}` },
      });

      const good = await runBackup(options(member, 0));
      t.match(good, { succeeded: true, etcdVersion: version }, 'a backup straight from etcd');
      const snapshot = await body(good.key!);
      const data = snapshot.subarray(0, snapshot.length - 32);
      t.ok(snapshot.length > 64 * 1024, `the snapshot spans several messages (${snapshot.length} bytes)`);
      t.same(
        snapshot.subarray(-32),
        createHash('sha256').update(data).digest(),
        `etcd ${version} ends its snapshot with the sha256 of the rest, and the backup keeps it`,
      );
      // etcdutl checks the same trailer before it restores (no --skip-hash-check).
      const dir = mkdtempSync(join(tmpdir(), 'metaops-whole-'));
      t.teardown(() => rmSync(dir, { recursive: true, force: true }));
      writeFileSync(join(dir, 'snap.db'), snapshot);
      execFileSync(
        join(etcdBin(), 'etcdutl'),
        ['snapshot', 'restore', join(dir, 'snap.db'), '--data-dir', join(dir, 'restored')],
        { stdio: 'pipe' },
      );
      t.pass('etcdutl restores it');

      await k.put('after', 'the good backup');
      const before = await keys(`default/${name}/`);
      t.same(before, [good.key], 'one good snapshot');
      // Cut after about half of the response (base64 in JSON messages: a third more than the snapshot's bytes).
      const proxy = await cuttingProxy(t, member, Math.floor((snapshot.length * 4) / 3 / 2));
      const cut = await runBackup(options(proxy, 1));
      t.comment(JSON.stringify(cut));
      t.match(
        cut,
        { succeeded: false, reason: /no snapshot written .*without the sha256/ },
        'a snapshot response ended early, without an error: a failed backup, said as such',
      );
      t.same(await keys(`default/${name}/`), before, 'nothing written, the good snapshot not pruned (maxBackups 1)');
    },
  );
}
