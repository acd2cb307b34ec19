// An admission policy that resolves tags to digests may drop the tag: Sigstore's policy-controller (its mutating
// webhook, resolvePodSpec) writes `ociremote.ResolveDigest(ref).String()`, `ref.Context().Digest(...)`, so the member
// pod answered with `quay.io/coreos/etcd:v3.5.0` is observed as `quay.io/coreos/etcd@sha256:<64 hex>`: the same
// image, pulled by the digest the tag named when the pod was made. Such member pods are the spec's: a bootstrap
// whose pods are observed so while etcd does not answer yet is waited for, a cluster at rest on them is Ready with
// no member moved, and a member added to it is waited for until it joins.
import t from 'tap';
import { decide } from '../../hooks/etcdcluster/plan.js';
import { names, parent, pod, range, spec } from '../fixtures/etcd-plan.js';
import { newMembersServeAfter30s, pinAll, pinnedPod, resolvedToDigest, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const condition = (s: any, type: string) => (s.conditions ?? []).find((c: any) => c.type === type);

t.test('a bootstrap whose pods are pinned by digest without their tag, etcd silent, is waited for', async (t) => {
  const d = decide(parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 2 }), spec({ size: 3 }), {
    pods: range(3).map((i) => pinnedPod(pod(i, { phase: 'Pending' }), resolvedToDigest)),
    terminating: [],
    health: {},
  });
  t.same(names(d), ['e-0', 'e-1', 'e-2'], 'every pod of the bootstrap kept');
  t.equal(d.phase, 'Creating');
  t.same(
    d.conditions.map((c) => [c.type, c.reason]),
    [
      ['Available', 'Bootstrapping'],
      ['Scaling', 'Bootstrapping'],
    ],
    'waiting for the first members, not starting the bootstrap again',
  );
});

t.test('member pods pinned by digest without their tag are at their version: Ready, nothing moved', async (t) => {
  const loop = await running({ size: 3 });
  pinAll(loop, resolvedToDigest);
  for (let i = 0; i < 10; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
    await loop.step();
    const upgrading = condition(loop.s(), 'Upgrading');
    const ready = condition(loop.s(), 'Ready');
    if (upgrading?.status === 'True' || ready?.status !== 'True') {
      t.fail(`step ${i}: Upgrading ${JSON.stringify(upgrading)}; Ready ${ready?.reason}: ${ready?.message}`);
      return;
    }
  }
  t.pass('Ready at rest for ten minutes, no upgrade');
});

t.test('a member added whose pod is pinned by digest without its tag is waited for and joins', async (t) => {
  const loop = await running({ size: 3 });
  pinAll(loop, resolvedToDigest);
  loop.spec = { ...loop.spec, size: 4 };
  await newMembersServeAfter30s(loop);
  t.same(
    loop.etcd.calls.filter((c) => c.startsWith('add ')),
    ['add e-3'],
    'one addition',
  );
  t.same(
    loop.etcd.members.map((m) => m.name),
    ['e-0', 'e-1', 'e-2', 'e-3'],
    'the cluster is at its size',
  );
});
