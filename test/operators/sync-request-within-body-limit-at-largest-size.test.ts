// Every child comes back in each sync as the API server stores it: what the hook answered twice over (the child, and
// Metacontroller's last-applied copy of it in an annotation, escaped again) and, for a pod, what the API server and
// the kubelet add. A spec a kind accepts must give sync requests within the hook server's body limit once its children
// exist, at its largest (test/<kind>/largest.ts: every field copied into children at its bound, the parent's metadata
// at what the API server allows), else every sync of it is refused (413) and nothing says why. The PodSet, whose
// children are many, bounds it in its hook (test/podset/sync-request-bound-counts-what-comes-back.test.ts); the other
// kinds' children are few (a Memcached's Deployment and Services, a MySQLCluster's StatefulSet, Services and Secret,
// an EtcdCluster's members, their claims, two Services and a budget) and their bounds per object keep them within it.
// Each child's last-applied copy must also fit in the 256 KiB the API server allows an object's annotations, with its
// own annotations, or the child cannot be created at all. The kinds whose pods get a NetworkPolicy (EtcdCluster,
// Memcached, PodSet) are sent every NetworkPolicy of the namespace as well (lib/network-policy.ts
// namespacePolicyRules): counted at the most namespaceGovernance reads, 512 EtcdClusters' member policies of the
// longest names.
import t from 'tap';
import { MAX_ANNOTATIONS_BYTES, lastAppliedBytes } from '../../lib/budget.js';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import type { CompositeHookDefinition } from '../../lib/hook.js';
import type { CompositeSyncResponse, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { operators } from '../../main/operators.js';
import { memberNetworkPolicy } from '../../hooks/etcdcluster/network.js';
import { MAX_NAMESPACE_POLICIES } from '../../lib/network-policy.js';
import { objectMap } from '../fixtures/requests.js';
import { applied, sentBytes, storedPod } from '../fixtures/stored-objects.js';
import { readyOf, WORST_SPECS, worstAnswer, worstParent } from '../fixtures/worst.js';

const composites = operators.filter((d): d is CompositeHookDefinition => d.type === 'composite');

/** The namespace's NetworkPolicies as stored: MAX_NAMESPACE_POLICIES EtcdClusters' member policies, longest names. */
function namespacePolicies(namespace: string): Record<string, unknown> {
  const policies: KubeObject[] = [];
  for (let i = 0; i < MAX_NAMESPACE_POLICIES; i++) {
    const cluster = {
      apiVersion: 'etcd.database.coreos.com/v1beta2',
      kind: 'EtcdCluster',
      metadata: { name: `${'e'.repeat(59)}${String(i).padStart(4, '0')}`, namespace, uid: `0000-uid-${i}` },
      spec: { size: 1 },
    } as unknown as ParentObject;
    policies.push(applied(memberNetworkPolicy(cluster, {}, true)!, cluster, i));
  }
  return objectMap(policies, 'v1', ['NetworkPolicy.networking.k8s.io/v1']);
}

/** The children of `res` as the API server stores them once made (pods running, claims bound). */
function stored(res: CompositeSyncResponse, parent: ParentObject): KubeObject[] {
  return res.children.map((c, i) =>
    c.kind === 'Pod'
      ? storedPod(c, parent, i)
      : c.kind === 'PersistentVolumeClaim'
        ? { ...applied(c, parent, i), status: { phase: 'Bound' } }
        : applied(c, parent, i),
  );
}

/** The annotations `child` would carry with Metacontroller's last-applied copy of it, as the API server counts them. */
function annotationBytes(child: KubeObject): number {
  const own = Object.entries(child.metadata.annotations ?? {}).reduce(
    (n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v),
    0,
  );
  return own + lastAppliedBytes(child);
}

/**
 * Syncs `parent` with what it made fed back, stored, until its answer has pods (an EtcdCluster makes its claims
 * first, its members once they are bound), a PodSet until it makes no more (a large one makes its pods in batches):
 * the answer with pods, and the request that carries them back.
 */
async function withPods(def: CompositeHookDefinition, parent: ParentObject) {
  let now = parent;
  let res = await worstAnswer(def, now);
  const pods = (children: KubeObject[]) => children.filter((c) => c.kind === 'Pod').length;
  let fed = 0;
  for (
    let round = 0;
    round < 4 && (pods(res.children) === 0 || (def.name === 'podset' && pods(res.children) > fed));
    round++
  ) {
    const made = stored(res, now);
    fed = pods(made);
    now = { ...now, status: res.status } as ParentObject;
    res = await worstAnswer(def, now, objectMap(made));
  }
  const children = stored(res, now);
  now = { ...now, status: res.status } as ParentObject;
  const related = def.name === 'mysqlcluster' ? {} : namespacePolicies(now.metadata.namespace ?? 'default');
  const body = { controller: { metadata: { name: def.name } }, parent: now, children: objectMap(children), related };
  return { res, children, bytes: sentBytes(body) };
}

for (const kind of ['memcached', 'mysqlcluster', 'etcdcluster', 'podset']) {
  t.test(`${kind} at its largest: each sync once its children exist is within the body limit`, async (t) => {
    const def = composites.find((d) => d.name === kind)!;
    const parent = worstParent(kind, structuredClone(WORST_SPECS[kind]!));
    const { res, children, bytes } = await withPods(def, parent);
    t.not(readyOf(res)?.reason, 'InvalidSpec', `${kind}: served, ${readyOf(res)?.message ?? ''}`);
    t.not(readyOf(res)?.reason, 'ChildTooLarge', `${kind}: served, ${readyOf(res)?.message ?? ''}`);
    t.ok(res.children.length > 0, `${res.children.length} children answered`);
    const over = res.children.filter((c) => annotationBytes(c) > MAX_ANNOTATIONS_BYTES);
    t.same(
      over.map((c) => c.metadata.name),
      [],
      "each child within the API server's annotations with its last-applied copy",
    );
    t.ok(
      bytes <= DEFAULT_BODY_LIMIT,
      `${kind}: ${children.length} children, ${bytes} bytes within ${DEFAULT_BODY_LIMIT}`,
    );
  });
}

t.test(
  'an EtcdCluster whose member pods would carry annotations past 256 KiB with their last-applied copy makes none',
  async (t) => {
    // `&` is six bytes as Go writes it (\u0026): spec.pod.annotations of 32 KiB of them (values the CRD allows), copied
    // into each member pod and again in Metacontroller's last-applied copy of it, make ~300 KiB of annotations: the
    // API server would refuse every member, and nothing would say why.
    const def = composites.find((d) => d.name === 'etcdcluster')!;
    const spec = structuredClone(WORST_SPECS['etcdcluster']!) as any;
    for (const key of Object.keys(spec.pod.annotations)) spec.pod.annotations[key] = '&'.repeat(400);
    const { res } = await withPods(def, worstParent('etcdcluster', spec));
    const pods = res.children.filter((c) => c.kind === 'Pod');
    t.same(pods, [], 'no member pod answered');
    t.match(readyOf(res), {
      status: 'False',
      reason: 'ChildTooLarge',
      message:
        /^Pod \S+-0 would carry \d+ KiB of annotations with the copy of it Metacontroller keeps in one .* more than the 256 KiB the API server allows/,
    });
    t.ok(
      res.children.some((c) => c.kind === 'PersistentVolumeClaim'),
      'the claims it made are kept',
    );
  },
);
