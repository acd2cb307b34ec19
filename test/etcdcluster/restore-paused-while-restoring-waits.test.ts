// spec.paused (no membership change, no pod made or dropped) was ignored while a restore replaced the members: a
// restored member lost while paused had every restored member deleted and the restore started again under new names.
// Now a paused restore in Replacing or Restoring keeps the pods as they are and says so (Paused / SpecPaused); its
// deadline waits; unpaused, it goes on where it was. Each answer fed back as the next observed state.
import t from 'tap';
import { restoreStarted, restoredServe, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { RESTORE_SECONDS } from '../../hooks/etcdcluster/restore.js';

t.test('paused while restored members start: nothing made or dropped, then the restore goes on', async (t) => {
  const loop = await running({ size: 3 });
  await restoreStarted(loop);
  t.equal(loop.s().restore?.phase, 'Restoring');
  loop.spec = { ...loop.spec, paused: true };
  loop.lose('e-4');
  // Paused for longer than the restore's deadline.
  for (let i = 1; i <= 4; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * (RESTORE_SECONDS / 2) * 1000);
    await loop.step();
    t.same(loop.pods(), ['e-3', 'e-5'], `sync ${i}: the pods as they are`);
    t.equal(loop.s().restore?.phase, 'Restoring', `sync ${i}: the restore waits`);
    t.match(
      loop.s().conditions.find((c: any) => c.type === 'Paused'),
      { status: 'True', reason: 'SpecPaused' },
    );
  }
  // Unpaused: the lost member is answered as ever (the restore starts again from the snapshot), not failed for time.
  loop.spec = { ...loop.spec, paused: false };
  loop.now = new Date(FIXED_NOW.getTime() + 5 * (RESTORE_SECONDS / 2) * 1000);
  await loop.step();
  t.not(loop.s().restore?.phase, 'Failed', 'the pause counted no time against the deadline');
  for (let i = 0; i < 3; i++) {
    loop.now = new Date(loop.now.getTime() + 30_000);
    await loop.step();
  }
  t.equal(loop.pods().length, 3, 'three restored members start');
  restoredServe(loop);
  for (let i = 0; i < 3; i++) {
    loop.now = new Date(loop.now.getTime() + 30_000);
    await loop.step();
  }
  t.equal(loop.s().restore?.phase, 'Restored');
});
