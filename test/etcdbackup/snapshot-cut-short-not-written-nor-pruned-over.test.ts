// Backups belong to a lineage and prune it to maxBackups (issue 30.2): pruning must never trade the lineage's good
// snapshots for one that cannot be restored. An etcd snapshot ends with the sha256 of what precedes it (etcd, and the
// restore check, hooks/etcdcommon/snapshot.ts verifyStream, refuse one without it). A snapshot stream from etcd that
// ends early without an error message — a wrong etcd or a proxy between that closes the response as if complete, or
// the member's connection closed mid-stream — is written as a snapshot and the older ones of the lineage are pruned
// over it: with maxBackups 2, a good snapshot is deleted for every such run, and the one left is refused at restore.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { PART_SIZE } from '../../hooks/etcdbackup/backup.js';
import { FakeS3, fakeGateway, fakeKvHash, intactSnapshot } from '../fixtures/fake-s3.js';
import { backupAt, CLUSTER, lineageMeta } from '../fixtures/periodic-backup.js';

const meta = (revision: number) => lineageMeta(revision);

/** An intact etcd snapshot: its body and the sha256 of it. */
const intact = (text: string): Buffer => intactSnapshot(text.repeat(200));

/**
 * A stand-in etcd v3 gateway at revision 120 whose snapshot stream is cut short after its first half: `how` says
 * whether the response then ends as if complete ('ended') or its connection is closed mid-stream ('closed').
 */
async function cutShort(t: { teardown(fn: () => void): void }, how: 'ended' | 'closed'): Promise<string> {
  const snapshot = intact('the data at revision 120\n');
  const server = createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/v3/maintenance/status')
        return res.end(JSON.stringify({ header: { revision: '120', cluster_id: CLUSTER }, version: '3.5.9' }));
      if (req.url === '/v3/maintenance/hashkv') {
        const revision = Number((JSON.parse(Buffer.concat(body).toString() || '{}') as { revision?: string }).revision);
        return res.end(
          JSON.stringify({
            header: { revision: '120' },
            hash: fakeKvHash('h1', revision),
            compact_revision: '-1',
          }),
        );
      }
      if (req.url === '/v3/maintenance/snapshot') {
        const half = snapshot.subarray(0, Math.floor(snapshot.length / 2));
        res.write(JSON.stringify({ result: { blob: half.toString('base64') } }) + '\n');
        if (how === 'ended') return res.end();
        return setTimeout(() => res.socket?.destroy(), 50);
      }
      res.statusCode = 404;
      return res.end('404 page not found\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

for (const how of ['ended', 'closed'] as const) {
  t.test(`a snapshot stream cut short (${how}): not written as a snapshot, nothing pruned`, async (t) => {
    const s3 = new FakeS3();
    // Two good snapshots of the lineage, revisions 100 and 110.
    s3.put('bucket', 'ns/snap_v100_2026-01-01T00-00-00Z', intact('at 100\n').toString('latin1'), meta(100));
    s3.put('bucket', 'ns/snap_v110_2026-01-01T00-10-00Z', intact('at 110\n').toString('latin1'), meta(110));
    const url = await cutShort(t, how);
    const r = await backupAt(s3, url, new Date(Date.UTC(2026, 0, 1, 1)));
    t.comment(JSON.stringify({ ...r, pruneProblem: undefined }));
    t.equal(r.succeeded, false, 'a snapshot without its sha256 trailer is no backup');
    t.same(
      s3.keys('bucket', 'ns/').sort(),
      ['ns/snap_v100_2026-01-01T00-00-00Z', 'ns/snap_v110_2026-01-01T00-10-00Z'],
      'the good snapshots kept, nothing written over them',
    );
  });
}

t.test('a one-off backup whose snapshot stream ends early: not succeeded (it is never taken again)', async (t) => {
  const s3 = new FakeS3();
  const url = await cutShort(t, 'ended');
  const r = await backupAt(s3, url, new Date(Date.UTC(2026, 0, 1, 1)), {
    path: 'bucket/ns/before-upgrade.db',
    periodic: false,
    maxBackups: 0,
  });
  t.comment(JSON.stringify(r));
  t.equal(r.succeeded, false, 'a snapshot without its sha256 trailer is no backup');
  t.same(s3.keys('bucket', 'ns/'), [], 'nothing written at the key a one-off backup writes once');
});

t.test('a snapshot over one part whose stream ends early: the multipart upload aborted, nothing written', async (t) => {
  const s3 = new FakeS3();
  const gw = await fakeGateway(t, {
    revision: 120,
    clusterId: CLUSTER,
    snapshot: 'x'.repeat(PART_SIZE + 4096),
    snapshotCutShort: true,
  });
  const r = await backupAt(s3, gw.url, new Date(Date.UTC(2026, 0, 1, 1)), { maxBackups: 1, timeoutMs: 5000 });
  t.match(r, { succeeded: false, reason: /^no snapshot written to s3:\/\/bucket\/ns\/snap_v120_.*without the sha256/ });
  t.equal(s3.count('UploadPart'), 1, 'a part went up before the end was seen');
  t.equal(s3.count('CompleteMultipartUpload'), 0, 'the upload never completed');
  t.equal(s3.openUploads, 0, 'and it was aborted');
  t.same(s3.keys('bucket', 'ns/'), [], 'nothing written');
});
