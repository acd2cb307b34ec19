// EtcdCluster on real etcd: the hook driven in a loop as Metacontroller would, its pods run as real etcd
// processes by a test kubelet (test/fixtures/etcd-kubelet.ts), data checked with real puts and gets.
import t from 'tap';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { EtcdKubelet, etcdBin } from '../fixtures/etcd-kubelet.js';
import { condition, status } from '../fixtures/etcd-status.js';

etcdBin(); // build or find the binaries before the clock starts

const settled = (size: number, version?: string) => (res: CompositeSyncResponse) => {
  const s = status(res);
  return (
    s.members.ready.length === size &&
    s.members.unready.length === 0 &&
    s.size === size &&
    condition(res, 'Scaling')?.status === 'False' &&
    condition(res, 'Upgrading')?.status === 'False' &&
    (!version || s.currentVersion === version)
  );
};
const secs = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

function cluster(t: Tap, name: string, spec: Record<string, unknown>): EtcdKubelet {
  const k = new EtcdKubelet(name, spec);
  t.teardown(() => k.shutdown());
  return k;
}
type Tap = { teardown(fn: () => unknown): void; comment(...args: unknown[]): void };

t.test('create size 3, then 3 -> 5 -> 3, data intact throughout', async (t) => {
  const k = cluster(t, 'grow', { size: 3, version: '3.6.9', repository: 'quay.io/coreos/etcd' });
  const created = await k.converge('size 3', settled(3));
  t.comment(`size 3 healthy in ${secs(created.ms)} (${created.syncs} syncs)`);
  t.same(k.livePods(), ['grow-0', 'grow-1', 'grow-2']);
  const last = await k.step();
  t.equal(status(last).phase, 'Running');
  t.equal(status(last).serviceName, 'grow-client');
  t.equal(status(last).quorum.ok, true);
  t.equal(status(last).memberList.filter((m: any) => m.leader).length, 1, 'one leader reported');
  t.equal(condition(last, 'Available').status, 'True');
  await k.put('foo', 'bar');

  k.setSpec({ ...k.spec, size: 5 });
  const grown = await k.converge('size 5', settled(5));
  t.comment(`3 -> 5 in ${secs(grown.ms)} (${grown.syncs} syncs, one membership change each)`);
  t.equal(k.livePods().length, 5);
  t.equal(await k.get('foo'), 'bar');
  await k.put('after-grow', '5');

  k.setSpec({ ...k.spec, size: 3 });
  const shrunk = await k.converge('size 3 again', settled(3));
  t.comment(`5 -> 3 in ${secs(shrunk.ms)} (${shrunk.syncs} syncs)`);
  t.same(k.livePods(), ['grow-0', 'grow-1', 'grow-2'], 'the highest ordinals went');
  t.equal(await k.get('foo'), 'bar');
  t.equal(await k.get('after-grow'), '5');
});

t.test('a member whose pod is deleted is replaced under a new name, data intact', async (t) => {
  const k = cluster(t, 'heal', { size: 3, version: '3.6.9' });
  await k.converge('size 3', settled(3));
  await k.put('k1', 'v1');
  await k.deletePod('heal-1');
  // If heal-1 led, the others elect a new leader first (a sync may see no leader, QuorumLost, meanwhile).
  await k.converge('dead member seen', (res) => condition(res, 'Recovering')?.reason === 'ReplacingDeadMember', 20_000);
  const healed = await k.converge('replaced', settled(3));
  t.comment(`dead member replaced in ${secs(healed.ms)}`);
  t.same(k.livePods(), ['heal-0', 'heal-2', 'heal-3'], 'heal-1 removed, heal-3 added');
  t.equal(await k.get('k1'), 'v1');
});

t.test('two of three down: quorum lost is reported, no pod deleted, recovery when they return', async (t) => {
  const k = cluster(t, 'quorum', { size: 3, version: '3.6.9' });
  await k.converge('size 3', settled(3));
  await k.put('q', 'kept');
  await k.stop('quorum-1', 'SIGKILL');
  await k.stop('quorum-2', 'SIGKILL');
  for (let i = 0; i < 3; i++) {
    const res = await k.step();
    t.equal(condition(res, 'Available').status, 'False');
    t.equal(condition(res, 'Available').reason, 'QuorumLost');
    t.match(condition(res, 'Available').message, /quorum-1/);
    t.equal(res.children.filter((c) => c.kind === 'Pod').length, 3, 'every pod kept');
  }
  t.same(k.livePods(), ['quorum-0', 'quorum-1', 'quorum-2']);
  k.restart('quorum-1');
  k.restart('quorum-2');
  const back = await k.converge('recovered', settled(3));
  t.comment(`quorum back ${secs(back.ms)} after the members returned`);
  t.same(k.livePods(), ['quorum-0', 'quorum-1', 'quorum-2'], 'the same members, none replaced');
  t.equal(await k.get('q'), 'kept');
});

