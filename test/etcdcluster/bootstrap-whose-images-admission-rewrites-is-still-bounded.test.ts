// A bootstrap that keeps failing stops after 3 starts (hooks/etcdcluster/bootstraps.ts, docs/etcdcluster.md "A
// bootstrap that keeps failing stops"): without the bound, pods and claims are made and deleted for ever. A start is
// not counted when "the spec changed", which plan/silent.ts startOutcome reads from the pods: any member pod whose
// image is not the spec's (atImage: same registry, repository and tag). An admission webhook that points images at the
// cluster's registry mirror (Kyverno's "replace image registry" policy, an air-gapped cluster's rewriter: quay.io/... to
// mirror.example.com/...) makes every pod look like another spec's: each start is "the spec changed", never counted,
// and the bootstrap restarts at every sync for ever (15 starts, 45 pods made and deleted, in 30 syncs here), with
// nothing in status; the pods do not even need to fail. The hook accepts admission pinning a digest (asGiven); not a
// rewritten registry.
//
// Must hold: a bootstrap whose pods the API server stored with a rewritten registry, whose etcd keeps exiting, stops
// after at most MAX_BOOTSTRAP_STARTS starts (or at least stops making new starts): the bound holds whatever admission
// did to the images.
import t from 'tap';
import { MAX_BOOTSTRAP_STARTS } from '../../hooks/etcdcluster/bootstraps.js';
import { CRASHED_ON_A_FLAG, FakeEtcd, Loop } from '../fixtures/etcd-loop.js';

t.test('a bootstrap whose images an admission webhook points at a mirror is still bounded', async (t) => {
  const loop = new Loop({ size: 3 }, new FakeEtcd());
  const made = new Set<string>();
  const starts = new Set<string>();
  for (let i = 0; i < 30; i++) {
    await loop.step();
    for (const c of loop.children as any[]) {
      if (c.kind !== 'Pod' || made.has(c.metadata.name)) continue;
      made.add(c.metadata.name);
      // What the API server stores once the mirror policy mutated the create.
      for (const k of [...(c.spec.initContainers ?? []), ...c.spec.containers])
        k.image = String(k.image).replace(/^quay\.io\//, 'mirror.example.com/');
    }
    if (loop.pods().length > 0) starts.add(loop.pods()[0]!);
    for (const p of loop.pods()) loop.podStatus.set(p, CRASHED_ON_A_FLAG);
  }
  t.ok(
    starts.size <= MAX_BOOTSTRAP_STARTS,
    `${starts.size} starts (${made.size} member pods made) in 30 syncs; phase ${loop.s().phase}, reason ${loop.s().reason ?? 'none'}`,
  );
});
