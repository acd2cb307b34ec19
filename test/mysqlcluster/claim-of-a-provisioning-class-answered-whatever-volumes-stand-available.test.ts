// What metaops does with a claim of a class that provisions volumes (or of the default class) while a PersistentVolume
// of that class stands Available: it answers the claim as the spec asks, and never looks at volumes. Kubernetes' PV
// binder matches a new claim against the Available volumes of its class before it provisions (and the scheduler's
// volume binder does the same for WaitForFirstConsumer classes), so a volume an administrator made Available again by
// clearing its claimRef (tenant B's retained data) is bound to the next claim of the class that fits: a claim metaops
// makes for tenant A's MySQLCluster (A may not create claims itself), like any claim of a StatefulSet A may create.
//
// No defence in the hook holds without breaking provisioning (docs/operating.md, Tenants, "A volume handed back"):
// customize cannot ask for a class's volumes (PersistentVolumes carry no label of their class; asking for every
// volume of the cluster puts them all into every sync and wakes every cluster at each change of any), a claim
// `selector` stops provisioning, and a list of allowed classes does not separate two tenants that share one. The rule is
// the administrator's: a handed-back volume is pre-bound with a claimRef naming the claim it is for, never left
// Available; classes a tenant must not use get a ResourceQuota of 0 in its namespace. This test pins the answer, so
// that a change to it is a decision (what the docs say changes with it).
import t from 'tap';
import { mysqlSync } from '../fixtures/hooks.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';
import { fastClass } from '../fixtures/storage-classes.js';

/** Tenant B's retained data volume, made Available again by an admin (claimRef cleared). */
const bVolume = {
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'pvc-0b1c2d3e-b-data', uid: 'pv-b-data' },
  spec: {
    capacity: { storage: '10Gi' },
    accessModes: ['ReadWriteOnce'],
    persistentVolumeReclaimPolicy: 'Retain',
    storageClassName: 'fast',
    csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-0bbbbbbbbbbbbbbbb' },
  },
  status: { phase: 'Available' },
};

const templatesOf = (res: { children: unknown[] }) =>
  ((res.children.find((c: any) => c.kind === 'StatefulSet') as any)?.spec?.volumeClaimTemplates ?? []) as any[];

t.test('a named class that provisions: the claim template asks for it, an Available volume of it or not', async (t) => {
  const spec = { size: 1, version: '8.0', storage: { size: '1Gi', storageClassName: 'fast' } };
  const without = request('mysqlcluster', spec) as any;
  without.related = { 'StorageClass.storage.k8s.io/v1': { fast: fastClass } };
  const withVolume = request('mysqlcluster', spec) as any;
  withVolume.related = {
    'StorageClass.storage.k8s.io/v1': { fast: fastClass },
    'PersistentVolume.v1': { [bVolume.metadata.name]: bVolume },
  };
  const a = mysqlSync(without, FIXED_NOW);
  const b = mysqlSync(withVolume, FIXED_NOW);
  t.same(
    templatesOf(b).map((c) => c.spec.storageClassName),
    ['fast'],
    'the claim template names class fast',
  );
  t.same(templatesOf(b), templatesOf(a), 'the volumes related change nothing of the answer');
  t.same(b.status, a.status, 'nor of the status');
});

t.test('no class named: the claim template names none (the default class is the API server`s choice)', async (t) => {
  const defaultFast = {
    ...fastClass,
    metadata: { ...fastClass.metadata, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
  };
  const req = request('mysqlcluster', { size: 1, version: '8.0', storage: { size: '1Gi' } }) as any;
  req.related = {
    'StorageClass.storage.k8s.io/v1': { fast: defaultFast },
    'PersistentVolume.v1': { [bVolume.metadata.name]: bVolume },
  };
  const templates = templatesOf(mysqlSync(req, FIXED_NOW));
  t.equal(templates.length, 1, 'one claim template');
  t.notOk('storageClassName' in templates[0].spec, 'with no class: the API server gives it the default class');
});
