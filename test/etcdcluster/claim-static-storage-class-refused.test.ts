// A member claim (spec.pod.persistentVolumeClaimSpec) is created by Metacontroller with its own rights. The hook refuses
// `storageClassName: ""` unless the server allows static binding (METAOPS_ALLOW_STATIC_VOLUMES; docs/operating.md: such a
// claim "binds any pre-made PersistentVolume ... that fits, whoever made it, so another tenant's Released or Available
// volume and its data"). A named class whose volumes are pre-made is the same thing under a name: a StorageClass with
// `provisioner: kubernetes.io/no-provisioner` (local volumes, the documented way to offer them) provisions nothing, and
// a claim of it binds any Available PersistentVolume of that class that fits, whoever it was made for (another tenant's
// local disk with what it holds, or the volume another tenant's claim is waiting for). The refusal looks only at the
// empty string, so the class's name walks past it.
import t from 'tap';
import { etcdSync } from '../fixtures/hooks.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { etcdClaimRequest, quietEtcd } from '../fixtures/etcd.js';
import { localStorageClass } from '../fixtures/storage-classes.js';

t.test(
  'a member claim of a class whose volumes are pre-made (no provisioner) is refused unless static binding is allowed',
  async (t) => {
    const request = etcdClaimRequest({ storageClassName: 'local-storage' });
    // Given the class, whether or not the hook asked for it (the API server has it; the hook may read it).
    request.related = { 'StorageClass.storage.k8s.io/v1': { 'local-storage': localStorageClass } };
    const res = await etcdSync(request, { etcd: quietEtcd as never, now: FIXED_NOW });
    const claims = res.children.filter((c) => c.kind === 'PersistentVolumeClaim') as any[];
    t.same(
      claims.filter((c) => c.spec?.storageClassName === 'local-storage').map((c) => c.metadata?.name),
      [],
      'no claim of namespace a binds a pre-made volume of class local-storage',
    );
    const conditions = (res.status as { conditions?: Array<Record<string, unknown>> }).conditions ?? [];
    t.ok(
      conditions.some((c) => c['reason'] === 'InvalidSpec' && /storageClassName/.test(String(c['message']))),
      `InvalidSpec names spec.pod.persistentVolumeClaimSpec.storageClassName (conditions: ${JSON.stringify(conditions.map((c) => c['reason']))})`,
    );
  },
);
