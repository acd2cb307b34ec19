// A restore that ends at its deadline (15 minutes since the old members were dropped) deleted every restored member,
// also one whose etcd runs: a member that fetched and restored the snapshot and waits only for its peers (their pods
// stuck on an image pull, a node). Its data is the restore's; deleting it for time helps nothing. Now the restore
// still ends `Failed` / `RestoreFailed` at the deadline, saying the restored members are kept; they are kept, and
// once the others start the cluster runs with them, no member made or dropped. One whose members' etcd never ran is
// ended as before. Each answer fed back as the next observed state.
import t from 'tap';
import { restoreStarted, restoredServe, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { RESTORE_SECONDS } from '../../hooks/etcdcluster/restore.js';

const etcdRunning = {
  phase: 'Running',
  containerStatuses: [{ name: 'etcd', ready: false, restartCount: 0, state: { running: {} } }],
};
const pullStuck = {
  phase: 'Pending',
  initContainerStatuses: [{ name: 'fetch-snapshot', state: { waiting: { reason: 'ImagePullBackOff' } } }],
};
const past = (minutes: number) => new Date(FIXED_NOW.getTime() + (RESTORE_SECONDS + minutes * 60) * 1000);

t.test('past the deadline, restored members are kept while one runs etcd', async (t) => {
  const loop = await running({ size: 3 });
  await restoreStarted(loop);
  loop.podStatus.set('e-3', etcdRunning);
  for (const p of ['e-4', 'e-5']) loop.podStatus.set(p, pullStuck);
  for (let i = 1; i <= 5; i++) {
    loop.now = past(i);
    await loop.step();
    t.same(loop.pods(), ['e-3', 'e-4', 'e-5'], `sync ${i}: the restored members kept`);
    t.equal(loop.s().restore?.phase, 'Failed', `sync ${i}: the restore ended at its deadline`);
    t.match(
      loop.s().restore?.reason,
      /did not serve within 15 minutes .*the restored members are kept \(etcd runs in e-3\)/,
    );
  }
  // The image pull unblocked: the restored members serve, the cluster runs on them.
  for (const p of ['e-3', 'e-4', 'e-5']) loop.podStatus.delete(p);
  restoredServe(loop);
  for (let i = 6; i <= 8; i++) {
    loop.now = past(i);
    await loop.step();
  }
  t.same(loop.pods(), ['e-3', 'e-4', 'e-5'], 'the restored members are the cluster');
  t.same(loop.etcd.calls, [], 'no membership change');
  t.match(
    loop.s().conditions.find((c: any) => c.type === 'Available'),
    { status: 'True' },
  );
});

t.test('past the deadline with no restored etcd running: the restored members go, as before', async (t) => {
  const loop = await running({ size: 3 });
  await restoreStarted(loop);
  for (const p of ['e-3', 'e-4', 'e-5']) loop.podStatus.set(p, pullStuck);
  loop.now = past(1);
  await loop.step();
  t.equal(loop.s().restore?.phase, 'Failed');
  t.same(loop.pods(), [], 'none held anything but the snapshot');
});
