// docs/etcdcluster.md ("Lost pods, with persistentVolumeClaimSpec"): a member's claim stays in every answer as long as
// the member belongs to the cluster, and goes only when the member is removed on purpose or with the EtcdCluster. An
// edit that takes spec.pod.persistentVolumeClaimSpec out of a running cluster's spec (a GitOps source that dropped the
// field, an older manifest applied) is no such decision: before, the hook stopped answering every member claim at once
// and Metacontroller deleted them all (held only while a pod mounts one), the cluster still Ready; any member pod lost
// then lost its data, a majority lost together the cluster's. Now such a spec is refused (InvalidSpec naming the
// field, every child kept: pods and claims), and with the field back a pod lost meanwhile is made again on its claim
// as the same member.
import t from 'tap';
import { PVC, running } from '../fixtures/etcd-loop.js';

t.test('taking persistentVolumeClaimSpec out of the spec keeps every member claim, and says why', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  t.same(loop.claims(), ['e-0', 'e-1', 'e-2']);
  loop.spec = { ...loop.spec, pod: {} };
  for (let i = 0; i < 3; i++) await loop.step();
  t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], 'every member claim still answered (none deleted)');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'every member pod kept');
  const ready = loop.s().conditions.find((c: any) => c.type === 'Ready');
  t.match(ready, {
    status: 'False',
    reason: 'InvalidSpec',
    message: /spec\.pod\.persistentVolumeClaimSpec.*3 member claims/,
  });
  // A drain takes e-2's pod meanwhile; the field is put back.
  loop.lose('e-2');
  await loop.step();
  t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], 'the claims kept while the pod is gone');
  loop.spec = { ...loop.spec, pod: { persistentVolumeClaimSpec: PVC } };
  for (let i = 0; i < 3; i++) await loop.step();
  t.same(loop.etcd.calls, [], 'no member removed or added');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'e-2 made again');
  t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], 'on its claim');
});

t.test('a cluster made without storage is not refused for it', async (t) => {
  const loop = await running({ size: 3 });
  t.same(loop.claims(), []);
  await loop.step();
  t.equal(loop.s().conditions.find((c: any) => c.type === 'Ready')?.status, 'True');
});
