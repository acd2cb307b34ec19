// An admission policy that pins images by digest (Kyverno verifyImages with mutateDigest, Connaisseur, Ratify)
// rewrites each member pod's image when it is created: `quay.io/coreos/etcd:v3.5.0` answered is observed as
// `quay.io/coreos/etcd:v3.5.0@sha256:<64 hex>`, the same image. A bootstrap whose pods are observed so, while etcd does
// not answer yet, is waited for as any other: its pods are the spec's, nothing failed, nothing changed. (Seen: the pods'
// images compared as text with the spec's, the digest read as "the spec changed", and every bootstrap of such a
// cluster deleted its pods and started again at each sync before etcd could answer.)
import t from 'tap';
import { decide } from '../../hooks/etcdcluster/plan.js';
import { names, parent, pod, range, spec } from '../fixtures/etcd-plan.js';
import { pinnedPod } from '../fixtures/etcd-loop.js';

t.test('a bootstrap whose pods are pinned by digest, etcd not answering yet, is waited for', async (t) => {
  const d = decide(parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 2 }), spec({ size: 3 }), {
    pods: range(3).map((i) => pinnedPod(pod(i, { phase: 'Pending' }))),
    terminating: [],
    health: {},
  });
  t.same(names(d), ['e-0', 'e-1', 'e-2'], 'every pod of the bootstrap kept');
  t.equal(d.phase, 'Creating');
  t.same(
    d.conditions.map((c) => [c.type, c.reason, c.message]),
    [
      ['Available', 'Bootstrapping', 'waiting for the first members to answer'],
      ['Scaling', 'Bootstrapping', 'waiting for the first members to answer'],
    ],
    'waiting for the first members, not starting the bootstrap again',
  );
});
