// Never destroy on doubt (issue 30.2): a periodic backup prunes its lineage from what S3 lists. A listing that
// half-works, an S3-compatible store (or a proxy) that answers a page with IsTruncated: true but no
// NextContinuationToken (some give only NextMarker, the ListObjects v1 field), has said there is more it did not
// give: the listing is not the whole path, so the backup must not take it as whole. It prunes nothing and says why,
// as it does for a listing longer than it reads.
import t from 'tap';
import { listSnapshots, runBackup } from '../../hooks/etcdbackup/backup.js';
import { stampOf } from '../../hooks/etcdbackup/lineage.js';
import { alteredListing, FakeS3, fakeGateway } from '../fixtures/fake-s3.js';

const hour = (h: number) => new Date(Date.UTC(2026, 0, 1, h));

/** S3 that gives the first `page` keys of a listing, says more follow, and gives no token to ask for them. */
function tokenless(s3: FakeS3, page: number) {
  return alteredListing(s3, (out) => {
    if ((out.Contents?.length ?? 0) <= page) return out;
    const last = out.Contents[page - 1].Key;
    return { ...out, Contents: out.Contents.slice(0, page), IsTruncated: true, NextMarker: last };
  });
}

t.test('a page that says more follow but gives no token is a truncated listing', async (t) => {
  const s3 = new FakeS3();
  for (let h = 0; h < 4; h++) s3.put('bucket', `ns/snap_v1_${stampOf(hour(h))}`);
  const listed = await listSnapshots(tokenless(s3, 2) as any, 'bucket', 'ns/snap');
  t.equal(listed.snapshots.length, 2, 'two keys given');
  t.equal(listed.truncated, true, 'S3 said there were more: the listing is not the whole path');
});

t.test('a periodic backup over a tokenless truncated listing prunes nothing and says so', async (t) => {
  const s3 = new FakeS3();
  const gw = await fakeGateway(t, { revision: 10, clusterId: '1111111111111111111' });
  let client: any = s3.client;
  let max = 3;
  const run = (h: number) =>
    runBackup({
      endpoints: [gw.url],
      path: 'bucket/ns/snap',
      periodic: true,
      maxBackups: max,
      timeoutMs: 2000,
      s3: client,
      now: () => hour(h),
      backup: { uid: 'uid-a', name: 'ns/a' },
    });
  for (let h = 0; h < 3; h++) t.match(await run(h), { succeeded: true, pruned: [] });
  t.equal(s3.keys('bucket', 'ns/').length, 3, 'three snapshots of one lineage, maxBackups 3');
  // The store now answers two keys a page, says more follow, and gives no token to ask for them.
  client = tokenless(s3, 2);
  max = 2;
  const r: any = await run(3);
  t.match(r, { succeeded: true });
  t.same(r.pruned, [], 'a listing S3 said is incomplete: nothing pruned from it');
  t.match(r.pruneProblem, /nothing pruned/, 'and that is said');
  t.equal(s3.keys('bucket', 'ns/').length, 4, 'every snapshot kept, the new one added');
});
