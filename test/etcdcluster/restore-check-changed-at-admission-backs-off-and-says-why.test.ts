// A restore's check pod that an admission policy changes as it is made (its check's image rewritten to another one)
// proves nothing of the images the restored members will run: it is dropped and made again, and so every time the
// policy changes it. Each new one is made after a back-off (the first at once, then 10 s, doubling, at most 160 s:
// restore.ts checkBackoff), recorded in status.restore.checkAgain (not in the process), and past the check's
// deadline the restore is refused naming what the last run ended on, not that "its pod was not created". Each
// answer is fed back as the next observed state, a sync every 5 s.
import t from 'tap';
import { RESTORE_CHECK_SECONDS } from '../../hooks/etcdcluster/restore.js';
import { restoreObject, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test('a check pod changed at admission every time: made again with a back-off, refused saying why', async (t) => {
  const loop = await running({ size: 3 });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  let made = 0;
  let there = false;
  for (let s = 0; s <= 2 * RESTORE_CHECK_SECONDS && (s === 0 || loop.s().restore?.phase === 'Checking'); s += 5) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
    await loop.step();
    const check = loop.children.find((c) => c.kind === 'Pod' && c.metadata.name === 'e-restore-check') as any;
    // The policy rewrites its check's image as the API server admits it.
    if (check && !there) check.spec.containers[0].image = 'registry.example/rewritten:1';
    const has = check !== undefined;
    if (has && !there) made++;
    there = has;
  }
  t.ok(made <= 10, `check pods made within the deadline: ${made}`);
  t.ok(made >= 3, `made again within the deadline: ${made}`);
  t.match(loop.s().restore, { phase: 'Failed', refused: true, untouched: true });
  t.match(
    loop.s().restore?.reason,
    /its last run ended on a pod not the one asked for \(changed at admission/,
    loop.s().restore?.reason,
  );
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the running members are kept');
});

t.test('the back-off is kept in the status: a check dropped again waits from the record', async (t) => {
  const loop = await running({ size: 3 });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  loop.podStatus.set('e-restore-check', { phase: 'Failed', reason: 'Evicted' });
  const sync = async (s: number) => {
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
    await loop.step();
    return loop.checkPod() !== undefined;
  };
  t.ok(await sync(0), 'the check pod made');
  t.notOk(await sync(5), 'evicted: dropped');
  t.ok(await sync(10), 'the first made again at once');
  t.notOk(await sync(15), 'evicted again: dropped');
  t.match(loop.s().restore.checkAgain, { runs: 2, last: 'its node ended its pod (Evicted)' });
  t.notOk(await sync(20), 'within its 10 s back-off: none');
  t.ok(await sync(25), 'made after its back-off');
});
