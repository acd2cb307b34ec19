// Member pods made by a metaops from before the record of restores carried out (`etcd.metaops.io/restores-carried-out`)
// carry no history. An EtcdRestore r restored the cluster, a later r2 restored it again (both deleted as advised);
// the cluster's status still lists both (status.restoresCarriedOut), the members do not. While the status holds the
// history, it is stamped on the running members that lack it, in place (a metadata change: the same pods, their spec
// untouched, no membership change), so that after a lost status r made again under its name is known as carried out
// and never replayed over r2's members. Each answer fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { RESTORES_CARRIED_OUT } from '../../hooks/etcdcommon/index.js';
import { type Loop, restoreObject } from '../fixtures/etcd-loop.js';
import { later, restoredByR, syncAll } from '../fixtures/restore-steps.js';
import { restoredServe } from '../fixtures/etcd-loop.js';

const memberPods = (loop: Loop) => loop.children.filter((c: any) => c.kind === 'Pod') as any[];

/** r, then r2 from another snapshot, restored the cluster; the members then lose their record (an older metaops). */
async function twoRestoresMembersWithoutHistory(t: any): Promise<Loop> {
  const { loop, r } = await restoredByR();
  const r2 = restoreObject('r2', '2026-07-02T00:00:00Z');
  (r2['spec'] as any).s3.path = 'bucket/ns/snap2.db';
  loop.related = [r, r2];
  loop.check = { succeeded: true };
  for (let i = 0; i < 12 && (r2['status'] as any)?.succeeded !== true; i++) {
    loop.now = later(60 + i * 30);
    await syncAll(loop, [r, r2]);
    if (loop.s().restore?.phase === 'Replacing') {
      loop.etcd.members = [];
      loop.etcd.up.clear();
    }
    if (loop.s().restore?.phase === 'Restoring' && loop.pods().length > 0) restoredServe(loop);
  }
  t.match(r2['status'], { succeeded: true }, 'r2 restored the cluster');
  t.match(loop.s().restoresCarriedOut, [{ name: 'r' }, { name: 'r2' }], 'the status lists both restores');
  for (const p of memberPods(loop)) delete p.metadata.annotations?.[RESTORES_CARRIED_OUT];
  loop.related = [];
  return loop;
}

t.test('the history the status lists is stamped in place on running members that lack it', async (t) => {
  const loop = await twoRestoresMembersWithoutHistory(t);
  const before = memberPods(loop).map((p) => ({ name: p.metadata.name, spec: JSON.stringify(p.spec) }));
  loop.now = later(3000);
  await loop.step();
  const after = memberPods(loop);
  t.same(
    after.map((p) => p.metadata.name),
    before.map((p) => p.name),
    'the same member pods',
  );
  for (const [i, p] of after.entries()) {
    t.equal(JSON.stringify(p.spec), before[i]!.spec, `${p.metadata.name}: its spec untouched`);
    const history = JSON.parse(p.metadata.annotations?.[RESTORES_CARRIED_OUT] ?? '[]');
    t.match(history, [{ name: 'r', path: 'bucket/ns/snap.db' }], `${p.metadata.name} records r as carried out`);
  }
});

t.test('members made before the record, the status lost: r made again under its name is not replayed', async (t) => {
  const loop = await twoRestoresMembersWithoutHistory(t);
  loop.now = later(3000);
  await loop.step(); // the history stamped while the status still lists it
  const members = loop.pods();
  loop.status = undefined;
  const again = restoreObject('r', '2026-07-03T00:00:00Z', undefined, 'uid-r-made-again');
  loop.related = [again];
  for (let i = 0; i < 4; i++) {
    loop.now = later(3600 + i * 60);
    await syncAll(loop, [again]);
    t.same(loop.pods(), members, `sync ${i + 1}: the live members are kept`);
    t.notMatch(
      loop.s().restore?.phase ?? '',
      /^(Replacing|Restoring)$/,
      `sync ${i + 1}: not rolled back to r's snapshot`,
    );
  }
  t.match(again['status'], { succeeded: false }, 'r made again is refused');
});
