// A member claim naming a StorageClass the request does not carry: the class does not exist (yet), or Metacontroller
// did not send it (its customize answer cached from before the hook asked for it: up to 20 minutes on v4.17.2). A claim
// of a class with no StorageClass object binds any PersistentVolume that names the class, whoever made it; no new
// claim is made on doubt, and the cluster waits with ClaimsHeld (StorageClassNotSeen), not InvalidSpec: what exists
// is kept and synced (test/etcdcluster/claim-class-not-seen-keeps-members.test.ts). A class that provisions is taken;
// with static binding allowed (METAOPS_ALLOW_STATIC_VOLUMES) the class is not looked at. Customize asks for the named
// class, by name, from the spec alone.
import t from 'tap';
import { runHook } from '../../lib/operator.js';
import { etcdcluster } from '../../hooks/etcdcluster/index.js';
import { etcdSync } from '../fixtures/hooks.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { etcdClaimRequest, quietEtcd } from '../fixtures/etcd.js';
import { fastClass as fast } from '../fixtures/storage-classes.js';

const claimsOf = (res: { children: unknown[] }) =>
  res.children.filter((c: any) => c.kind === 'PersistentVolumeClaim') as any[];
const reasons = (res: { status?: unknown }) =>
  ((res.status as { conditions?: Array<Record<string, unknown>> }).conditions ?? []).map((c) => c['reason']);

t.test('a class not found: no claim is made, the cluster waits with the field and the class named', async (t) => {
  const res = await etcdSync(etcdClaimRequest({ storageClassName: 'fast' }), {
    etcd: quietEtcd as never,
    now: FIXED_NOW,
  });
  t.same(claimsOf(res), [], 'no claim');
  t.notOk(reasons(res).includes('InvalidSpec'), 'not an invalid spec');
  const conditions = (res.status as { conditions?: Array<Record<string, unknown>> }).conditions ?? [];
  t.match(
    conditions.find((c) => c['type'] === 'ClaimsHeld'),
    {
      status: 'True',
      reason: 'StorageClassNotSeen',
      message: /spec\.pod\.persistentVolumeClaimSpec\.storageClassName "fast": no StorageClass of that name was seen/,
    },
  );
});

t.test('a class that provisions volumes is taken', async (t) => {
  const request = etcdClaimRequest({ storageClassName: 'fast' });
  request.related = { 'StorageClass.storage.k8s.io/v1': { fast } };
  const res = await etcdSync(request, { etcd: quietEtcd as never, now: FIXED_NOW });
  t.notOk(reasons(res).includes('InvalidSpec'));
  t.same(
    claimsOf(res).map((c) => c.spec.storageClassName),
    ['fast'],
  );
});

t.test('with static binding allowed, a class not found is taken as named', async (t) => {
  const res = await runHook(etcdcluster, 'sync', etcdClaimRequest({ storageClassName: 'local' }), {
    now: FIXED_NOW,
    clients: { etcd: () => quietEtcd as never },
    settings: { allowStaticVolumes: true },
  });
  t.notOk(reasons(res).includes('InvalidSpec'));
  t.same(
    claimsOf(res).map((c) => c.spec.storageClassName),
    ['local'],
  );
});

t.test('customize asks for the named class by name (cluster-scoped), and for none without one', async (t) => {
  const rulesOf = (claim: Record<string, unknown>) =>
    etcdcluster.customize!({ controller: {}, parent: etcdClaimRequest(claim).parent } as any, {} as never)
      .relatedResources;
  t.match(
    rulesOf({ storageClassName: 'fast' }).filter((r) => r.resource === 'storageclasses'),
    [{ apiVersion: 'storage.k8s.io/v1', resource: 'storageclasses', names: ['fast'] }],
  );
  t.same(
    rulesOf({}).filter((r) => r.resource === 'storageclasses'),
    [],
  );
  t.same(
    rulesOf({ storageClassName: '' }).filter((r) => r.resource === 'storageclasses'),
    [],
  );
});
