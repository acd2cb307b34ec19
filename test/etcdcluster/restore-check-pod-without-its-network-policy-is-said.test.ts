// The restore check pod runs the tenant's images (spec.pod.busyboxImage, the etcd image) and is
// answered together with its own NetworkPolicy `<cluster>-restore-check`. When that policy is never created
// (Metacontroller without rights, an admission policy, a NetworkPolicy quota the tenant fills with its own clusters)
// the check pod runs on without it, reaching the instance metadata service (the node's credentials, shared with
// every other tenant on the node). For the members the status says so (NetworkPolicyCreated False,
// CreatingNetworkPolicy then NetworkPolicyNotCreated); for the check pod it must too.
import t from 'tap';
import { restoreObject, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test('a check pod running without its NetworkPolicy is said in the status', async (t) => {
  const loop = await running({ size: 3 });
  loop.check = 'running';
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  let said: any;
  for (let i = 0; i < 4; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * 40_000);
    await loop.step();
    // Metacontroller's create of the check pod's policy fails every time.
    loop.children = loop.children.filter((c) => !(c.kind === 'NetworkPolicy' && c.metadata.name === 'e-restore-check'));
    said = loop
      .s()
      .conditions.find((c: any) => c.status === 'False' && /e-restore-check/.test(String(c.message ?? '')));
  }
  t.ok(loop.checkPod(), 'the check pod is answered and runs (120 s)');
  t.match(
    loop.s().conditions.find((c: any) => c.type === 'Restore'),
    { reason: 'CheckingSnapshot' },
  );
  t.ok(said, 'a condition says NetworkPolicy e-restore-check is missing while the check pod runs the tenant images');
});
