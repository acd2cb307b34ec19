// Metacontroller keeps a parent's customize answer until its generation changes (v1.5.20; v4.17.2 up to 20 minutes),
// and a status write does not change it. A PodSet makes a pod again under its name when it is gone (evicted, deleted
// by hand, replaced by a rollout); another owner's pod made under that name meanwhile must be seen (PodNameTaken,
// issue 31), so the answer asks for every pod name the PodSet may make, whatever its status lists: an answer asked
// while status.nodes listed the pod would not have asked for it, and the sync would answer a pod Metacontroller
// cannot create, saying nothing.
import t from 'tap';
import { ASK_ALL_BYTES } from '../../hooks/podset/sync.js';
import type { CompositeSyncResponse, KubeObject, ParentObject, RelatedResourceRule } from '../../lib/metacontroller.js';
import { podsetCustomize, podsetSync } from '../fixtures/hooks.js';
import { replicaSetPod } from '../fixtures/pod-name-holders.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const SPEC = { size: 3, image: 'busybox', command: ['sleep', '3600'] };
const ready = (res: CompositeSyncResponse) =>
  ((res.status as any).conditions as Array<Record<string, unknown>>).find((c) => c['type'] === 'Ready');

/** The objects of `cluster` that `rules` ask for by name (what Metacontroller hands sync as related). */
function relatedFor(rules: RelatedResourceRule[], cluster: KubeObject[]): KubeObject[] {
  return cluster.filter((o) =>
    rules.some(
      (r) =>
        r.apiVersion === 'v1' &&
        r.resource === 'pods' &&
        r.namespace === o.metadata.namespace &&
        (r.names ?? []).includes(o.metadata.name!),
    ),
  );
}

/** A settled PodSet: its pods answered, observed Running, and its status listing them. */
function settled(spec = SPEC): { parent: ParentObject; pods: KubeObject[] } {
  const first = podsetSync(request('podset', spec), FIXED_NOW);
  const pods = first.children.map((c) => asObserved(c, { phase: 'Running' }));
  const req = request('podset', spec, { children: objectMap(pods) });
  const res = podsetSync(req, FIXED_NOW);
  return { parent: { ...req.parent, status: res.status! } as ParentObject, pods };
}

t.test('a pod gone since the answer was asked: another owner holding its name is seen, nothing made', async (t) => {
  const { parent, pods } = settled();
  const name = parent.metadata.name!;
  const ns = parent.metadata.namespace!;
  t.same(
    (parent.status as any).nodes,
    [0, 1, 2].map((i) => `${name}-pod-${i}`),
    'the status lists the pods',
  );
  // The answer Metacontroller keeps for this generation, asked while the status listed every pod.
  const rules = podsetCustomize(parent);
  // Pod 1 evicted and gone; another owner's pod made under its name before the PodSet makes it again.
  const gone = `${name}-pod-1`;
  const cluster = [replicaSetPod(gone, ns)];
  const observed = pods.filter((p) => p.metadata.name !== gone);
  const res = podsetSync(
    request('podset', SPEC, { parent, children: objectMap(observed), related: objectMap(relatedFor(rules, cluster)) }),
    FIXED_NOW,
  );
  t.match(ready(res), {
    status: 'False',
    reason: 'PodNameTaken',
    message: new RegExp(`^Pod ${gone} belongs to ReplicaSet other`),
  });
  t.notOk(
    res.children.some((c) => c.metadata.name === gone),
    'no pod answered under the name another owner holds',
  );
  t.same(
    res.children.map((c) => c.metadata.name).sort(),
    observed.map((p) => p.metadata.name).sort(),
    'the running pods kept',
  );
});

t.test('a rollout after a spec change: the pod it replaces is asked for although the status lists it', async (t) => {
  const { parent, pods } = settled();
  const name = parent.metadata.name!;
  const ns = parent.metadata.namespace!;
  // A new image: a new generation, asked for with the status of the moment (every pod listed, all outdated).
  const spec = { ...SPEC, image: 'busybox:1.36' };
  const changed = { ...parent, spec, metadata: { ...parent.metadata, generation: 3 } } as ParentObject;
  const rules = podsetCustomize(changed);
  for (let i = 0; i < 3; i++)
    t.ok(
      rules.some((r) => r.resource === 'pods' && (r.names ?? []).includes(`${name}-pod-${i}`)),
      `${name}-pod-${i} asked for`,
    );
  // The rollout deleted the first pod; another owner's pod took its name before the PodSet made it again.
  const replaced = podsetSync(request('podset', spec, { parent: changed, children: objectMap(pods) }), FIXED_NOW);
  const victim = pods.map((p) => p.metadata.name!).find((n) => !replaced.children.some((c) => c.metadata.name === n));
  t.ok(victim, 'the rollout replaces a pod');
  const observed = pods.filter((p) => p.metadata.name !== victim);
  const res = podsetSync(
    request('podset', spec, {
      parent: { ...changed, status: replaced.status! } as ParentObject,
      children: objectMap(observed),
      related: objectMap(relatedFor(rules, [replicaSetPod(victim!, ns)])),
    }),
    FIXED_NOW,
  );
  t.match(ready(res), { reason: 'PodNameTaken' });
  t.notOk(
    res.children.some((c) => c.metadata.name === victim),
    'the replacement is not answered over the other owner',
  );
});

t.test('a PodSet whose pods would be sent again past ASK_ALL_BYTES leaves out the pods its status lists', async (t) => {
  const spec = { ...SPEC, size: 700, image: 'i'.repeat(512) };
  const nodes = Array.from({ length: 700 }, (_, i) => `big-pod-${i}`);
  const parent = {
    ...request('podset', spec).parent,
    metadata: { name: 'big', namespace: 'ns', uid: 'uid-big', generation: 1 },
    status: { nodes: nodes.slice(0, 698) },
  } as ParentObject;
  t.ok(700 * (4096 + 3 * 512) > ASK_ALL_BYTES, 'past the bound');
  const asked = podsetCustomize(parent)
    .filter((r) => r.resource === 'pods')
    .flatMap((r) => r.names ?? [])
    .filter((n) => n.startsWith('big-pod-'));
  t.same(asked.sort(), ['big-pod-698', 'big-pod-699'], 'only the pods it does not list');
});
