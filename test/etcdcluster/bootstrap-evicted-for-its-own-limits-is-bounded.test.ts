// A bootstrap that keeps failing stops after 3 starts (bootstraps.ts), so a tenant's image that
// cannot run does not make pods forever. A member pod that ends with a `status.reason` is read as ended by its node
// (pods.ts endedByNode) and never counted, whatever the reason says. But the kubelet evicts a pod with reason Evicted
// also for what the pod itself does: its container over its own ephemeral-storage limit (spec.pod.resources.limits,
// the tenant's), its emptyDir over its sizeLimit. So a tenant's image (spec.repository) that writes past its own
// limit at start is evicted within seconds at every start, and the bootstrap is started over without end: 3 new pods
// of the tenant's image about every minute, forever, each filling a node's disk first (other tenants' pods on that
// node share its disk pressure and its disk-pressure taint). The upgrade path bounds the same thing (members on the
// version upgraded to evicted again and again: "the version's doing (its storage, its memory)", upgrade-hold.ts).
//
// Must hold: a bootstrap whose pods are evicted for exceeding their own limits is bounded (stopped, or started again
// only with a growing wait), as a bootstrap whose etcd exits is.
import t from 'tap';
import { FakeEtcd, Loop } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const ownLimit = {
  phase: 'Failed',
  reason: 'Evicted',
  message: 'Pod ephemeral local storage usage exceeds the total limit of containers 1Gi. ',
  containerStatuses: [
    { name: 'etcd', restartCount: 0, state: { terminated: { exitCode: 137, reason: 'ContainerStatusUnknown' } } },
  ],
};

t.test('a bootstrap evicted at every start for its own storage limit is not started over without bound', async (t) => {
  const loop = new Loop({ size: 3, pod: { resources: { limits: { 'ephemeral-storage': '1Gi' } } } }, new FakeEtcd());
  const starts: string[][] = [];
  // One hour of syncs, 30 s apart (the resync period).
  for (let i = 0; i < 120; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * 30_000);
    await loop.step();
    const pods = loop.pods();
    if (pods.length === 0 || starts.some((s) => s[0] === pods[0])) continue;
    starts.push(pods);
    for (const p of pods) loop.podStatus.set(p, ownLimit);
  }
  t.ok(
    starts.length <= 6,
    `${starts.length} starts of 3 pods in one hour (last: ${starts.at(-1)?.join(',')}), phase ${loop.s().phase}`,
  );
});

t.test('with member claims, each start makes new volumes: bounded as well', async (t) => {
  const loop = new Loop(
    {
      size: 3,
      pod: {
        resources: { limits: { 'ephemeral-storage': '1Gi' } },
        persistentVolumeClaimSpec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    },
    new FakeEtcd(),
  );
  const claims = new Set<string>();
  const starts: string[][] = [];
  for (let i = 0; i < 120; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * 30_000);
    await loop.step();
    for (const c of loop.claims()) claims.add(c);
    const pods = loop.pods();
    if (pods.length === 0 || starts.some((s) => s[0] === pods[0])) continue;
    starts.push(pods);
    for (const p of pods) loop.podStatus.set(p, ownLimit);
  }
  // Each claim is a volume the provisioner creates and deletes with the cluster's cloud credentials (one API rate
  // for every tenant of the account).
  t.ok(claims.size <= 18, `${claims.size} member claims made (and deleted) in one hour over ${starts.length} starts`);
});
