// A member claim (spec.pod.persistentVolumeClaimSpec) is created by Metacontroller with its own rights: one that names
// a volume (volumeName), selects volumes (selector) or fills from another namespace (dataSourceRef.namespace) could
// bind a PersistentVolume made for another tenant. Each is InvalidSpec and no claim carries it (issue 29).
import t from 'tap';
import { etcdSync } from '../fixtures/hooks.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { etcdClaimRequest, quietEtcd } from '../fixtures/etcd.js';

const cases: Array<[string, Record<string, unknown>]> = [
  ['volumeName: a PersistentVolume of tenant B, by name', { volumeName: 'pv-of-tenant-b' }],
  ['selector: the PersistentVolumes labelled for tenant B', { selector: { matchLabels: { tenant: 'b' } } }],
  [
    'dataSourceRef in namespace b',
    {
      dataSourceRef: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'b-data', namespace: 'b' },
    },
  ],
];

for (const [what, claim] of cases) {
  t.test(`a member claim does not carry ${what}`, async (t) => {
    const res = await etcdSync(etcdClaimRequest(claim), { etcd: quietEtcd as never, now: FIXED_NOW });
    const claims = res.children.filter((c) => c.kind === 'PersistentVolumeClaim') as any[];
    for (const key of Object.keys(claim))
      t.notOk(
        claims.some((c) => key in (c.spec ?? {})),
        `no PersistentVolumeClaim of namespace a carries ${key} ${JSON.stringify(claim[key])}`,
      );
    const conditions = (res.status as { conditions?: Array<Record<string, unknown>> }).conditions ?? [];
    t.match(
      conditions.find((c) => c['reason'] === 'InvalidSpec'),
      { status: 'False', message: new RegExp(`persistentVolumeClaimSpec\\.${Object.keys(claim)[0]}.* is not allowed`) },
    );
  });
}

t.test('a claim with only a storage class and a size is taken as it is', async (t) => {
  const request = etcdClaimRequest({ storageClassName: 'fast' });
  // The class, as Metacontroller sends it (customize asks for it): one that provisions volumes.
  request.related = {
    'StorageClass.storage.k8s.io/v1': {
      fast: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'x.csi' },
    },
  };
  const res = await etcdSync(request, {
    etcd: quietEtcd as never,
    now: FIXED_NOW,
  });
  const claims = res.children.filter((c) => c.kind === 'PersistentVolumeClaim') as any[];
  t.equal(claims.length, 1);
  t.match(claims[0].spec, { storageClassName: 'fast', resources: { requests: { storage: '1Gi' } } });
});
