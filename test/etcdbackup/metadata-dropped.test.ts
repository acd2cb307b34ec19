// A dependency that half-works (issue 30.2): pruning rests on the lineage each snapshot records in its S3 object
// metadata. An S3-compatible store that does not keep user metadata (some gateways and appliances drop x-amz-meta-*
// headers) gives every snapshot back without one: none is this EtcdBackup's, so nothing is ever pruned (the safe
// side), and maxBackups silently stops holding: the path grows without bound while status says every backup is fine.
// What S3 did is to be said (status.pruneProblem, a PruneFailed Warning): the snapshot it just wrote came back
// without the lineage it was written with.
import t from 'tap';
import { runBackup } from '../../hooks/etcdbackup/backup.js';
import { FakeS3, fakeGateway } from '../fixtures/fake-s3.js';

const hour = (h: number) => new Date(Date.UTC(2026, 0, 1, h));

t.test('an S3 that drops object metadata: maxBackups cannot hold, and the backup says so', async (t) => {
  const s3 = new FakeS3();
  const gw = await fakeGateway(t, { revision: 10, clusterId: '1111111111111111111' });
  const honest = s3.client;
  const client = {
    send: (cmd: any) => {
      if (cmd.input?.Metadata) delete cmd.input.Metadata;
      return honest.send(cmd);
    },
  };
  let last: any;
  for (let h = 0; h < 5; h++)
    last = await runBackup({
      endpoints: [gw.url],
      path: 'bucket/ns/snap',
      periodic: true,
      maxBackups: 2,
      timeoutMs: 2000,
      s3: client as any,
      now: () => hour(h),
      backup: { uid: 'uid-a', name: 'ns/a' },
    });
  t.equal(s3.keys('bucket', 'ns/').length, 5, 'nothing pruned: no snapshot could be proven this lineage’s');
  t.match(last, { succeeded: true });
  t.ok(last.pruneProblem, `the fifth run says why maxBackups 2 does not hold (${last.pruneProblem ?? 'nothing said'})`);
});

t.test('an S3 that drops object metadata: the problem is said first, and in the status and a Warning', async (t) => {
  const s3 = new FakeS3();
  const gw = await fakeGateway(t, { revision: 10, clusterId: '1111111111111111111' });
  const honest = s3.client;
  const client = {
    send: (cmd: any) => {
      if (cmd.input?.Metadata) delete cmd.input.Metadata;
      return honest.send(cmd);
    },
  };
  const r = await runBackup({
    endpoints: [gw.url],
    path: 'bucket/ns/snap',
    periodic: true,
    maxBackups: 2,
    timeoutMs: 2000,
    s3: client as any,
    now: () => hour(0),
    backup: { uid: 'uid-a', name: 'ns/a' },
  });
  t.match(r, {
    succeeded: true,
    pruned: [],
    pruneProblem:
      /^nothing pruned, maxBackups 2 does not hold: S3 gave the snapshot just written back without the lineage metadata/,
  });
  t.equal(s3.count('HeadObject'), 1, 'the snapshot written, read back once');
});

t.test('an S3 that keeps metadata: nothing to report, one read back', async (t) => {
  const s3 = new FakeS3();
  const gw = await fakeGateway(t, { revision: 10, clusterId: '1111111111111111111' });
  const runAt = (h: number, maxBackups: number) =>
    runBackup({
      endpoints: [gw.url],
      path: 'bucket/ns/snap',
      periodic: true,
      maxBackups,
      timeoutMs: 2000,
      s3: s3.client,
      now: () => hour(h),
      backup: { uid: 'uid-a', name: 'ns/a' },
    });
  const first = await runAt(0, 2);
  t.notOk(first.pruneProblem);
  t.equal(s3.count('HeadObject'), 1);
  const keepAll = await runAt(1, 0);
  t.notOk(keepAll.pruneProblem, 'maxBackups 0: nothing to hold');
  t.equal(s3.count('HeadObject'), 2, 'maxBackups 0: no read back (only its previous snapshot found)');
});
