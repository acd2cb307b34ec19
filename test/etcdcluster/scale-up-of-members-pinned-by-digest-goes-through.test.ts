// An admission policy that pins images by digest (Kyverno verifyImages with mutateDigest, Connaisseur, Ratify)
// rewrites each member pod's image when it is created: `quay.io/coreos/etcd:v3.5.0` answered is observed as
// `quay.io/coreos/etcd:v3.5.0@sha256:<64 hex>`, the same image. A member added to such a cluster (a scale-up) whose
// pod is observed so before its etcd starts is waited for like any other: it was made on the spec of the moment, it
// is not cancelled, and the cluster reaches its size with one addition. Each answer is fed back as the next observed
// state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { newMembersServeAfter30s, pinAll, running } from '../fixtures/etcd-loop.js';

t.test('a member added whose pod is pinned by digest is waited for and joins', async (t) => {
  const loop = await running({ size: 3 });
  pinAll(loop);
  loop.spec = { ...loop.spec, size: 4 };
  // A new member's pod starts its etcd, which serves 30 s after the pod is first seen.
  await newMembersServeAfter30s(loop);
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