t.test('paused: no change is made', async (t) => {
  const k = cluster(t, 'paused', { size: 1, version: '3.6.9' });
  await k.converge('size 1', settled(1));
  k.setSpec({ ...k.spec, size: 3, paused: true });
  for (let i = 0; i < 3; i++) {
    const res = await k.step();
    t.match(condition(res, 'Paused'), { status: 'True' });
    t.equal(status(res).controlPaused, true);
  }
  t.same(k.livePods(), ['paused-0']);
  k.setSpec({ ...k.spec, paused: false });
  await k.converge('resumed to size 3', settled(3));
  t.equal(k.livePods().length, 3);
});

t.test('version 3.5.21 -> 3.6.9: one member at a time, on real binaries', async (t) => {
  const k = cluster(t, 'up', { size: 3, version: 'v3.5.21' });
  await k.converge('size 3 on 3.5', settled(3, '3.5.21'));
  await k.put('before', 'upgrade');
  k.setSpec({ ...k.spec, version: '3.6.9' });
  const seen: number[] = [];
  const started = Date.now();
  await k.converge(
    'all on 3.6.9',
    (res) => {
      const images = res.children.filter((c) => c.kind === 'Pod').map((p: any) => p.spec.containers[0].image);
      const upgradedNow = images.filter((i: string) => i.endsWith(':v3.6.9')).length;
      if (seen[seen.length - 1] !== upgradedNow) seen.push(upgradedNow);
      return settled(3, '3.6.9')(res);
    },
    120_000,
  );
  t.comment(
    `upgrade took ${secs(Date.now() - started)}; members on the new version, step by step: ${seen.join(' -> ')}`,
  );
  t.same(seen, [1, 2, 3], 'one member at a time');
  t.equal(await k.get('before'), 'upgrade');
});

const PVC = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };
const claims = (res: CompositeSyncResponse) =>
  res.children
    .filter((c) => c.kind === 'PersistentVolumeClaim')
    .map((c) => c.metadata.name)
    .sort();

t.test('PVC-backed: all three pods lost, every member back from its claim with every key', async (t) => {
  const k = cluster(t, 'pvcall', { size: 3, version: '3.6.9', pod: { persistentVolumeClaimSpec: PVC } });
  await k.converge('size 3', settled(3));
  const ids = status(await k.step()).memberList.map((m: any) => m.id);
  for (let i = 0; i < 20; i++) await k.put(`all-${i}`, `v${i}`);
  for (const p of ['pvcall-0', 'pvcall-1', 'pvcall-2']) await k.deletePod(p);
  const first = await k.step();
  t.same(claims(first), ['pvcall-0', 'pvcall-1', 'pvcall-2'], 'no claim dropped');
  const back = await k.converge('back', settled(3));
  t.comment(`all pods lost: back in ${secs(back.ms)} (${back.syncs} syncs)`);
  t.same(k.livePods(), ['pvcall-0', 'pvcall-1', 'pvcall-2'], 'the same members');
  t.same(
    status(await k.step()).memberList.map((m: any) => m.id),
    ids,
    'the same member IDs',
  );
  for (let i = 0; i < 20; i++) t.equal(await k.get(`all-${i}`), `v${i}`);
});

t.test('PVC-backed: two of three pods lost (no quorum), both back as themselves, every key kept', async (t) => {
  const k = cluster(t, 'pvctwo', { size: 3, version: '3.6.9', pod: { persistentVolumeClaimSpec: PVC } });
  await k.converge('size 3', settled(3));
  await k.put('two', 'kept');
  await k.deletePod('pvctwo-1');
  await k.deletePod('pvctwo-2');
  const first = await k.step();
  t.same(claims(first), ['pvctwo-0', 'pvctwo-1', 'pvctwo-2'], 'no claim dropped');
  const back = await k.converge('back', settled(3));
  t.comment(`two of three lost: back in ${secs(back.ms)} (${back.syncs} syncs)`);
  t.same(k.livePods(), ['pvctwo-0', 'pvctwo-1', 'pvctwo-2']);
  t.equal(await k.get('two'), 'kept');
});

t.test('a bootstrap with a wrong version recovers once the spec is fixed', async (t) => {
  const k = cluster(t, 'typo', { size: 3, version: '3.6.99' });
  for (let i = 0; i < 4; i++) await k.step();
  t.equal(status(await k.step()).phase, 'Creating', 'stuck: the image does not exist');
  k.setSpec({ ...k.spec, version: '3.6.9' });
  const fixed = await k.converge('size 3 after the fix', settled(3, '3.6.9'));
  t.comment(`bootstrap recovered ${secs(fixed.ms)} after the fix`);
  await k.put('typo', 'fixed');
  t.equal(await k.get('typo'), 'fixed');
});
