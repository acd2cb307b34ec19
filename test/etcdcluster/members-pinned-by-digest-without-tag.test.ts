// An admission policy that resolves tags to digests may drop the tag: Sigstore's policy-controller (its mutating
// webhook, resolvePodSpec) writes `ociremote.ResolveDigest(ref).String()`, `ref.Context().Digest(...)`, so the member
// pod answered with `quay.io/coreos/etcd:v3.5.0` is observed as `quay.io/coreos/etcd@sha256:<64 hex>`: the same
// image, pulled by the digest the tag named when the pod was made. Such member pods are the spec's: a bootstrap
// whose pods are observed so while etcd does not answer yet is waited for, a cluster at rest on them is Ready with
// no member moved, and a member added to it is waited for until it joins.
import t from 'tap';
import type { KubeObject } from '../../lib/index.js';
import { decide } from '../../hooks/etcdcluster/plan.js';
import { names, parent, pod, range, spec } from '../fixtures/etcd-plan.js';
import { running, STARTING, type Loop } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const DIGEST = `ab${'12'.repeat(31)}`;
const condition = (s: any, type: string) => (s.conditions ?? []).find((c: any) => c.type === type);

/** `image` as the policy-controller writes it: the repository at the digest its tag resolved to, no tag. */
const resolved = (image: string) => `${image.replace(/:[^:/@]+$/, '')}@sha256:${DIGEST}`;

function pinnedPod(p: KubeObject): KubeObject {
  const copy = structuredClone(p) as any;
  for (const c of copy.spec?.containers ?? [])
    if (typeof c.image === 'string' && !c.image.includes('@')) c.image = resolved(c.image);
  return copy;
}

/** From now on every member pod is observed as the API server holds it once the policy resolved its images. */
function pinAll(loop: Loop): void {
  const observed = loop.observed.bind(loop);
  loop.observed = () => observed().map((o) => (o.kind === 'Pod' ? pinnedPod(o) : o));
}

t.test('a bootstrap whose pods are pinned by digest without their tag, etcd silent, is waited for', async (t) => {
  const d = decide(parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 2 }), spec({ size: 3 }), {
    pods: range(3).map((i) => pinnedPod(pod(i, { phase: 'Pending' }))),
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
  pinAll(loop);
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
  pinAll(loop);
  loop.spec = { ...loop.spec, size: 4 };
  const born = new Map<string, number>();
  for (let s = 0; s <= 300; s += 5) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
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
