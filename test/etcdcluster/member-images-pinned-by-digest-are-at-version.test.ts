// An admission policy that pins images by digest (Kyverno verifyImages with mutateDigest, its default; Connaisseur,
// Ratify...) rewrites each pod's image when it is created or updated: the member pod answered with
// `quay.io/coreos/etcd:v3.5.0` is observed as `quay.io/coreos/etcd:v3.5.0@sha256:<64 hex>`, the same image. A cluster
// at rest whose members all run spec.version is at its version: nothing to upgrade, no member moved, Ready=True.
// (Seen: the hook reads the digest as another version, "upgrades" a member to the version it runs, then waits for it
// to soak for good: Ready=False Converging at rest, and a later spec.version never starts.)
import t from 'tap';
import { pinAll, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const condition = (s: any, type: string) => (s.conditions ?? []).find((c: any) => c.type === type);

t.test('member pods whose images a policy pinned by digest are at their version: Ready, nothing moved', async (t) => {
  const loop = await running({ size: 3 });
  t.match(condition(loop.s(), 'Ready'), { status: 'True' }, 'Ready before the pods are seen pinned');
  // Every pod as the API server holds it: its etcd image pinned by the policy (on create and on update).
  pinAll(loop);
  for (let i = 0; i < 10; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
    await loop.step();
    const upgrading = condition(loop.s(), 'Upgrading');
    t.not(upgrading?.status, 'True', `step ${i}: no upgrade at rest (Upgrading: ${JSON.stringify(upgrading)})`);
    const ready = condition(loop.s(), 'Ready');
    t.equal(ready?.status, 'True', `step ${i}: Ready at rest (Ready: ${ready?.reason}: ${ready?.message})`);
    if (upgrading?.status === 'True' || ready?.status !== 'True') break;
  }
});
