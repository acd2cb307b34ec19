// The NetworkPolicy that keeps the pods running a tenant's image (EtcdCluster members: <name>-members; PodSet:
// <name>-podset; Memcached: <name>-memcached) from the instance metadata service (the node's role, which every
// tenant's pods on that node share) goes away with its parent at the same moment as the pods are asked to stop:
// EtcdCluster's finalize answers no children at all (Metacontroller deletes the policy and the pods together), and
// PodSet and Memcached have no finalize hook (Kubernetes' garbage collector deletes the policy, the pods and the
// Deployment's ReplicaSet in any order). A pod asked to stop keeps running its containers for its grace period
// (30 s by default), while the policy is already gone and the CNI no longer applies it. Tenant A, allowed only to
// create and delete custom resources, writes an image that on SIGTERM waits a second and reads
// 169.254.169.254/latest/meta-data/iam/security-credentials/<role>, then deletes its PodSet (or EtcdCluster): the node's
// role, as often as it likes, at will.
//
// Must hold: while pods of the parent are still observed (running or terminating), the parent's deletion keeps its
// pods' NetworkPolicy: the EtcdCluster's finalize answers it (and is not finalized), and a PodSet and a Memcached have
// a finalize hook that does the same.
import t from 'tap';
import { finalize } from '../../hooks/etcdcluster/sync.js';
import { memcached } from '../../hooks/memcached/index.js';
import { podset } from '../../hooks/podset/index.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { running } from '../fixtures/etcd-loop.js';
import { memcachedSync, podsetSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const terminating = (o: KubeObject): KubeObject => ({
  ...o,
  metadata: { ...o.metadata, deletionTimestamp: '2026-01-02T03:04:05Z', deletionGracePeriodSeconds: 30 } as any,
});
const kinds = (children: any[]) => children.map((c) => `${c.kind}/${c.metadata?.name}`).join(', ') || 'none';

t.test("an EtcdCluster being deleted keeps its members' NetworkPolicy while member pods remain", async (t) => {
  const loop = await running({ size: 3 });
  const observed = loop.children.map((c) => asObserved(c, c.kind === 'Pod' ? readyPod : undefined));
  t.ok(
    observed.some((c) => c.kind === 'NetworkPolicy'),
    'the running cluster has its policy',
  );
  const parent = {
    ...structuredClone(loop.parent()),
    metadata: { ...loop.parent().metadata, deletionTimestamp: '2026-01-02T03:04:05Z' },
  };
  // First finalize call: the members still run; then they are terminating (their grace period).
  for (const pods of ['running', 'terminating'] as const) {
    const children = observed.map((c) => (pods === 'terminating' && c.kind === 'Pod' ? terminating(c) : c));
    const res = finalize({ controller: {}, parent, children: objectMap(children) } as any, {}, FIXED_NOW);
    t.ok(
      (res.children as any[]).some((c) => c.kind === 'NetworkPolicy' && c.metadata.name === 'e-members'),
      `member pods ${pods}: the finalize answer keeps e-members (answered: ${kinds(res.children)})`,
    );
  }
});

// Open (docs/operating.md, tenants): PodSet and Memcached have no finalize hook yet; adding one puts a finalizer on
// every existing parent and, for Memcached, whose pods are its Deployment's (not observed by its hook), a wait on time
// alone. Kept as a todo until it is done.
t.test(
  "a PodSet or a Memcached being deleted keeps its pods' NetworkPolicy while its pods remain",
  { todo: 'PodSet and Memcached have no finalize hook yet (docs/operating.md)' },
  async (t) => {
    const ps = podsetSync(
      request('podset', { size: 2, image: 'attacker.example/x:1', command: ['sleep', '9'] }),
      FIXED_NOW,
    );
    t.ok(
      (ps.children as any[]).some((c) => c.kind === 'NetworkPolicy'),
      'a PodSet answers its policy',
    );
    t.ok(
      typeof (podset as any).finalize === 'function',
      'PodSet has a finalize hook that keeps <name>-podset until its pods are gone (none: the garbage collector deletes it beside the terminating pods)',
    );
    const mc = memcachedSync(request('memcached', { size: 2, image: 'attacker.example/x:1' }), FIXED_NOW);
    t.ok(
      (mc.children as any[]).some((c) => c.kind === 'NetworkPolicy'),
      'a Memcached answers its policy',
    );
    t.ok(
      typeof (memcached as any).finalize === 'function',
      'Memcached has a finalize hook that keeps <name>-memcached until its pods are gone (none: the garbage collector deletes it beside the terminating pods)',
    );
  },
);
