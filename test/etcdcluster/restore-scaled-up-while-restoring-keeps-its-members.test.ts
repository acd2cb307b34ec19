// An EtcdRestore has dropped the old members and its restored members (e-3, e-4, e-5) are starting from the snapshot
// (Restoring) when the user raises spec.size from 3 to 5. No restored member was lost; none has failed. The hook
// deletes all three ("restored members were lost before they served: starting the restore again") and starts the
// whole restore again under five new names (e-6 .. e-10): every member fetches and restores the snapshot again, the
// cluster stays down that much longer, and the status says members were lost when none was. A size lowered during
// the same phase (3 -> 1) is handled as a scale after the restore (the restored three serve, then two are removed),
// so the asymmetry is the raise reading the ordinals it has not made yet as lost members. Each answer fed back as
// the next observed state.
import t from 'tap';
import { restoreStarted, restoredServe, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { restoredRun } from '../../hooks/etcdcluster/plan/restore-phases.js';

t.test('spec.size raised while restored members start: they are kept, no restore started again', async (t) => {
  const loop = await running({ size: 3 });
  await restoreStarted(loop);
  t.same(loop.pods(), ['e-3', 'e-4', 'e-5'], 'the restored members start from the snapshot');
  t.equal(loop.s().restore?.phase, 'Restoring');
  loop.spec = { ...loop.spec, size: 5 };
  for (let i = 0; i < 3; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + (i + 1) * 30_000);
    await loop.step();
    for (const p of ['e-3', 'e-4', 'e-5']) t.ok(loop.pods().includes(p), `sync ${i + 1}: restored member ${p} kept`);
    const recovering = loop.s().conditions.find((c: any) => c.type === 'Recovering');
    t.notMatch(recovering?.message ?? '', /lost/, `sync ${i + 1}: no member said lost: ${recovering?.message}`);
  }
  restoredServe(loop);
  for (let i = 3; i < 6; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + (i + 1) * 30_000);
    await loop.step();
  }
  t.equal(loop.s().restore?.phase, 'Restored');
  t.ok(
    ['e-3', 'e-4', 'e-5'].every((p) => loop.pods().includes(p)),
    'the restored three serve; growth follows',
  );
  for (let i = 6; i < 16; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + (i + 1) * 30_000);
    await loop.step();
    for (const p of loop.pods()) loop.etcd.up.add(p);
  }
  t.same(
    loop.etcd.calls.filter((c) => c.startsWith('add')),
    ['add e-6', 'add e-7'],
    'then the cluster grows to 5, one member at a time',
  );
});

// The rule still tells a restored member lost from one not made: with spec.size raised, one of the three restored
// members vanished before any served (they hold only the snapshot): the restore starts again.
t.test('spec.size raised while restoring, a restored member lost: the restore starts again', async (t) => {
  const loop = await running({ size: 3 });
  await restoreStarted(loop);
  loop.spec = { ...loop.spec, size: 5 };
  loop.now = new Date(FIXED_NOW.getTime() + 30_000);
  await loop.step();
  t.same(loop.pods(), ['e-3', 'e-4', 'e-5'], 'kept while all are there');
  loop.lose('e-4');
  loop.now = new Date(FIXED_NOW.getTime() + 60_000);
  await loop.step();
  const recovering = loop.s().conditions.find((c: any) => c.type === 'Recovering');
  t.match(recovering?.message, /lost before they served/, 'the loss is said');
  t.notOk(loop.pods().includes('e-3'), 'the restore starts again from the snapshot');
});

t.test('restoredRun: the members a restored pod names, else spec.size', async (t) => {
  const pod = (command: unknown) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'e-3' },
    spec: { initContainers: [{ name: 'fetch-snapshot' }, { name: 'restore-snapshot', command }] },
  });
  t.equal(restoredRun([pod(['etcdutl', '--initial-cluster=e-3=http://a,e-4=http://b,e-5=http://c'])], 5), 3);
  t.equal(restoredRun([pod(['etcdutl', '--initial-cluster=e-3=http://a'])], 5), 1);
  t.equal(restoredRun([pod('not a list')], 5), 5, 'a command of another type: spec.size');
  t.equal(restoredRun([{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'e-3' } }], 4), 4, 'no step: spec.size');
  t.equal(restoredRun([], 3), 3);
});
