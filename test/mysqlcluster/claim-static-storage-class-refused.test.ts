// The MySQL members' claims, as the EtcdCluster's (test/etcdcluster/claim-static-storage-class-refused.test.ts): the
// hook refuses `storageClassName: ""` by default, because such a claim binds a pre-made volume whoever made it; a named
// class whose volumes are pre-made (`provisioner: kubernetes.io/no-provisioner`, local volumes) binds the same way and
// is copied into the StatefulSet's claim template as it is.
import t from 'tap';
import { mysqlSync } from '../fixtures/hooks.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';
import { localStorageClass } from '../fixtures/storage-classes.js';

t.test(
  'storage.storageClassName of a class whose volumes are pre-made (no provisioner) is refused by default',
  async (t) => {
    const req = request('mysqlcluster', {
      size: 1,
      version: '8.0',
      storage: { size: '1Gi', storageClassName: 'local-storage' },
    }) as any;
    req.related = { ...(req.related ?? {}), 'StorageClass.storage.k8s.io/v1': { 'local-storage': localStorageClass } };
    const res = mysqlSync(req, FIXED_NOW);
    const sts = res.children.find((c) => c.kind === 'StatefulSet') as any;
    t.not(
      sts?.spec?.volumeClaimTemplates?.[0]?.spec?.storageClassName,
      'local-storage',
      'no claim template binds a pre-made volume of class local-storage',
    );
    const ready = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
    t.match(ready, { status: 'False', reason: 'InvalidSpec', message: /spec\.storage\.storageClassName/ });
  },
);
