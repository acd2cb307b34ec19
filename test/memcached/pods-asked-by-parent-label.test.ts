// A Memcached asks for its pods by its parent label: a keyed MAC of its kind, namespace and name, which a tenant of
// another namespace cannot compute. On Metacontroller v1.5.20 a related rule by labels is matched by labels alone (no
// namespace), so that a rule by the recommended name/instance labels made a pod any tenant writes with them sync this
// Memcached as often as it was written; and v1.5.20 keeps customize answers by name and generation, so a Memcached made
// again under its name is handed the answer of the one before: the value must be the same for it. A Memcached from
// before the label, or from before a key change, keeps its pods in sight through its rollout.
import t from 'tap';
import { memcached } from '../../hooks/memcached/index.js';
import type { KubeObject, ParentObject, RelatedResourceRule } from '../../lib/metacontroller.js';
import { parentLabelSettings, parentLabelValue, type ParentLabelSettings } from '../../lib/parent-label.js';
import { memcachedSync as sync } from '../fixtures/hooks.js';
import { asObserved, deploymentPod, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';
import { wakingRules } from '../fixtures/related-wakes.js';

const now = FIXED_NOW;
const UID = '0b6e7c52-2f0e-4c1e-9a0e-5f3f0c9d7a41';
const LABEL = 'memcached.metaops.io/parent-id';
const KEYED = parentLabelSettings({ env: { METAOPS_AUTH_TOKEN: 'a-token-of-the-hook-server-0123456789' } });
const OTHER_KEY = parentLabelSettings({ env: { METAOPS_LABEL_KEY: 'k'.repeat(48) } });
const VALUE = parentLabelValue(KEYED.labelKey, 'Memcached', 'team-b', 'cache');

function parent(status?: Record<string, unknown>, uid = UID, namespace = 'team-b'): ParentObject {
  return {
    apiVersion: 'cache.example.com/v1alpha1',
    kind: 'Memcached',
    metadata: { name: 'cache', namespace, uid, generation: 1 },
    spec: { size: 2 },
    ...(status ? { status } : {}),
  } as ParentObject;
}

const rulesOf = (p: ParentObject, settings: ParentLabelSettings = KEYED) =>
  (memcached.customize as any)({ controller: {}, parent: p }, { settings }).relatedResources as RelatedResourceRule[];
const byLabels = (rules: RelatedResourceRule[]) =>
  rules.filter((r) => r.resource === 'pods').map((r) => r.labelSelector);

function syncOf(
  p: ParentObject,
  children: KubeObject[] = [],
  related: KubeObject[] = [],
  settings: ParentLabelSettings = KEYED,
) {
  const req = request('memcached', p.spec as Record<string, unknown>);
  req.parent = p;
  req.children = objectMap(children, 'v1', ['Deployment.apps/v1', 'Service.v1']);
  req.related = objectMap(related, 'v1', ['Pod.v1']);
  return sync(req, now, settings);
}

const deploymentOf = (res: { children: KubeObject[] }) => res.children.find((c) => c.kind === 'Deployment')!;
const templateLabels = (d: KubeObject) =>
  (d['spec'] as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;

function pod(name: string, namespace: string, labels: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, labels } };
}

t.test('the pods are asked for by the keyed parent label, which the pod template carries', async (t) => {
  const p = parent();
  t.same(byLabels(rulesOf(p)), [{ matchLabels: { [LABEL]: VALUE } }], 'asked by the keyed value alone');
  t.equal(templateLabels(deploymentOf(syncOf(p)))[LABEL], VALUE, 'the pod template carries it');
  t.not(VALUE, parentLabelValue(undefined, 'Memcached', 'team-b', 'cache'), 'not the unkeyed value');
  t.not(
    byLabels(rulesOf(p, OTHER_KEY))[0]!.matchLabels![LABEL],
    VALUE,
    'another key, another value: no tenant computes it without the server key',
  );
});

