// Never destroy on doubt (issue 30.2): a periodic backup prunes its lineage to maxBackups from what S3 lists. A
// listing that half-works (an S3-compatible store whose pages overlap under concurrent writes, a continuation token
// that repeats the last key of a page) may name one key twice: the lineage still holds as many snapshots as exist,
// and pruning must keep maxBackups of them (or prune nothing on a listing it cannot trust), never fewer.
import t from 'tap';
import { listSnapshots, runBackup } from '../../hooks/etcdbackup/backup.js';
import { META, periodicSnapshot, stampOf, toPrune, type Snapshot } from '../../hooks/etcdbackup/lineage.js';
import { alteredListing, FakeS3, fakeGateway } from '../fixtures/fake-s3.js';

const hour = (h: number) => new Date(Date.UTC(2026, 0, 1, h));

t.test('a listing that names one snapshot twice: the lineage keeps maxBackups snapshots', async (t) => {
  const s3 = new FakeS3();
  const gw = await fakeGateway(t, { revision: 10, clusterId: '1111111111111111111' });
  let repeat = false;
  const client = alteredListing(s3, (out) => {
    if (repeat && out.Contents?.length > 1) {
      // The newest key listed twice (overlapping pages), in S3's key order.
      const newest = out.Contents[out.Contents.length - 1];
      out.Contents = [...out.Contents, { ...newest }];
    }
    return out;
  });
  const run = (h: number) =>
    runBackup({
      endpoints: [gw.url],
      path: 'bucket/ns/snap',
      periodic: true,
      maxBackups: 3,
      timeoutMs: 2000,
      s3: client as any,
      now: () => hour(h),
      backup: { uid: 'uid-a', name: 'ns/a' },
    });
  for (let h = 0; h < 3; h++) t.match(await run(h), { succeeded: true, pruned: [] });
  t.equal(s3.keys('bucket', 'ns/').length, 3, 'three snapshots, maxBackups 3: nothing pruned yet');
  repeat = true;
  const r = await run(3);
  t.match(r, { succeeded: true });
  t.same(
    s3.keys('bucket', 'ns/'),
    ['ns/snap_v10_2026-01-01T01-00-00Z', 'ns/snap_v10_2026-01-01T02-00-00Z', 'ns/snap_v10_2026-01-01T03-00-00Z'],
    'the three newest snapshots of the lineage are kept (only the oldest pruned)',
  );
});

t.test('toPrune counts a key given twice once: the lineage keeps maxBackups', async (t) => {
  const since = '2026-01-01T00-00-00Z';
  const lineage = { uid: 'u', clusterId: 'c1', since };
  const meta = { [META.uid]: 'u', [META.cluster]: 'c1', [META.since]: since };
  const snap = (h: number): Snapshot => ({ ...periodicSnapshot('p', `p_v${h}_${stampOf(hour(h))}`)!, meta });
  const written = `p_v3_${stampOf(hour(3))}`;
  t.same(toPrune([snap(2), snap(2), snap(1), snap(0)], lineage, 3, written), [`p_v0_${stampOf(hour(0))}`]);
  t.same(toPrune([snap(2), snap(1), snap(1), snap(1)], lineage, 3, written), [], 'three of them: nothing pruned');
});

t.test('a listing whose pages overlap lists each snapshot once', async (t) => {
  const s3 = new FakeS3();
  for (let h = 0; h < 4; h++) s3.put('bucket', `ns/snap_v1_${stampOf(hour(h))}`);
  const honest = s3.client;
  let page = 0;
  const client = {
    send: async (cmd: any) => {
      if (cmd.constructor.name !== 'ListObjectsV2Command') return honest.send(cmd);
      // Two pages, the second beginning again with the first's last key.
      const keys = s3.keys('bucket', 'ns/');
      return page++ === 0
        ? { Contents: keys.slice(0, 2).map((Key: string) => ({ Key })), IsTruncated: true, NextContinuationToken: 'x' }
        : { Contents: keys.slice(1).map((Key: string) => ({ Key })), IsTruncated: false };
    },
  };
  const { snapshots } = await listSnapshots(client as any, 'bucket', 'ns/snap');
  t.same(
    snapshots.map((s) => s.stamp),
    [3, 2, 1, 0].map((h) => stampOf(hour(h))),
  );
});
