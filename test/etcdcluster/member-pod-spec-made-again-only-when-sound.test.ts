// A member pod that cannot start on the spec.pod it was made from is made again with the spec's once it changes
// (plan/respec.ts), only where that destroys nothing: never a member without storage that started (its data is in its
// pod's emptyDir: the status says a change of spec.pod never reaches it), never a pod whose etcd runs or that is
// Ready, never one that does not record what it was made from (made before the record). Each answer fed back.
import t from 'tap';
import { POD_SPEC } from '../../hooks/etcdcluster/members.js';
import { BIG_MEMORY, OOM_AT_START, PVC, SMALL_MEMORY, memoryLimitOf, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

async function ticks(loop: any, from: number, count: number, each: () => void): Promise<number> {
  let s = from;
  for (let i = 0; i < count; i++) {
    s += 30;
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
    each();
    await loop.step();
  }
  return s;
}

t.test(
  'without storage a majority that started is never made again; the status says the fix cannot reach it',
  async (t) => {
    const loop = await running({ size: 3, pod: { resources: SMALL_MEMORY } });
    loop.etcd.up.clear();
    const crash = () => {
      for (const n of ['e-0', 'e-1', 'e-2']) loop.podStatus.set(n, OOM_AT_START);
    };
    const s = await ticks(loop, 0, 30, crash);
    loop.spec = { ...loop.spec, pod: { resources: BIG_MEMORY } };
    await ticks(loop, s, 30, crash);
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2']);
    for (const n of loop.pods())
      t.equal(memoryLimitOf(loop, n), '256Mi', `${n} is kept as it was made, its data with it`);
    t.notMatch(loop.etcd.calls.join(','), /remove|add/, 'no membership change');
    const said = (loop.s().conditions as any[]).find((c) => c.type === 'Available');
    t.equal(said?.reason, 'MajorityCrashLooping');
    t.match(said?.message, /emptyDir/, 'it says their data is only in their pods');
    t.match(said?.message, /never reaches them/, 'and that a change of spec.pod never reaches them');
  },
);

t.test('with storage, the way out names spec.pod made again on the claims', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC, resources: SMALL_MEMORY } });
  loop.etcd.up.clear();
  const crash = () => {
    for (const n of ['e-0', 'e-1', 'e-2']) loop.podStatus.set(n, OOM_AT_START);
  };
  await ticks(loop, 0, 30, crash);
  const said = (loop.s().conditions as any[]).find((c) => c.type === 'Available');
  t.match(said?.message, /made again on its claim with the fixed spec/);
});

t.test('a Ready member, or one whose etcd runs, is not made again for a change of spec.pod', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC, resources: SMALL_MEMORY } });
  loop.spec = { ...loop.spec, pod: { persistentVolumeClaimSpec: PVC, resources: BIG_MEMORY } };
  // e-1's etcd runs (a long WAL replay), not Ready yet.
  loop.etcd.up.delete('e-1');
  await ticks(loop, 0, 20, () => {
    loop.podStatus.set('e-1', {
      containerStatuses: [{ name: 'etcd', restartCount: 1, ready: false, state: { running: {} } }],
    });
  });
  for (const n of loop.pods()) t.equal(memoryLimitOf(loop, n), '256Mi', `${n} is kept as it was made`);
});

t.test('a member pod that does not record the spec.pod it was made from is not made again', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC, resources: SMALL_MEMORY } });
  // Made before the record (an earlier metaops).
  for (const c of loop.children)
    if (c.kind === 'Pod' && c.metadata.annotations) delete c.metadata.annotations[POD_SPEC];
  loop.etcd.up.clear();
  const crash = () => {
    for (const n of ['e-0', 'e-1', 'e-2']) loop.podStatus.set(n, OOM_AT_START);
  };
  const s = await ticks(loop, 0, 5, crash);
  loop.spec = { ...loop.spec, pod: { persistentVolumeClaimSpec: PVC, resources: BIG_MEMORY } };
  await ticks(loop, s, 10, crash);
  for (const n of loop.pods()) t.equal(memoryLimitOf(loop, n), '256Mi', `${n} is kept as it was made`);
});
