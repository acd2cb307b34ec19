// Issue 30.1 for the clusters users already run. Member pods made by the version before issue 30 have
// restartPolicy: Never, and a pod's restartPolicy cannot change in place; the hook keeps every such pod as it is for
// as long as it lives ("Pods made before this version keep restartPolicy: Never until they are replaced",
// docs/etcdcluster.md), and nothing replaces a healthy member. So every cluster that existed before the upgrade of
// metaops keeps the very outage the issue names: two of three etcd containers exit at once (an OOM kill in one load
// spike), the pods go Failed with their data on emptyDir, and the cluster is Failed / MajorityLost for good. The
// promise "a majority that crashes and restarts regains quorum by itself" holds only for members made after it.
// Expected: the hook moves such members to restart in place (one at a time, while the others keep quorum: a
// remove + add without storage, a pod recreated on its claim with storage).
// Each answer fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { PVC, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const condition = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);

t.test(
  'members made before restart in place (restartPolicy Never) are moved to it, so a majority crash heals',
  async (t) => {
    const loop = await running({ size: 3 });
    // The pods as the version before made them.
    for (const p of loop.children.filter((c) => c.kind === 'Pod')) (p as any).spec.restartPolicy = 'Never';
    const hours = 6;
    for (let s = 0; s < hours * 3600; s += 60) {
      loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
      // Pods of new members start within the minute.
      for (const p of loop.pods()) loop.etcd.up.add(p);
      if (loop.pods().some((p) => !loop.etcd.members.some((m) => m.name === p || m.peerURLs[0]?.includes(`//${p}.`))))
        continue;
      await loop.step();
    }
    const policies = loop.children
      .filter((c) => c.kind === 'Pod')
      .map((p: any) => `${p.metadata.name}: ${p.spec.restartPolicy}`);
    t.notOk(
      policies.some((p) => p.endsWith('Never')),
      `after ${hours} hours every member restarts in place (${policies.join(', ')})`,
    );
    // Two of three etcd containers exit at once.
    const [a, b] = loop.pods();
    for (const p of [a!, b!]) {
      loop.etcd.up.delete(p);
      const never = (loop.children.find((c) => c.metadata.name === p) as any).spec.restartPolicy === 'Never';
      loop.podStatus.set(p, {
        phase: never ? 'Failed' : 'Running',
        containerStatuses: [
          {
            name: 'etcd',
            restartCount: never ? 0 : 1,
            state: never
              ? { terminated: { exitCode: 137, reason: 'OOMKilled' } }
              : { waiting: { reason: 'CrashLoopBackOff' } },
          },
        ],
      });
    }
    const res = await loop.step();
    t.not(
      condition(res, 'Available')?.reason,
      'MajorityLost',
      `a majority crash: ${condition(res, 'Available')?.message}`,
    );
  },
);

t.test(
  'with storage a member made with restartPolicy Never is made again on its claim, as the same member',
  async (t) => {
    const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
    for (const p of loop.children.filter((c) => c.kind === 'Pod')) (p as any).spec.restartPolicy = 'Never';
    const ids = loop.s().memberList.map((m: any) => `${m.name}=${m.id}`);
    for (let i = 0; i < 20; i++) {
      await loop.step();
      t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], `sync ${i + 1}: every claim kept`);
      t.ok(loop.pods().length >= 2, `sync ${i + 1}: at most one member pod made again at a time`);
    }
    t.same(
      loop.children.filter((c) => c.kind === 'Pod').map((p: any) => `${p.metadata.name}: ${p.spec.restartPolicy}`),
      ['e-0: Always', 'e-1: Always', 'e-2: Always'],
    );
    t.same(
      loop.s().memberList.map((m: any) => `${m.name}=${m.id}`),
      ids,
      'the same members',
    );
    t.same(loop.etcd.calls, [], 'no membership change');
  },
);

t.test('without storage the only member of a cluster made with restartPolicy Never is kept as it is', async (t) => {
  const loop = await running({ size: 1 });
  (loop.children.find((c) => c.kind === 'Pod') as any).spec.restartPolicy = 'Never';
  for (let i = 0; i < 5; i++) await loop.step();
  t.same(loop.pods(), ['e-0']);
  t.same(loop.etcd.calls, [], 'never removed: it holds the only copy of the data');
});
