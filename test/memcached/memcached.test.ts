import t from 'tap';
import { parentLabelValue } from '../../lib/parent-label.js';
import { customize } from '../../hooks/memcached/sync.js';
import { memcachedSync as sync } from '../fixtures/hooks.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { asObserved, deploymentPod, example, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const now = FIXED_NOW;

function child(res: { children: KubeObject[] }, kind: string): KubeObject & { spec: any } {
  const found = res.children.find((c) => c.kind === kind);
  if (!found) throw new Error(`no ${kind} in answer`);
  return found as KubeObject & { spec: any };
}

t.test('a new Memcached gets a Deployment of its size and a Service', async (t) => {
  const res = sync(example('memcached-sync'), now);
  t.equal(res.children.length, 3, "and its pods' NetworkPolicy (pods-network-policy.test.ts)");
  const deploy = child(res, 'Deployment');
  t.equal(deploy.apiVersion, 'apps/v1');
  t.equal(deploy.metadata.name, 'memcached-sample');
  t.equal(deploy.spec.replicas, 3);
  t.equal(deploy.spec.template.spec.containers[0].image, 'memcached:1.6-alpine');
  t.same(deploy.spec.selector.matchLabels, {
    'app.kubernetes.io/name': 'memcached',
    'app.kubernetes.io/instance': 'memcached-sample',
  });
  t.match(deploy.spec.template.metadata.labels, deploy.spec.selector.matchLabels, 'template matches selector');
  const svc = child(res, 'Service');
  t.equal(svc.spec.ports[0].port, 11211);
  t.same(
    svc.spec.selector,
    { ...deploy.spec.selector.matchLabels, 'memcached.metaops.io/instance': 'memcached-sample' },
    "a new Memcached's Service selects on the label only its own pods carry",
  );
  t.match(deploy.spec.template.metadata.labels, svc.spec.selector, 'the Service selects the template');
  t.equal((res.status as any).ready, '0/3');
  t.equal((res.status as any).observedGeneration, 1);
  const conditions = (res.status as any).conditions as any[];
  t.match(
    conditions.find((c) => c.type === 'Available'),
    { status: 'False' },
  );
  t.match(
    conditions.find((c) => c.type === 'Progressing'),
    { status: 'True', reason: 'Creating' },
  );
});

t.test('image and port can be overridden', async (t) => {
  const res = sync(request('memcached', { size: 1, image: 'memcached:1.6.38', port: 11311 }), now);
  const deploy = child(res, 'Deployment');
  t.equal(deploy.spec.template.spec.containers[0].image, 'memcached:1.6.38');
  t.equal(deploy.spec.template.spec.containers[0].ports[0].containerPort, 11311);
  t.equal(child(res, 'Service').spec.ports[0].port, 11311);
});

t.test('status reports the observed pods and Deployment', async (t) => {
  const first = sync(request('memcached', { size: 3 }), now);
  const deploy = asObserved(child(first, 'Deployment'), { replicas: 3, readyReplicas: 3, updatedReplicas: 3 });
  const pods = ['b', 'a', 'c'].map((s) =>
    deploymentPod(
      asObserved(
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: `memcached-sample-x-${s}`, namespace: 'default' } },
        readyPod,
      ),
      'memcached-sample',
    ),
  );
  for (const keying of ['v1', 'v2'] as const) {
    const req = request(
      'memcached',
      { size: 3 },
      {
        children: objectMap([deploy, asObserved(child(first, 'Service'))], keying),
        related: objectMap(pods, keying),
      },
    );
    const res = sync(req, now);
    const status = res.status as any;
    t.same(
      status.nodes,
      ['memcached-sample-x-a', 'memcached-sample-x-b', 'memcached-sample-x-c'],
      `${keying}: nodes sorted`,
    );
    t.equal(status.readyReplicas, 3);
    t.equal(status.ready, '3/3');
    t.match(
      status.conditions.find((c: any) => c.type === 'Available'),
      { status: 'True' },
    );
    t.match(
      status.conditions.find((c: any) => c.type === 'Progressing'),
      { status: 'False', reason: 'Complete' },
    );
  }
});

