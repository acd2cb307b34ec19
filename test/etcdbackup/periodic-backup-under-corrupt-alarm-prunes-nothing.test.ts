// A periodic backup of a cluster under an alarm other than NOSPACE (CORRUPT: etcd's corruption check found a member
// whose data disagrees, every write refused): the maintenance API and reads still answer, so each run succeeded and
// pruned to maxBackups, and two runs under the alarm deleted both snapshots taken before it for snapshots that may
// be of the disagreeing member's data. Never destroy on doubt: the run reads etcd's alarms before its snapshot, takes
// the snapshot (recording the alarm in its metadata) and prunes nothing, saying why; so too when the alarms cannot be
// read. NOSPACE says nothing against the data: pruning goes on under it. (Real etcd 3.5.21 + moto:
// test/real/etcd-periodic-backup-under-corrupt-alarm-keeps-earlier-snapshots-real.test.ts.)
import t from 'tap';
import { META } from '../../hooks/etcdbackup/lineage.js';
import { FakeS3, fakeGateway } from '../fixtures/fake-s3.js';
import { backupAt, CLUSTER } from '../fixtures/periodic-backup.js';

const at = (h: number) => new Date(Date.UTC(2026, 0, 1, h));

t.test('a periodic backup under a CORRUPT alarm prunes nothing taken before it, and says so', async (t) => {
  const s3 = new FakeS3();
  const state: Parameters<typeof fakeGateway>[1] = { revision: 10, clusterId: CLUSTER };
  const gw = await fakeGateway(t, state);
  for (let h = 0; h < 2; h++) {
    state.revision = 10 + h;
    t.match(await backupAt(s3, gw.url, at(h)), { succeeded: true, pruned: [] }, `backup ${h + 1} before the alarm`);
  }
  const before = s3.keys('bucket', 'ns/');
  t.equal(before.length, 2);
  state.alarms = [{ memberID: '42', alarm: 'CORRUPT' }];
  for (let h = 2; h < 5; h++) {
    const r = await backupAt(s3, gw.url, at(h));
    t.match(r, { succeeded: true, pruned: [], pruneProblem: /CORRUPT alarm.*nothing pruned/ }, `backup ${h + 1}`);
    t.notOk(r.prunedCount, 'nothing counted as pruned');
    const meta = s3.objects.get(`bucket/${r.key!}`)?.metadata;
    t.equal(meta?.[META.alarms], 'CORRUPT', 'the snapshot records the alarm');
  }
  const after = s3.keys('bucket', 'ns/');
  for (const k of before) t.ok(after.includes(k), `${k}, taken before the alarm, kept`);
  t.equal(after.length, 5, 'every snapshot kept');

  // The alarm disarmed (the member replaced): the next run prunes the lineage to maxBackups again.
  state.alarms = [];
  const r = await backupAt(s3, gw.url, at(6));
  t.match(r, { succeeded: true });
  t.equal(r.pruned?.length, 4, 'pruned to maxBackups once etcd holds no alarm');
  t.notOk(r.pruneProblem);
});

t.test('under NOSPACE pruning goes on; alarms that cannot be read prune nothing', async (t) => {
  const s3 = new FakeS3();
  const state: Parameters<typeof fakeGateway>[1] = { revision: 10, clusterId: CLUSTER };
  const gw = await fakeGateway(t, state);
  for (let h = 0; h < 2; h++) {
    state.revision = 10 + h;
    await backupAt(s3, gw.url, at(h));
  }
  state.alarms = [{ memberID: '42', alarm: 'NOSPACE' }];
  const r = await backupAt(s3, gw.url, at(3));
  t.match(r, { succeeded: true, pruned: [/_v10_/] }, 'a backend at its quota says nothing against the data');
  t.equal(s3.objects.get(`bucket/${r.key!}`)?.metadata?.[META.alarms], 'NOSPACE', 'the alarm recorded');
  state.alarms = [];
  state.alarmFails = true;
  const failed = await backupAt(s3, gw.url, at(4));
  t.match(failed, { succeeded: true, pruned: [], pruneProblem: /alarms could not be read.*nothing pruned/ });
  t.equal(s3.keys('bucket', 'ns/').length, 3, 'every snapshot kept');
});
