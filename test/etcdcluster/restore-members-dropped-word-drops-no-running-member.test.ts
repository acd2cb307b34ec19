// An EtcdRestore's own status keeps that the old members were dropped for it (status.membersDropped), so that the
// cluster can carry it on when its own record is lost before any restored member was made. That word alone never
// drops a member: with member pods (or their claims) left, the cluster is not restored from it.
import t from 'tap';
import { PVC, restoreHook, restoreObject, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const later = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);

t.test(
  'an unfinished EtcdRestore that says it dropped the members, the status lost: running members kept',
  async (t) => {
    const loop = await running({ size: 3 });
    const members = loop.pods();
    // Its status says so (a status restored from an old backup, or written by hand), the cluster's status is lost.
    const r = restoreObject('r', '2026-07-01T00:00:00Z', { membersDropped: true });
    loop.related = [r];
    loop.status = undefined;
    loop.check = 'running';
    for (let i = 0; i < 4; i++) {
      loop.now = later(60 + i * 30);
      await loop.step();
      t.same(loop.pods(), members, `sync ${i + 1}: the members are kept`);
      t.notMatch(loop.s().restore?.phase ?? '', /^(Replacing|Restoring)$/, `sync ${i + 1}: not replaced on that word`);
    }
  },
);

t.test('the status lost as a restore replaced the members: it is carried on from its own word', async (t) => {
  const loop = await running({ size: 3 });
  const r = restoreObject('r', '2026-07-01T00:00:00Z');
  loop.related = [r];
  await loop.step(); // Checking
  restoreHook(loop, r);
  await loop.step(); // Replacing
  restoreHook(loop, r);
  t.match(r['status'], { membersDropped: true }, 'r keeps that the old members were dropped for it');
  loop.etcd.members = [];
  loop.etcd.up.clear();
  // Its Ready condition is written over (its hook saw the cluster without the record), the word stays.
  loop.status = undefined;
  restoreHook(loop, r);
  t.match(r['status'], { membersDropped: true }, 'the word is never unset');
  loop.now = later(60);
  await loop.step();
  t.match(loop.s().restore, { name: 'r', phase: 'Restoring' }, 'the cluster carries r on');
  t.equal(loop.pods().length, 3, 'the restored members start');
});

t.test('members claims left, the status lost: the word of an EtcdRestore restores nothing', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  const claims = loop.claims();
  t.ok(claims.length > 0, 'the members have claims');
  // The member pods vanish, their claims stay (their data is on them).
  loop.lose(...loop.pods());
  const r = restoreObject('r', '2026-07-01T00:00:00Z', { membersDropped: true });
  loop.related = [r];
  loop.status = undefined;
  loop.check = 'running';
  for (let i = 0; i < 3; i++) {
    loop.now = later(60 + i * 30);
    await loop.step();
    t.notMatch(loop.s().restore?.phase ?? '', /^(Replacing|Restoring)$/, `sync ${i + 1}: not restored on that word`);
  }
  t.same(loop.claims(), claims, 'the claims are kept');
});
