// A snapshot that etcd's side fails to send is not written, and the backup's reason says which way it failed
// (hooks/etcdbackup/backup.ts snapshotStream), so that the one who reads it knows where to look: etcd's own error
// message as etcd gave it; a connection that broke mid-stream, after how many bytes; a stream that ended without the
// sha256 etcd ends a whole snapshot with, after how many bytes; and an answer holding a message longer than any etcd
// sends (8 MiB: etcd's carry 32 KiB each), which is not read into memory to its end.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { runBackup } from '../../hooks/etcdbackup/backup.js';
import { FakeS3, fakeKvHash, intactSnapshot } from '../fixtures/fake-s3.js';

const CLUSTER = '1111111111111111111';
/** An intact snapshot and the bytes a stream cut in its middle carries. */
const snapshot = intactSnapshot('the data at revision 120\n'.repeat(100));
const half = snapshot.subarray(0, Math.floor(snapshot.length / 2));
const message = (bytes: Buffer) => JSON.stringify({ result: { blob: bytes.toString('base64') } }) + '\n';

type How = 'error' | 'closed' | 'ended' | 'long';

/** A stand-in etcd v3 gateway at revision 120 whose snapshot stream fails `how`, after half the snapshot. */
async function failing(t: { teardown(fn: () => void): void }, how: How): Promise<string> {
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
          JSON.stringify({ header: { revision: '120' }, hash: fakeKvHash('h1', revision), compact_revision: '-1' }),
        );
      }
      if (req.url === '/v3/maintenance/snapshot') {
        res.write(message(half));
        if (how === 'error') return res.end(JSON.stringify({ error: { message: 'etcdserver: snapshot aborted' } }));
        if (how === 'ended') return res.end();
        if (how === 'closed') return setTimeout(() => res.socket?.destroy(), 50);
        // One line of 9 MiB, no newline in it, then the end.
        const mib = 'A'.repeat(1024 * 1024);
        for (let i = 0; i < 9; i++) res.write(mib);
        return res.end();
      }
      res.statusCode = 404;
      return res.end('404 page not found\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const reasons: Record<How, RegExp> = {
  error: /^no snapshot written to s3:\/\/bucket\/ns\/snap_v120_\S+: snapshot: etcdserver: snapshot aborted$/,
  closed: new RegExp(
    `^no snapshot written to s3://bucket/ns/snap_v120_\\S+: snapshot: the stream from etcd broke after ${half.length} bytes \\(.+\\): it is not written$`,
  ),
  ended: new RegExp(
    `^no snapshot written to s3://bucket/ns/snap_v120_\\S+: snapshot: the stream from etcd ended after ${half.length} bytes without the sha256 etcd ends a whole snapshot with \\(cut short\\): it is not written$`,
  ),
  long: /^no snapshot written to s3:\/\/bucket\/ns\/snap_v120_\S+: snapshot: etcd's answer holds a message longer than 8388608 characters \(etcd sends 32 KiB at a time\): it is not written$/,
};

for (const how of Object.keys(reasons) as How[])
  t.test(`a snapshot stream that fails (${how}): nothing written, the reason says how`, async (t) => {
    const s3 = new FakeS3();
    const r = await runBackup({
      endpoints: [await failing(t, how)],
      path: 'bucket/ns/snap',
      periodic: true,
      maxBackups: 2,
      timeoutMs: 5000,
      s3: s3.client,
      now: () => new Date(Date.UTC(2026, 0, 1, 1)),
      backup: { uid: 'uid-a', name: 'ns/a' },
    });
    t.equal(r.succeeded, false);
    t.match(r.reason, reasons[how]);
    t.same(s3.keys('bucket', 'ns/'), [], 'nothing written');
  });
