// PodSet and Memcached pods run the tenant's image; their NetworkPolicy (`<name>-podset`, `<name>-memcached`,
// lib/network-policy.ts) keeps them from the instance metadata service. A parent whose pods are kept running while its
// answer changes nothing (a spec refused: InvalidSpec; a Memcached held for a Service name another owner holds) still
// runs the tenant's image in them. As the EtcdCluster's members get theirs in both cases (hooks/etcdcluster/network.ts
// withMemberPolicy, 388301c), these pods must get their policy whenever its own name is free: a running parent of an
// earlier metaops (no policy yet) whose spec the upgraded metaops refuses must not keep its pods unconstrained for as
// long as the spec stays refused.
import t from 'tap';
import { memcached } from '../../hooks/memcached/index.js';
import { podset } from '../../hooks/podset/index.js';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { runPure } from '../../lib/operator.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const run = (hook: any, req: CompositeSyncRequest) =>
  runPure(hook, 'sync', req, { now: FIXED_NOW, settings: hook.settings({ env: {} }) }) as CompositeSyncResponse;
const named = (kind: 'podset' | 'memcached', name: string, spec: Record<string, unknown>) => {
  const req = request(kind, spec);
  req.parent.metadata = { ...req.parent.metadata, name, namespace: 'ns', uid: `uid-${name}` };
  return req;
};
const kinds = (res: CompositeSyncResponse) => res.children.map((c) => `${c.kind}/${c.metadata.name}`).sort();
const ready = (res: CompositeSyncResponse) => ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');

t.test('a running PodSet of an earlier metaops whose spec is refused gets its policy', async (t) => {
  const before = run(podset, named('podset', 'web', { size: 2 }));
  const pods = before.children.filter((c) => c.kind === 'Pod').map((p) => asObserved(p, readyPod));
  const req = named('podset', 'web', { size: -1 });
  req.children = objectMap(pods);
  const res = run(podset, req);
  t.equal(ready(res).reason, 'InvalidSpec');
  t.ok(kinds(res).includes('NetworkPolicy/web-podset'), `its running pods' policy is answered: ${kinds(res)}`);
});

t.test('a running Memcached of an earlier metaops whose spec is refused gets its policy', async (t) => {
  const before = run(memcached, named('memcached', 'cache', { size: 2 }));
  const observed = before.children
    .filter((c) => c.kind !== 'NetworkPolicy')
    .map((c) => asObserved(c, c.kind === 'Deployment' ? { replicas: 2, readyReplicas: 2 } : undefined));
  const req = named('memcached', 'cache', { size: 2, image: 'memcached:1.6 ' });
  req.children = objectMap(observed);
  const res = run(memcached, req);
  t.equal(ready(res).reason, 'InvalidSpec');
  t.ok(kinds(res).includes('NetworkPolicy/cache-memcached'), `its running pods' policy is answered: ${kinds(res)}`);
});

t.test('a running Memcached held for its Service name gets its policy', async (t) => {
  const before = run(memcached, named('memcached', 'cache', { size: 2 }));
  const deployment = asObserved(
    before.children.find((c) => c.kind === 'Deployment')!,
    {
      replicas: 2,
      readyReplicas: 2,
    },
  );
  // Its Service was deleted, and someone made a Service of that name meanwhile.
  const theirs = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'cache-memcached', namespace: 'ns', uid: 'uid-theirs' },
    spec: { ports: [{ port: 11211 }] },
  } as KubeObject;
  const req = named('memcached', 'cache', { size: 2 });
  req.children = objectMap([deployment]);
  req.related = objectMap([theirs]);
  req.parent.status = before.status;
  const res = run(memcached, req);
  t.equal(ready(res).reason, 'ServiceNameTaken');
  t.ok(kinds(res).includes('Deployment/cache'), 'its Deployment is kept: its pods run');
  t.ok(kinds(res).includes('NetworkPolicy/cache-memcached'), `its running pods' policy is answered: ${kinds(res)}`);
});
