// A member moved to the new version whose pod the kubelet then evicts for the pod's own limits (the new version
// writes past its container's ephemeral-storage limit, or its emptyDir's sizeLimit: the kubelet's message names the
// limit, pods.ts evictedForOwnLimits) failed on the version, as one whose etcd exits: the upgrade fails
// (Upgrading=False UpgradeFailed naming the eviction), no other member is moved and the member's replacement runs the
// last good version. The pod is Failed for good (no restart in place to wait for, and the member goes with it), so the
// first sync that sees it says so. It is not one of the node's evictions (node pressure, a drain), which take
// MAX_UPGRADE_EVICTIONS to fail an upgrade and are not counted among them (upgrade-evicted-member-not-failed-upgrade,
// upgrade-whose-members-are-evicted-on-the-new-version-stops). Each answer fed back as the next observed state.
import t from 'tap';
import { firstMoved, images, PVC, running, upgradeFirst } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const OWN_LIMIT = {
  reason: 'Evicted',
  message: 'Container etcd exceeded its local ephemeral storage limit "2Gi". ',
  containerStatuses: [{ name: 'etcd', restartCount: 0, state: { terminated: { exitCode: 137, reason: 'Error' } } }],
};

t.test('a member moved to the new version evicted for its own limits fails the upgrade', async (t) => {
  const { loop, moved } = await firstMoved();
  t.ok(moved, `a member is upgraded in place: ${moved}`);
  loop.etcd.up.delete(moved!);
  loop.phase.set(moved!, 'Failed');
  loop.podStatus.set(moved!, OWN_LIMIT);
  loop.now = new Date(loop.now.getTime() + 30_000);
  const res = await loop.step();
  const upgrading = (res.status as any).conditions.find((c: any) => c.type === 'Upgrading');
  t.match(upgrading, { status: 'False', reason: 'UpgradeFailed', message: /evicted for its own limits/ });
  t.match(loop.s().upgradeFailed, { member: moved, version: '3.5.1', from: '3.5.0' });
});

for (const storage of [false, true])
  t.test(
    `every member moved evicted for its own limits: the first halts the upgrade (${storage ? 'with' : 'without'} storage)`,
    async (t) => {
      const loop = await running(storage ? { size: 3, pod: { persistentVolumeClaimSpec: PVC } } : { size: 3 });
      const { moved, i } = await upgradeFirst(loop);
      t.ok(moved, 'a member is moved to 3.5.1');
      const evicted = new Set<string>();
      const removals = () => loop.etcd.calls.filter((c) => c.startsWith('remove ')).length;
      let failedAt: number | undefined;
      for (let s = i * 60; s <= 3600; s += 15) {
        loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
        for (const p of [...evicted])
          if (!loop.pods().includes(p)) {
            evicted.delete(p);
            loop.phase.delete(p);
            loop.podStatus.delete(p);
          }
        for (const [p, image] of Object.entries(images(loop)))
          if (image.endsWith(':v3.5.1') || evicted.has(p)) {
            evicted.add(p);
            loop.etcd.up.delete(p);
            loop.phase.set(p, 'Failed');
            loop.podStatus.set(p, OWN_LIMIT);
          } else loop.etcd.up.add(p);
        await loop.step();
        if (failedAt === undefined && loop.s().upgradeFailed) failedAt = s - i * 60;
      }
      t.ok(failedAt !== undefined && failedAt <= 60, `the upgrade failed ${failedAt} s after the first eviction`);
      t.ok(removals() <= 1, `no member lost to the version but the one evicted (${removals()} removed)`);
      t.notOk(loop.s().upgradeFailed.reason.includes('evicted by their nodes'), 'not counted as the nodes evicting');
      t.same(
        Object.values(images(loop)),
        ['quay.io/coreos/etcd:v3.5.0', 'quay.io/coreos/etcd:v3.5.0', 'quay.io/coreos/etcd:v3.5.0'],
        'every member on the last good version, at full strength',
      );
    },
  );
