// With storage a member is added in two syncs: the claim first (with the etcd member add), its pod at the next. That
// second sync reads the new member's first pod as a member "made again" on its claim and says
// `Recovering=True` / `RestartingMember` "restarting e-3 as the same member", with no Scaling condition at all: a
// scale-up (or a replacement) reported for one sync as a recovery of a member that never ran, and the Scaling
// condition dropped and written back (a status flap at every addition). Each answer fed back as the next observed
// state.
import t from 'tap';
import { PVC, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test('a scale-up with storage: the new member first pod is a scale-up, not a restart', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  loop.spec = { ...loop.spec, size: 4 };
  for (let j = 0; j < 3; j++) {
    loop.now = new Date(FIXED_NOW.getTime() + j * 10_000);
    await loop.step();
    const recovering = loop.s().conditions.find((c: any) => c.type === 'Recovering');
    const scaling = loop.s().conditions.find((c: any) => c.type === 'Scaling');
    t.not(recovering?.reason, 'RestartingMember', `sync ${j + 1}: not a restart (${recovering?.message})`);
    t.match(scaling, { status: 'True' }, `sync ${j + 1}: the scale-up is said while e-3 is added`);
  }
  t.same(loop.etcd.calls, ['add e-3']);
});