t.test('a pod being deleted is not listed', async (t) => {
  const pods = [
    asObserved({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1', namespace: 'default' } }, readyPod),
    asObserved({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p2', namespace: 'default', deletionTimestamp: '2026-01-01T00:00:00Z' },
    }),
  ].map((p) => deploymentPod(p, 'memcached-sample'));
  // The pods of its own Deployment (observed as its child): another owner's Deployment of its name has none of its.
  const deploy = asObserved(child(sync(request('memcached', { size: 1 }), now), 'Deployment'), { replicas: 1 });
  const res = sync(request('memcached', { size: 1 }, { children: objectMap([deploy]), related: objectMap(pods) }), now);
  t.same((res.status as any).nodes, ['p1']);
});

t.test('an invalid spec keeps every observed child and says why', async (t) => {
  const first = sync(request('memcached', { size: 3 }), now);
  const observed = first.children.map((c) => asObserved(c, { replicas: 3 }));
  for (const [spec, expect] of [
    [{ size: -1 }, /spec\.size is -1/],
    [{ size: 'three' }, /spec\.size is "three"/],
    [{}, /spec\.size is required/],
    [{ size: 2, port: 70000 }, /spec\.port/],
  ] as const) {
    const req = request('memcached', spec as any, { children: objectMap(observed) });
    req.parent.status = { nodes: ['kept'], conditions: [] };
    const res = sync(req, now);
    t.equal(res.children.length, 3, `${JSON.stringify(spec)}: the three children kept`);
    const deploy = child(res, 'Deployment');
    t.equal(deploy.spec.replicas, 3, 'the Deployment is returned unchanged');
    t.notOk((deploy as any).status, 'without its status');
    t.notOk(deploy.metadata.uid, 'and without server fields');
    const ready = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
    t.match(ready, { status: 'False', reason: 'InvalidSpec', message: expect });
    t.same((res.status as any).nodes, ['kept'], 'the rest of the status is kept');
  }
});

t.test('a name that cannot name a Service is refused, not half-applied', async (t) => {
  const req = request('memcached', { size: 1 });
  req.parent.metadata.name = 'a'.repeat(64);
  const res = sync(req, now);
  t.same(res.children, []);
  t.match((res.status as any).conditions[0], { reason: 'InvalidSpec', message: /at most 63/ });
});

t.test('customize asks for the pods of this Memcached only, by its parent label', async (t) => {
  const res = customize(example('memcached-customize'));
  t.same(res, {
    relatedResources: [
      {
        apiVersion: 'v1',
        resource: 'pods',
        labelSelector: {
          matchLabels: {
            'memcached.metaops.io/parent-id': parentLabelValue(undefined, 'Memcached', 'default', 'memcached-sample'),
          },
        },
      },
      // And the NetworkPolicies of its namespace: where they govern its pods' egress, it answers none.
      { apiVersion: 'networking.k8s.io/v1', resource: 'networkpolicies', namespace: 'default' },
    ],
  });
});

t.test('lastTransitionTime moves only when a condition changes', async (t) => {
  const first = sync(request('memcached', { size: 1 }), now);
  const later = new Date(now.getTime() + 60_000);
  const req = request('memcached', { size: 1 });
  req.parent.status = first.status;
  const same = sync(req, later);
  t.same(same.status, first.status, 'same observed state, same status');
  const deploy = asObserved(child(first, 'Deployment'), { replicas: 1, readyReplicas: 1, updatedReplicas: 1 });
  req.children = objectMap([deploy]);
  const changed = sync(req, later);
  const available = (changed.status as any).conditions.find((c: any) => c.type === 'Available');
  t.equal(available.lastTransitionTime, later.toISOString().replace(/\.\d{3}Z$/, 'Z'));
});

t.test(
  "pods the API server refuses (Pod Security admission) are said in Ready, from the Deployment's ReplicaFailure",
  async (t) => {
    const refusal =
      'pods "memcached-sample-5d8f9c-" is forbidden: violates PodSecurity "restricted:latest": runAsNonRoot != true';
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'memcached-sample', namespace: 'default' },
      spec: { replicas: 3 },
      status: {
        replicas: 0,
        conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: refusal }],
      },
    };
    const req = request('memcached', { size: 3 }, { children: objectMap([deployment]) });
    const ready = (sync(req, FIXED_NOW).status as any).conditions.find((c: any) => c.type === 'Ready');
    t.match(ready, { status: 'False', reason: 'FailedCreate' });
    t.match(ready.message, /violates PodSecurity "restricted:latest"/);
    // The same observed state twice: the same status (quiet at rest).
    t.same(sync(req, FIXED_NOW).status, sync(req, FIXED_NOW).status);
    // Once the pods run, the failure no longer matters.
    const healed = {
      ...deployment,
      status: { replicas: 3, readyReplicas: 3, conditions: [{ type: 'ReplicaFailure', status: 'False' }] },
    };
    t.match(
      (sync(request('memcached', { size: 3 }, { children: objectMap([healed]) }), FIXED_NOW).status as any)
        .conditions[0],
      { reason: 'Available' },
    );
    const huge = {
      ...deployment,
      status: {
        conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'Bad reason!', message: 'x'.repeat(5000) }],
      },
    };
    const capped = (sync(request('memcached', { size: 3 }, { children: objectMap([huge]) }), FIXED_NOW).status as any)
      .conditions[0];
    t.equal(capped.reason, 'FailedCreate', 'a reason that is not a CamelCase word is not copied');
    t.ok(capped.message.length <= 300);
  },
);

