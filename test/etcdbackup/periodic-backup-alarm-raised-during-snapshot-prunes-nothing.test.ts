// A periodic backup reads etcd's alarms before its snapshot and again once the snapshot streamed whole, before
// anything is pruned (backup.ts AlarmReads). etcd's periodic corruption check runs on its own clock and a snapshot of
// a large backend takes minutes: a CORRUPT alarm raised while the snapshot streams stops pruning as one raised before
// (the snapshot may be of the disagreeing member's data), and is recorded on the snapshot (`etcd-alarms`) when it is
// written in one part. Before, the alarms were read once, before the snapshot: the run pruned its lineage to
// maxBackups, deleting snapshots taken before the alarm. Never destroy on doubt: alarms that cannot be read the second
// time prune nothing either; NOSPACE raised meanwhile says nothing against the data. (Found by the issue 30 attack;
// real etcd 3.5.21 + moto: test/real/etcd-periodic-backup-alarm-raised-during-snapshot-keeps-earlier-snapshots-real.test.ts.)
import t, { type Test } from 'tap';
import { PART_SIZE } from '../../hooks/etcdbackup/backup.js';
import { META } from '../../hooks/etcdbackup/lineage.js';
import { FakeS3, fakeGateway } from '../fixtures/fake-s3.js';
import { backupAt, CLUSTER } from '../fixtures/periodic-backup.js';

const at = (h: number) => new Date(Date.UTC(2026, 0, 1, h));
type State = Parameters<typeof fakeGateway>[1];

/** Two snapshots taken (revisions 10, 11) with no alarm: their keys. */
async function twoGood(t: Test, s3: FakeS3, state: State, url: string): Promise<string[]> {
  for (let h = 0; h < 2; h++) {
    state.revision = 10 + h;
    t.match(await backupAt(s3, url, at(h)), { succeeded: true }, `backup ${h + 1}`);
  }
  const before = s3.keys('bucket', 'ns/');
  t.equal(before.length, 2);
  return before;
}

/** The next snapshot (`body`) at revision 12, `raise` called as etcd is asked for it. */
function raisedWhileStreaming(state: State, raise: () => void, body = 'snapshot at 12'): void {
  state.revision = 12;
  Object.defineProperty(state, 'snapshot', {
    configurable: true,
    get() {
      raise();
      return body;
    },
  });
}

t.test('a CORRUPT alarm raised while the snapshot streams: nothing pruned, the alarm recorded', async (t) => {
  const s3 = new FakeS3();
  const state: State = { revision: 10, clusterId: CLUSTER };
  const gw = await fakeGateway(t, state);
  const before = await twoGood(t, s3, state, gw.url);
  raisedWhileStreaming(state, () => (state.alarms = [{ memberID: '42', alarm: 'CORRUPT' }]));
  const r = await backupAt(s3, gw.url, at(3));
  t.match(r, {
    succeeded: true,
    pruneProblem: /once the snapshot streamed, etcd holds the CORRUPT alarm.*nothing pruned/,
  });
  t.same(r.pruned, [], 'nothing pruned: the cluster was under CORRUPT before anything was deleted');
  t.notOk(r.prunedCount, 'nothing counted as pruned');
  const after = s3.keys('bucket', 'ns/');
  for (const k of before) t.ok(after.includes(k), `${k}, taken before the alarm, kept`);
  t.equal(s3.objects.get(`bucket/${r.key!}`)?.metadata?.[META.alarms], 'CORRUPT', 'the snapshot records the alarm');
});

t.test('alarms that cannot be read once the snapshot streamed: nothing pruned', async (t) => {
  const s3 = new FakeS3();
  const state: State = { revision: 10, clusterId: CLUSTER };
  const gw = await fakeGateway(t, state);
  const before = await twoGood(t, s3, state, gw.url);
  raisedWhileStreaming(state, () => (state.alarmFails = true));
  const r = await backupAt(s3, gw.url, at(3));
  t.match(r, {
    succeeded: true,
    pruned: [],
    pruneProblem: /once the snapshot streamed, etcd's alarms could not be read/,
  });
  t.equal(s3.keys('bucket', 'ns/').length, 3, 'every snapshot kept');
  for (const k of before) t.ok(s3.keys('bucket', 'ns/').includes(k), `${k} kept`);
});

t.test('NOSPACE raised while the snapshot streams: pruning goes on, the alarm recorded', async (t) => {
  const s3 = new FakeS3();
  const state: State = { revision: 10, clusterId: CLUSTER };
  const gw = await fakeGateway(t, state);
  await twoGood(t, s3, state, gw.url);
  raisedWhileStreaming(state, () => (state.alarms = [{ memberID: '42', alarm: 'NOSPACE' }]));
  const r = await backupAt(s3, gw.url, at(3));
  t.match(r, { succeeded: true, pruned: [/_v10_/] }, 'a backend at its quota says nothing against the data');
  t.notOk(r.pruneProblem);
  t.equal(s3.objects.get(`bucket/${r.key!}`)?.metadata?.[META.alarms], 'NOSPACE', 'the alarm recorded');
});

t.test('an alarm held before and one raised during: both recorded, said once', async (t) => {
  const s3 = new FakeS3();
  const state: State = { revision: 10, clusterId: CLUSTER };
  const gw = await fakeGateway(t, state);
  await twoGood(t, s3, state, gw.url);
  state.alarms = [{ memberID: '42', alarm: 'NOSPACE' }];
  raisedWhileStreaming(state, () => (state.alarms = [...state.alarms!, { memberID: '7', alarm: 'CORRUPT' }]));
  const r = await backupAt(s3, gw.url, at(3));
  t.match(r, { succeeded: true, pruned: [] });
  t.equal(r.pruneProblem?.match(/CORRUPT alarm/g)?.length, 1, `said once: ${r.pruneProblem}`);
  t.equal(s3.objects.get(`bucket/${r.key!}`)?.metadata?.[META.alarms], 'NOSPACE,CORRUPT', 'both recorded');
});

t.test('a snapshot written in parts: a CORRUPT alarm raised while it streams prunes nothing', async (t) => {
  const s3 = new FakeS3();
  const state: State = { revision: 10, clusterId: CLUSTER };
  const gw = await fakeGateway(t, state);
  const before = await twoGood(t, s3, state, gw.url);
  raisedWhileStreaming(state, () => (state.alarms = [{ memberID: '42', alarm: 'CORRUPT' }]), 'x'.repeat(PART_SIZE + 1));
  const r = await backupAt(s3, gw.url, at(3), { timeoutMs: 20_000 });
  t.match(r, { succeeded: true, pruned: [], pruneProblem: /once the snapshot streamed, etcd holds the CORRUPT alarm/ });
  t.ok(r.size! > PART_SIZE, 'written in parts');
  for (const k of before) t.ok(s3.keys('bucket', 'ns/').includes(k), `${k}, taken before the alarm, kept`);
});
