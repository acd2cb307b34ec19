// A restore checks before it destroys: an EtcdRestore whose snapshot passed its check has
// dropped the live members (phase Replacing: their pods are going) when the EtcdRestore is deleted (the user
// cancels, a `kubectl delete -f` of the manifest that made it, a clean-up). The old data is already gone; the only
// data left is the checked snapshot. The hook ends the restore Failed "the EtcdRestore was deleted before the
// restore started" and leaves the cluster with no member and nothing restored: a cancel after the point of no
// return becomes total loss, told as if nothing had started. Each answer fed back as the next observed state.
import t from 'tap';
import { restoreObject, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const later = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);

t.test(
  'an EtcdRestore deleted after the old members were dropped: the checked snapshot is still restored',
  async (t) => {
    const loop = await running({ size: 3 });
    loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
    await loop.step(); // the snapshot is checked
    await loop.step(); // it passed: the old members are dropped
    t.match(loop.s().restore, { name: 'r', phase: 'Replacing' }, 'the old members are being dropped');
    t.same(loop.pods(), [], 'no old member left');
    loop.etcd.members = [];
    loop.etcd.up.clear();
    loop.related = []; // the EtcdRestore is deleted
    for (let i = 0; i < 3; i++) {
      loop.now = later(60 * (i + 1));
      await loop.step();
    }
    t.comment(`${loop.s().phase}/${loop.s().reason}: ${JSON.stringify(loop.s().restore)}; pods ${loop.pods()}`);
    t.same(loop.pods(), ['e-3', 'e-4', 'e-5'], 'the restored members are started from the checked snapshot');
    t.notMatch(loop.s().restore?.reason ?? '', /before the restore started/, 'not told as if nothing had been dropped');
  },
);
