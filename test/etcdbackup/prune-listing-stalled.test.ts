// A listing that half-works (issue 30.2): an S3-compatible store or proxy that answers a page with IsTruncated and
// a continuation token that does not move the listing on (the token it was asked with, again; or a page with no key
// and a token) would be asked again and again, and the backup, which lists before it writes, would never be taken.
// The listing ends there, cut short: the snapshot is written, nothing is pruned, and that is said.
import t from 'tap';
import { listSnapshots, runBackup } from '../../hooks/etcdbackup/backup.js';
import { stampOf } from '../../hooks/etcdbackup/lineage.js';
import { FakeS3, fakeGateway } from '../fixtures/fake-s3.js';

const hour = (h: number) => new Date(Date.UTC(2026, 0, 1, h));

/** S3 whose listing, once asked with a token, answers `stalled` for ever (counting how often it was asked). */
function stalling(s3: FakeS3, stalled: (token: string) => Record<string, unknown>) {
  const honest = s3.client;
  const asked = { pages: 0 };
  const client = {
    send: async (cmd: any) => {
      if (cmd.constructor.name !== 'ListObjectsV2Command') return honest.send(cmd);
      asked.pages++;
      if (asked.pages > 50) throw new Error('listed for ever');
      const token = cmd.input.ContinuationToken;
      if (token) return stalled(token);
      const out: any = await honest.send(cmd);
      return { ...out, Contents: out.Contents?.slice(0, 1), IsTruncated: true, NextContinuationToken: 't1' };
    },
  };
  return { client, asked };
}

t.test('a page that answers the token it was asked with ends the listing, cut short', async (t) => {
  const s3 = new FakeS3();
  for (let h = 0; h < 3; h++) s3.put('bucket', `ns/snap_v1_${stampOf(hour(h))}`);
  const { client, asked } = stalling(s3, (token) => ({ IsTruncated: true, NextContinuationToken: token }));
  const listed = await listSnapshots(client as any, 'bucket', 'ns/snap');
  t.equal(listed.truncated, true);
  t.match(listed.why, /same continuation token/);
  t.ok(asked.pages <= 2, 'not asked again and again');
});

t.test('a page with no key and a token ends the listing, cut short', async (t) => {
  const s3 = new FakeS3();
  for (let h = 0; h < 3; h++) s3.put('bucket', `ns/snap_v1_${stampOf(hour(h))}`);
  let n = 0;
  const { client, asked } = stalling(s3, () => ({ IsTruncated: true, NextContinuationToken: `t${++n + 1}` }));
  const listed = await listSnapshots(client as any, 'bucket', 'ns/snap');
  t.equal(listed.truncated, true);
  t.match(listed.why, /no key, yet more to follow/);
  t.ok(asked.pages <= 2, 'not asked again and again');
});

t.test('a periodic backup over a stalled listing is taken, prunes nothing, and says so', async (t) => {
  const s3 = new FakeS3();
  const gw = await fakeGateway(t, { revision: 10, clusterId: '1111111111111111111' });
  let client: any = s3.client;
  const run = (h: number) =>
    runBackup({
      endpoints: [gw.url],
      path: 'bucket/ns/snap',
      periodic: true,
      maxBackups: 2,
      timeoutMs: 2000,
      s3: client,
      now: () => hour(h),
      backup: { uid: 'uid-a', name: 'ns/a' },
    });
  for (let h = 0; h < 2; h++) t.match(await run(h), { succeeded: true, pruned: [] });
  client = stalling(s3, (token) => ({ IsTruncated: true, NextContinuationToken: token })).client;
  const r: any = await run(2);
  t.match(r, { succeeded: true, pruned: [] });
  t.match(r.pruneProblem, /does not move it on.*nothing pruned/);
  t.equal(s3.keys('bucket', 'ns/').length, 3, 'every snapshot kept, the new one written');
});