t.test(
  'a pod of another namespace carrying every label of the pods but the value syncs the Memcached through no rule',
  async (t) => {
    const p = parent();
    const rules = rulesOf(p);
    const labels = templateLabels(deploymentOf(syncOf(p)));
    const own = pod('cache-5d4f-abcde', 'team-b', labels);
    t.not(wakingRules(rules, 'team-b', own).length, 0, 'its own pods sync it');
    const { [LABEL]: _value, ...guessable } = labels;
    const computable = [
      'cache',
      UID,
      '',
      parentLabelValue(undefined, 'Memcached', 'team-b', 'cache'),
      // What a tenant's own Memcached named `cache` in team-a carries: its own namespace's value.
      parentLabelValue(KEYED.labelKey, 'Memcached', 'team-a', 'cache'),
    ];
    for (const labelled of [guessable, ...computable.map((v) => ({ ...guessable, [LABEL]: v }))]) {
      const tenant = pod('cache-5d4f-abcde', 'team-a', labelled);
      t.same(
        wakingRules(rules, 'team-b', tenant),
        [],
        `a pod of team-a labelled ${JSON.stringify(labelled)} wakes nothing`,
      );
    }
    t.notOk(
      rules.some((r) => r.resource === 'pods' && r.labelSelector && !r.labelSelector.matchLabels?.[LABEL]),
      'no rule asks for pods by labels without the value',
    );
  },
);

t.test('a Memcached made again under its name gets the same value and sees the pods made for it', async (t) => {
  const first = parent();
  const firstAnswer = syncOf(first);
  const again = parent(undefined, 'f3e9a1c0-5b7d-4e2a-9c68-1d0f2b3a4c5e');
  // Metacontroller v1.5.20 hands the recreated Memcached (generation 1 again) the customize answer of the first one.
  t.same(rulesOf(again), rulesOf(first), 'its answer is the same as the one kept for the first');
  const wanted = deploymentOf(syncOf(again));
  t.same(templateLabels(wanted), templateLabels(deploymentOf(firstAnswer)), 'its pod template carries the same labels');
  const done = asObserved(wanted, { replicas: 2, readyReplicas: 2, updatedReplicas: 2, observedGeneration: 1 });
  done.metadata.generation = 1;
  const pods = ['a', 'b'].map((s) =>
    deploymentPod(
      { ...pod(`cache-2222-${s}`, 'team-b', templateLabels(wanted)), status: { phase: 'Running' } } as KubeObject,
      'cache',
      '2222',
    ),
  );
  for (const p of pods) t.not(wakingRules(rulesOf(first), 'team-b', p).length, 0, `${p.metadata.name} is asked for`);
  const status = syncOf(again, [done], pods).status as any;
  t.same(status.nodes, ['cache-2222-a', 'cache-2222-b'], 'its pods are listed');
});

t.test('the value depends on the namespace and the name, not on the uid', async (t) => {
  const value = (p: ParentObject) => byLabels(rulesOf(p))[0]!.matchLabels![LABEL];
  t.equal(value(parent(undefined, 'uid-1')), value(parent(undefined, 'uid-2')), 'same namespace and name: same value');
  t.not(value(parent(undefined, UID, 'team-a')), value(parent(undefined, UID, 'team-b')), 'another namespace: another');
});

