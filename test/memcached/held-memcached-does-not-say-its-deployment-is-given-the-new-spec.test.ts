// A running Memcached held for a child name another owner holds (here its NetworkPolicy `<name>-memcached`, an admin's,
// met on upgrading to a metaops that answers the policy) changes nothing: its Deployment is answered as observed. Its
// status must then not say the change is under way: scaled from 2 to 3 while held, Progressing must not be
// True/Updating "Deployment cache is given the new spec" (nothing gives it), nor Available count against a size
// nothing is scaling to, with no end: it stays so for as long as the name is held.
import t from 'tap';
import { memcached } from '../../hooks/memcached/index.js';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { runPure } from '../../lib/operator.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const settings = memcached.settings!({ env: {} } as any);
const sync = (req: CompositeSyncRequest) =>
  runPure(memcached, 'sync', req, { now: FIXED_NOW, settings }) as CompositeSyncResponse;
const named = (spec: Record<string, unknown>) => {
  const req = request('memcached', spec);
  req.parent.metadata = { ...req.parent.metadata, name: 'cache', namespace: 'ns', uid: 'uid-cache' };
  return req;
};
const condition = (res: CompositeSyncResponse, type: string) =>
  ((res.status as any).conditions as any[]).find((c) => c.type === type);

t.test('a held Memcached scaled up does not say its Deployment is given the new spec', async (t) => {
  const before = sync(named({ size: 2 }));
  const observed = before.children
    .filter((c) => c.kind !== 'NetworkPolicy')
    .map((c) =>
      asObserved(c, c.kind === 'Deployment' ? { replicas: 2, readyReplicas: 2, updatedReplicas: 2 } : undefined),
    );
  const admins = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'cache-memcached', namespace: 'ns', uid: 'uid-admins' },
    spec: { podSelector: {}, policyTypes: ['Egress'], egress: [{}] },
  } as KubeObject;
  const req = named({ size: 3 });
  req.children = objectMap(observed);
  req.related = objectMap([admins]);
  req.parent.status = before.status;
  const res = sync(req);
  t.match(condition(res, 'Ready'), { status: 'False', reason: 'NetworkPolicyNameTaken' }, 'held');
  const deploy = res.children.find((c) => c.kind === 'Deployment') as any;
  t.equal(deploy.spec.replicas, 2, 'the Deployment is kept as observed (2 replicas)');
  t.notMatch(
    condition(res, 'Progressing'),
    { status: 'True', message: /is given the new spec/ },
    `Progressing: ${JSON.stringify(condition(res, 'Progressing'))}`,
  );
});
