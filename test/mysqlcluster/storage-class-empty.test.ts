// Issue 31: "every value copied into a child is checked against what the API server will accept". A claim's
// `storageClassName: ""` is a value the API server accepts and Kubernetes documents: a claim with no class, bound only
// to a PersistentVolume without one (pre-provisioned volumes, on-premises databases), never dynamically provisioned by
// the default StorageClass. Leaving the field out means the opposite (the default class). A MySQLCluster asking for
// `""` must get claims that say `""`, not InvalidSpec, and not the default class.
import t from 'tap';
import { mysqlSync } from '../fixtures/hooks.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';

t.test('storage.storageClassName "" (no class, pre-provisioned volumes) is copied into the claims as ""', async (t) => {
  const res = mysqlSync(
    request('mysqlcluster', { size: 1, version: '8.0', storage: { size: '1Gi', storageClassName: '' } }),
    FIXED_NOW,
  );
  const ready = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
  t.not(ready.reason, 'InvalidSpec', `accepted (${ready.reason}: ${ready.message})`);
  const sts = res.children.find((c) => c.kind === 'StatefulSet') as any;
  t.equal(sts?.spec.volumeClaimTemplates?.[0]?.spec?.storageClassName, '', 'the claims ask for no class');
});

t.test('storage.storageClassName left out asks for the default class: the claims name none', async (t) => {
  const res = mysqlSync(request('mysqlcluster', { size: 1, version: '8.0', storage: { size: '1Gi' } }), FIXED_NOW);
  const sts = res.children.find((c) => c.kind === 'StatefulSet') as any;
  t.notOk('storageClassName' in sts.spec.volumeClaimTemplates[0].spec, 'no storageClassName in the claim template');
});