t.test('the children whole: what memcached runs with, and the Service in front of it', async (t) => {
  const res = sync(request('memcached', { size: 2, port: 11311 }), now);
  const labels = {
    'app.kubernetes.io/name': 'memcached',
    'app.kubernetes.io/instance': 'memcached-sample',
    'app.kubernetes.io/component': 'cache',
    'app.kubernetes.io/managed-by': 'metaops',
  };
  const deploy = child(res, 'Deployment');
  t.same(deploy.metadata, { name: 'memcached-sample', namespace: 'default', labels });
  t.same(deploy.spec.template.metadata, {
    labels: {
      ...labels,
      'memcached.metaops.io/instance': 'memcached-sample',
      'memcached.metaops.io/parent-id': parentLabelValue(undefined, 'Memcached', 'default', 'memcached-sample'),
    },
  });
  const container = deploy.spec.template.spec.containers[0];
  t.equal(container.name, 'memcached');
  t.same(container.command, ['memcached', '-m', '64', '-o', 'modern', '-v', '-p', '11311']);
  t.same(container.ports, [{ name: 'memcached', containerPort: 11311, protocol: 'TCP' }]);
  const svc = child(res, 'Service');
  t.same(svc.metadata, { name: 'memcached-sample-memcached', namespace: 'default', labels });
  t.same(svc.spec.ports, [{ name: 'memcached', port: 11311, targetPort: 'memcached', protocol: 'TCP' }]);
});

t.test('a ReplicaFailure left on a Deployment whose pods are all ready does not hold Ready false', async (t) => {
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'memcached-sample', namespace: 'default' },
    spec: { replicas: 2 },
    status: {
      replicas: 2,
      readyReplicas: 2,
      updatedReplicas: 2,
      conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'an old refusal' }],
    },
  };
  const res = sync(request('memcached', { size: 2 }, { children: objectMap([deployment]) }), now);
  const ready = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
  t.match(ready, { status: 'True' });
  t.notMatch(ready.message ?? '', /old refusal/);
  // One pod short: the refusal is what Ready says.
  deployment.status.readyReplicas = 1;
  const short = sync(request('memcached', { size: 2 }, { children: objectMap([deployment]) }), now);
  t.match(
    (short.status as any).conditions.find((c: any) => c.type === 'Ready'),
    { status: 'False', reason: 'FailedCreate', message: 'pods cannot be created: an old refusal' },
  );
});

t.test('customize without a parent (never sent for a CompositeController) answers, asking for no pod', async (t) => {
  const res = customize({ controller: {} } as never);
  t.same(res.relatedResources, []);
});
