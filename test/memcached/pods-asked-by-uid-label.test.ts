// A Memcached asks for its pods by a label carrying its uid, which a tenant of another namespace cannot know: on
// Metacontroller v1.5.20 a related rule by labels is matched by labels alone (no namespace), so that a rule by the
// recommended name/instance labels made a pod any tenant writes with them sync this Memcached as often as it was
// written. A Memcached from before the label keeps its pods in sight through its rollout.
import t from 'tap';
import { memcached } from '../../hooks/memcached/index.js';
import type { KubeObject, ParentObject, RelatedResourceRule } from '../../lib/metacontroller.js';
import { memcachedSync as sync } from '../fixtures/hooks.js';
import { asObserved, deploymentPod, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';
import { wakingRules } from '../fixtures/related-wakes.js';

const now = FIXED_NOW;
const UID = '0b6e7c52-2f0e-4c1e-9a0e-5f3f0c9d7a41';
const UID_LABEL = 'memcached.metaops.io/parent-uid';

function parent(status?: Record<string, unknown>): ParentObject {
  return {
    apiVersion: 'cache.example.com/v1alpha1',
    kind: 'Memcached',
    metadata: { name: 'cache', namespace: 'team-b', uid: UID, generation: 1 },
    spec: { size: 2 },
    ...(status ? { status } : {}),
  } as ParentObject;
}

const rulesOf = (p: ParentObject) =>
  (memcached.customize as any)({ controller: {}, parent: p }, {}).relatedResources as RelatedResourceRule[];

function syncOf(p: ParentObject, children: KubeObject[] = [], related: KubeObject[] = []) {
  const req = request('memcached', p.spec as Record<string, unknown>);
  req.parent = p;
  req.children = objectMap(children, 'v1', ['Deployment.apps/v1', 'Service.v1']);
  req.related = objectMap(related, 'v1', ['Pod.v1']);
  return sync(req, now);
}

const deploymentOf = (res: { children: KubeObject[] }) => res.children.find((c) => c.kind === 'Deployment')!;
const templateLabels = (d: KubeObject) =>
  (d['spec'] as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;

function pod(name: string, namespace: string, labels: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, labels } };
}

t.test(
  'a pod of another namespace carrying every label of the pods but the uid syncs the Memcached through no rule',
  async (t) => {
    const p = parent();
    const rules = rulesOf(p);
    const labels = templateLabels(deploymentOf(syncOf(p)));
    t.equal(labels[UID_LABEL], UID, "the pod template carries the Memcached's uid");
    const own = pod('cache-5d4f-abcde', 'team-b', labels);
    t.not(wakingRules(rules, 'team-b', own).length, 0, 'its own pods sync it');
    const { [UID_LABEL]: _uid, ...guessable } = labels;
    for (const labelled of [guessable, { ...guessable, [UID_LABEL]: 'cache' }, { ...guessable, [UID_LABEL]: '' }]) {
      const tenant = pod('cache-5d4f-abcde', 'team-a', labelled);
      t.same(
        wakingRules(rules, 'team-b', tenant),
        [],
        `a pod of team-a labelled ${JSON.stringify(labelled)} wakes nothing`,
      );
    }
    t.notOk(
      rules.some((r) => r.resource === 'pods' && r.labelSelector && !r.labelSelector.matchLabels?.[UID_LABEL]),
      'no rule asks for pods by labels without the uid',
    );
  },
);

t.test('a Memcached from an earlier metaops keeps its pods in sight until its Deployment rolled them', async (t) => {
  // Its status as an earlier metaops wrote it: a sync recorded, no podsLabelled.
  const old = parent({ observedGeneration: 1, nodes: ['cache-1111-a', 'cache-1111-b'] });
  const byLabels = (rules: RelatedResourceRule[]) =>
    rules.filter((r) => r.resource === 'pods').map((r) => r.labelSelector);
  t.same(
    byLabels(rulesOf(old)),
    [
      { matchLabels: { [UID_LABEL]: UID } },
      { matchLabels: { 'app.kubernetes.io/name': 'memcached', 'app.kubernetes.io/instance': 'cache' } },
    ],
    'asked by its uid, and by name/instance while pods from before the label may exist',
  );
  // Its Deployment as the earlier metaops made it: no uid label on the template; its pods without it either.
  const wanted = deploymentOf(syncOf(parent()));
  const before = structuredClone(wanted);
  const labels = templateLabels(before);
  delete labels[UID_LABEL];
  const oldDeployment = {
    ...asObserved(before, { replicas: 2, readyReplicas: 2, updatedReplicas: 2, observedGeneration: 1 }),
  };
  oldDeployment.metadata.generation = 1;
  const oldPods = ['a', 'b'].map((s) =>
    deploymentPod(
      { ...pod(`cache-1111-${s}`, 'team-b', labels), status: { phase: 'Running' } } as KubeObject,
      'cache',
      '1111',
    ),
  );
  const rolling = syncOf(old, [oldDeployment], oldPods);
  t.notOk((rolling.status as any).podsLabelled, 'not recorded while the template lacks the label');
  t.same((rolling.status as any).nodes, ['cache-1111-a', 'cache-1111-b'], 'the pods from before are listed');
  t.equal(templateLabels(deploymentOf(rolling))[UID_LABEL], UID, 'the template takes the label (one rollout)');
  t.same(
    (deploymentOf(rolling)['spec'] as any).selector,
    (before['spec'] as any).selector,
    'the selector is never changed',
  );

  // Mid-rollout: the template labelled, the controller not done.
  const mid = asObserved(wanted, { replicas: 3, readyReplicas: 2, updatedReplicas: 1, observedGeneration: 2 });
  mid.metadata.generation = 2;
  const midStatus = syncOf(parent(rolling.status as Record<string, unknown>), [mid], oldPods).status as any;
  t.notOk(midStatus.podsLabelled, 'not recorded while old pods remain');

  // Rolled: every replica from the labelled template.
  const done = asObserved(wanted, { replicas: 2, readyReplicas: 2, updatedReplicas: 2, observedGeneration: 2 });
  done.metadata.generation = 2;
  const rolled = syncOf(parent(midStatus), [done]);
  t.equal((rolled.status as any).podsLabelled, true, 'recorded once every pod carries it');
  const after = parent(rolled.status as Record<string, unknown>);
  t.same(byLabels(rulesOf(after)), [{ matchLabels: { [UID_LABEL]: UID } }], 'then asked by its uid alone');
  const again = syncOf(after, [done]);
  t.same(again.status, rolled.status, 'the status stays as it is');
});

t.test('a new Memcached is asked for by its uid alone and records it at its first sync', async (t) => {
  const p = parent();
  t.same(
    rulesOf(p)
      .filter((r) => r.resource === 'pods')
      .map((r) => r.labelSelector),
    [{ matchLabels: { [UID_LABEL]: UID } }],
  );
  t.equal((syncOf(p).status as any).podsLabelled, true);
});