t.test('a Memcached from an earlier metaops keeps its pods in sight until its Deployment rolled them', async (t) => {
  // Its status as an earlier metaops wrote it: a sync recorded, no podsLabel.
  const old = parent({ observedGeneration: 1, nodes: ['cache-1111-a', 'cache-1111-b'] });
  t.same(
    byLabels(rulesOf(old)),
    [
      { matchLabels: { [LABEL]: VALUE } },
      { matchLabels: { 'app.kubernetes.io/name': 'memcached', 'app.kubernetes.io/instance': 'cache' } },
    ],
    'asked by its value, and by name/instance while pods from before the label may exist',
  );
  // Its Deployment as the earlier metaops made it: no parent label on the template; its pods without it either.
  const wanted = deploymentOf(syncOf(parent()));
  const before = structuredClone(wanted);
  const labels = templateLabels(before);
  delete labels[LABEL];
  const oldDeployment = asObserved(before, {
    replicas: 2,
    readyReplicas: 2,
    updatedReplicas: 2,
    observedGeneration: 1,
  });
  oldDeployment.metadata.generation = 1;
  const oldPods = ['a', 'b'].map((s) =>
    deploymentPod(
      { ...pod(`cache-1111-${s}`, 'team-b', labels), status: { phase: 'Running' } } as KubeObject,
      'cache',
      '1111',
    ),
  );
  const rolling = syncOf(old, [oldDeployment], oldPods);
  t.notOk((rolling.status as any).podsLabel, 'not recorded while the template lacks the label');
  t.same((rolling.status as any).nodes, ['cache-1111-a', 'cache-1111-b'], 'the pods from before are listed');
  t.equal(templateLabels(deploymentOf(rolling))[LABEL], VALUE, 'the template takes the label (one rollout)');
  t.same(
    (deploymentOf(rolling)['spec'] as any).selector,
    (before['spec'] as any).selector,
    'the selector is never changed',
  );

  // Mid-rollout: the template labelled, the controller not done.
  const mid = asObserved(wanted, { replicas: 3, readyReplicas: 2, updatedReplicas: 1, observedGeneration: 2 });
  mid.metadata.generation = 2;
  const midStatus = syncOf(parent(rolling.status as Record<string, unknown>), [mid], oldPods).status as any;
  t.notOk(midStatus.podsLabel, 'not recorded while old pods remain');

  // Rolled: every replica from the labelled template.
  const done = asObserved(wanted, { replicas: 2, readyReplicas: 2, updatedReplicas: 2, observedGeneration: 2 });
  done.metadata.generation = 2;
  const rolled = syncOf(parent(midStatus), [done]);
  t.equal((rolled.status as any).podsLabel, VALUE, 'recorded once every pod carries it');
  const after = parent(rolled.status as Record<string, unknown>);
  t.same(byLabels(rulesOf(after)), [{ matchLabels: { [LABEL]: VALUE } }], 'then asked by its value alone');
  const again = syncOf(after, [done]);
  t.same(again.status, rolled.status, 'the status stays as it is');
});

t.test('a key changed: the pods with the value before stay asked for until the Deployment rolled them', async (t) => {
  const oldValue = parentLabelValue(OTHER_KEY.labelKey, 'Memcached', 'team-b', 'cache');
  const wantedBefore = deploymentOf(syncOf(parent(), [], [], OTHER_KEY));
  const observed = asObserved(wantedBefore, {
    replicas: 2,
    readyReplicas: 2,
    updatedReplicas: 2,
    observedGeneration: 1,
  });
  observed.metadata.generation = 1;
  const settled = parent({ observedGeneration: 1, podsLabel: oldValue });
  t.same(
    byLabels(rulesOf(settled)),
    [{ matchLabels: { [LABEL]: VALUE } }, { matchLabels: { [LABEL]: oldValue } }],
    'asked by the new value and by the one its pods carry',
  );
  const rolling = syncOf(settled, [observed]);
  t.equal(templateLabels(deploymentOf(rolling))[LABEL], VALUE, 'the template takes the new value (one rollout)');
  t.equal((rolling.status as any).podsLabel, oldValue, 'the value of its pods is kept until they are replaced');
  const done = asObserved(deploymentOf(rolling), {
    replicas: 2,
    readyReplicas: 2,
    updatedReplicas: 2,
    observedGeneration: 2,
  });
  done.metadata.generation = 2;
  const rolled = syncOf(parent(rolling.status as Record<string, unknown>), [done]);
  t.equal((rolled.status as any).podsLabel, VALUE, 'then the new value');
  const recordedByHand = parent({ observedGeneration: 1, podsLabel: { toString: 1 } });
  t.same(
    byLabels(rulesOf(recordedByHand)),
    [
      { matchLabels: { [LABEL]: VALUE } },
      { matchLabels: { 'app.kubernetes.io/name': 'memcached', 'app.kubernetes.io/instance': 'cache' } },
    ],
    'a status value of another shape is no value (asked as a Memcached from before the label)',
  );
});

t.test('a new Memcached is asked for by its value alone and records it at its first sync', async (t) => {
  const p = parent();
  t.same(byLabels(rulesOf(p)), [{ matchLabels: { [LABEL]: VALUE } }]);
  t.equal((syncOf(p).status as any).podsLabel, VALUE);
});
