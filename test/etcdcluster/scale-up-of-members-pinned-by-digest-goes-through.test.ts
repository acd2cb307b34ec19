// An admission policy that pins images by digest (Kyverno verifyImages with mutateDigest, Connaisseur, Ratify)
// rewrites each member pod's image when it is created: `quay.io/coreos/etcd:v3.5.0` answered is observed as
// `quay.io/coreos/etcd:v3.5.0@sha256:<64 hex>`, the same image. A member added to such a cluster (a scale-up) whose
// pod is observed so before its etcd starts is waited for like any other: it was made on the spec of the moment, it
// is not cancelled, and the cluster reaches its size with one addition. Each answer is fed back as the next observed
// state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { running, STARTING } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const DIGEST = `ab${'12'.repeat(31)}`;

t.test('a member added whose pod is pinned by digest is waited for and joins', async (t) => {
  const loop = await running({ size: 3 });
  const observed = loop.observed.bind(loop);
  loop.observed = () =>
    observed().map((o: any) => {
      if (o.kind === 'Pod')
        for (const c of o.spec?.containers ?? [])
          if (typeof c.image === 'string' && !c.image.includes('@')) c.image = `${c.image}@sha256:${DIGEST}`;
      return o;
    });
  loop.spec = { ...loop.spec, size: 4 };
  const born = new Map<string, number>();
  for (let s = 0; s <= 300; s += 5) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
    // A new member's pod starts its etcd, which serves 30 s after the pod is first seen.
    for (const p of loop.pods()) {
      if (['e-0', 'e-1', 'e-2'].includes(p)) continue;
      if (!born.has(p)) born.set(p, s);
      if (s - born.get(p)! >= 30) {
        loop.etcd.up.add(p);
        loop.podStatus.delete(p);
      } else loop.podStatus.set(p, STARTING);
    }
    await loop.step();
  }
  const adds = loop.etcd.calls.filter((c) => c.startsWith('add '));
  const removes = loop.etcd.calls.filter((c) => c.startsWith('remove '));
  t.same(adds, ['add e-3'], 'one addition');
  t.same(removes, [], 'no member removed');
  t.same(
    loop.etcd.members.map((m) => m.name),
    ['e-0', 'e-1', 'e-2', 'e-3'],
    'the cluster is at its size',
  );
});
