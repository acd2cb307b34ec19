// An EtcdCluster's spec.pod.resources is copied into every member pod. The API server refuses a pod whose container
// requests more than its limit, or names a resource that is neither a standard container resource nor a
// domain-qualified one (pkg/apis/core/validation ValidateResourceRequirements): such a spec is InvalidSpec naming the
// field, before any member is made or added, as other values the pods cannot carry are.
import t from 'tap';
import type { CompositeSyncResponse } from '../../lib/index.js';
import { etcdValueProblem } from '../../hooks/etcdcluster/index.js';
import { etcdParent } from '../fixtures/etcd.js';
import { etcdSync } from '../fixtures/hooks.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const ready = (res: CompositeSyncResponse) => (res.status as any).conditions.find((c: any) => c.type === 'Ready');

t.test('a request above its limit is InvalidSpec naming spec.pod.resources', async (t) => {
  for (const resources of [
    { requests: { cpu: '2' }, limits: { cpu: '1' } },
    { requests: { memory: '2Gi' }, limits: { memory: '1Gi' } },
    { requests: { memory: '1025Mi' }, limits: { memory: '1Gi' } },
  ])
    t.match(
      etcdValueProblem(etcdParent({ size: 1, pod: { resources } })),
      /spec\.pod\.resources/,
      JSON.stringify(resources),
    );
  t.equal(
    etcdValueProblem(etcdParent({ size: 1, pod: { resources: { requests: { cpu: '1' }, limits: { cpu: '1000m' } } } })),
    undefined,
    'equal is fine',
  );
});

t.test('a resource name the API server does not know for containers is InvalidSpec', async (t) => {
  for (const resources of [{ limits: { gpu: '1' } }, { requests: { Memory: '1Gi' } }, { requests: { 'a b': '1' } }])
    t.match(
      etcdValueProblem(etcdParent({ size: 1, pod: { resources } })),
      /spec\.pod\.resources/,
      JSON.stringify(resources),
    );
  t.equal(
    etcdValueProblem(etcdParent({ size: 1, pod: { resources: { limits: { 'nvidia.com/gpu': '1' } } } })),
    undefined,
  );
});

t.test('no member pod is answered for resources the API server refuses', async (t) => {
  const res = await etcdSync(
    {
      controller: {},
      parent: etcdParent({ size: 3, pod: { resources: { requests: { memory: '2Gi' }, limits: { memory: '1Gi' } } } }),
      children: {},
    },
    {
      etcd: { memberList: async () => ({ members: [] }), health: async () => ({ healthy: false }) } as never,
      now: FIXED_NOW,
    },
  );
  t.match(ready(res), { status: 'False', reason: 'InvalidSpec', message: /spec\.pod\.resources/ });
  t.same(res.children, [], 'no member pod the API server would refuse');
});
