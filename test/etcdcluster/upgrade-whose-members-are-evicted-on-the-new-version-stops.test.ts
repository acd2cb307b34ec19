// Issue 30.4 ("an upgrade that fails stops"), of the same kind: an upgrade to a version whose members the kubelet
// evicts each time they run it (the new version writes more to its emptyDir than the pod's ephemeral-storage limit, or
// needs more memory than its node has: `Failed`, reason `Evicted`). One eviction is the node's doing, not the version's
// (etcd-failures.md: "An upgraded member's pod evicted ... no failed upgrade"); an eviction of every member moved to
// the version, again and again, is the version failing. The upgrade halts: it does not move member after member to
// the version for ever, each lost and replaced (without storage) or made again and moved again (with storage).
// Each answer fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { images, PVC, running, upgradeFirst } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const condition = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);

const EVICTED = {
  reason: 'Evicted',
  message: 'Pod ephemeral local storage usage exceeds the total limit of containers 2Gi. ',
};

for (const storage of [false, true])
  t.test(
    `an upgrade whose every moved member is evicted on the new version halts (${storage ? 'with' : 'without'} storage)`,
    async (t) => {
      const loop = await running(storage ? { size: 3, pod: { persistentVolumeClaimSpec: PVC } } : { size: 3 });
      const { moved, i } = await upgradeFirst(loop);
      t.ok(moved, 'a member is moved to 3.5.1');
      // For two hours, a sync every 15 s: every member pod that runs 3.5.1 is evicted (a pod evicted stays so until
      // it is gone; one made again under its name is a new pod).
      const evicted = new Set<string>();
      const removals = () => loop.etcd.calls.filter((c) => c.startsWith('remove ')).length;
      for (let s = i * 60; s <= 2 * 3600; s += 15) {
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
            loop.podStatus.set(p, EVICTED);
          } else loop.etcd.up.add(p);
        await loop.step();
      }
      t.ok(removals() <= 3, `few members lost to the version (${removals()} removed in two hours)`);
      t.match(
        condition(loop.last, 'Upgrading'),
        { status: 'False' },
        `the upgrade is halted: ${JSON.stringify(condition(loop.last, 'Upgrading'))}`,
      );
      t.same(
        Object.values(images(loop)),
        ['quay.io/coreos/etcd:v3.5.0', 'quay.io/coreos/etcd:v3.5.0', 'quay.io/coreos/etcd:v3.5.0'],
        'every member on the last good version, at full strength',
      );
    },
  );
