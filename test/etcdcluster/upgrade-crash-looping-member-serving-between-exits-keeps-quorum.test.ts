// An upgrade of three members to a version whose etcd serves a few seconds after each start, then exits (a panic on
// its first compaction, on a request its clients send): the kubelet restarts it again and again, and a sync may see
// it serving between two exits. The rollout must not take that for a member that works: moving a second member to
// the version while the first keeps exiting leaves one of three serving, quorum lost by metaops' own act. The
// upgrade is failed, and quorum is kept throughout.
import t from 'tap';
import { images, running, versionsFromImages } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const ON = 'quay.io/coreos/etcd:v3.5.1';
const PANIC = { terminated: { exitCode: 2, reason: 'Error' } };

t.test('a member that serves between exits on the new version: no second member moved, quorum kept', async (t) => {
  const loop = await running({ size: 3 });
  versionsFromImages(loop);
  loop.spec = { ...loop.spec, version: '3.5.1' };
  const restarts = new Map<string, number>();
  const lost: number[] = [];
  for (let k = 0; k < 40; k++) {
    loop.now = new Date(FIXED_NOW.getTime() + k * 5_000);
    // Each member on 3.5.1 serves one sync in three (just restarted), and waits out its back-off in the others.
    const serving = k % 3 === 0;
    for (const [pod, img] of Object.entries(images(loop))) {
      if (img !== ON) {
        loop.etcd.up.add(pod);
        loop.podStatus.set(pod, {
          containerStatuses: [{ name: 'etcd', image: img, restartCount: 0, state: { running: {} } }],
        });
        continue;
      }
      const n = restarts.get(pod) ?? 0;
      if (serving) {
        loop.etcd.up.add(pod);
        const status = {
          name: 'etcd',
          image: ON,
          restartCount: n,
          state: { running: {} },
          ...(n ? { lastState: PANIC } : {}),
        };
        loop.podStatus.set(pod, { containerStatuses: [status] });
      } else {
        if (k % 3 === 1) restarts.set(pod, n + 1);
        loop.etcd.up.delete(pod);
        const status = {
          name: 'etcd',
          image: ON,
          restartCount: restarts.get(pod),
          state: { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: PANIC,
        };
        loop.podStatus.set(pod, { containerStatuses: [status] });
      }
    }
    await loop.step();
    // The members that serve as the world stands once this answer is applied: those on 3.5.0, and on 3.5.1 none
    // but in a serving window.
    const onNew = Object.values(images(loop)).filter((x) => x === ON).length;
    if (3 - onNew < 2 && !((k + 1) % 3 === 0)) lost.push(k);
    if (loop.s().quorum?.ok === false) lost.push(k);
  }
  t.comment(`images ${JSON.stringify(images(loop))}; upgradeFailed ${JSON.stringify(loop.s().upgradeFailed)}`);
  t.same(lost, [], 'never two of three members on a version whose etcd keeps exiting: quorum kept');
  t.match(loop.s().upgradeFailed, { version: '3.5.1', from: '3.5.0' }, 'the upgrade is failed');
  t.same(Object.values(images(loop)), Array(3).fill('quay.io/coreos/etcd:v3.5.0'), 'every member on 3.5.0');
});
