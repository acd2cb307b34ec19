// A claim with `storageClassName: ""` is not provisioned: it binds any pre-made PersistentVolume without a class that
// fits, whoever made it (another tenant's Released or Available volume, with its data). A MySQLCluster's author is a
// tenant: such a class is InvalidSpec naming the field, and no StatefulSet asks for it, unless the server allows
// static binding (METAOPS_ALLOW_STATIC_VOLUMES=true, set by a cluster admin who manages the pre-made volumes).
import t from 'tap';
import { runPure } from '../../lib/operator.js';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';

const spec = { size: 1, version: '8.0', storage: { size: '1Gi', storageClassName: '' } };

t.test('storage.storageClassName "" is refused by default: no claim binds a pre-made volume', async (t) => {
  const res = mysqlSync(request('mysqlcluster', spec), FIXED_NOW);
  const ready = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
  t.match(ready, { status: 'False', reason: 'InvalidSpec', message: /spec\.storage\.storageClassName ""/ });
  t.match(ready.message, /METAOPS_ALLOW_STATIC_VOLUMES/, 'the message says how an administrator allows it');
  t.notOk(
    res.children.some((c) => c.kind === 'StatefulSet'),
    'no StatefulSet (and so no claim template) is made',
  );
});

t.test('a running cluster whose spec turns to "" is held as it is', async (t) => {
  const before = mysqlSync(request('mysqlcluster', { ...spec, storage: { size: '1Gi' } }), FIXED_NOW);
  const sts = before.children.find((c) => c.kind === 'StatefulSet') as any;
  t.ok(sts, 'the cluster runs');
  const req = request('mysqlcluster', spec) as any;
  req.children = { ...req.children, 'StatefulSet.apps/v1': { [sts.metadata.name]: sts } };
  const res = mysqlSync(req, FIXED_NOW);
  const kept = res.children.find((c) => c.kind === 'StatefulSet') as any;
  t.ok(kept, 'the StatefulSet is kept');
  t.notOk('storageClassName' in kept.spec.volumeClaimTemplates[0].spec, 'its claims are not changed to ""');
});

t.test('with static binding allowed by the server, "" is copied into the claims', async (t) => {
  const res = runPure(mysqlcluster, 'sync', request('mysqlcluster', spec), {
    now: FIXED_NOW,
    settings: { allowStaticVolumes: true },
  });
  const ready = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
  t.not(ready.reason, 'InvalidSpec', `accepted (${ready.reason}: ${ready.message})`);
  const sts = res.children.find((c) => c.kind === 'StatefulSet') as any;
  t.equal(sts?.spec.volumeClaimTemplates?.[0]?.spec?.storageClassName, '');
});

const fast = {
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name: 'fast' },
  provisioner: 'x.csi',
};

t.test('a named storage class that provisions volumes is taken as it is', async (t) => {
  const req = request('mysqlcluster', { ...spec, storage: { size: '1Gi', storageClassName: 'fast' } }) as any;
  // The class, as Metacontroller sends it (customize asks for it by name).
  req.related = { ...(req.related ?? {}), 'StorageClass.storage.k8s.io/v1': { fast } };
  const res = mysqlSync(req, FIXED_NOW);
  const sts = res.children.find((c) => c.kind === 'StatefulSet') as any;
  t.equal(sts?.spec.volumeClaimTemplates?.[0]?.spec?.storageClassName, 'fast');
});

t.test(
  'a named storage class not found (not created yet, or not sent): no StatefulSet claims it, the cluster waits',
  async (t) => {
    const res = mysqlSync(
      request('mysqlcluster', { ...spec, storage: { size: '1Gi', storageClassName: 'fast' } }),
      FIXED_NOW,
    );
    t.notOk(
      res.children.some((c) => c.kind === 'StatefulSet'),
      'no StatefulSet',
    );
    const ready = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
    t.match(ready, {
      status: 'False',
      reason: 'StorageClassNotSeen',
      message: /spec\.storage\.storageClassName "fast": no StorageClass of that name was seen/,
    });
  },
);

t.test('customize asks for the named class by name', async (t) => {
  const req = request('mysqlcluster', { ...spec, storage: { size: '1Gi', storageClassName: 'fast' } }) as any;
  const rules = mysqlcluster.customize!({ controller: {}, parent: req.parent }, {} as never).relatedResources;
  t.same(
    rules.filter((r) => r.resource === 'storageclasses'),
    [{ apiVersion: 'storage.k8s.io/v1', resource: 'storageclasses', names: ['fast'] }],
  );
});
