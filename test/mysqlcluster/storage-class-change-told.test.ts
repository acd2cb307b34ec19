// A StatefulSet's claim templates cannot change once it exists, so the hook keeps the stored ones. A changed
// spec.storage.size is said (StorageResized=False StorageImmutable); a changed spec.storage.storageClassName must be
// said as well: otherwise the status says the cluster runs its spec while its volumes are of another class than the
// spec names, and nothing tells the user the change will never apply.
import t from 'tap';
import { mysqlSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const storageClass = (name: string) => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name, uid: `sc-${name}` },
  provisioner: 'ebs.csi.aws.com',
  volumeBindingMode: 'WaitForFirstConsumer',
});
const classes = {
  'StorageClass.storage.k8s.io/v1': { standard: storageClass('standard'), fast: storageClass('fast') },
};

t.test('a storageClassName changed on a running cluster is kept as stored and said in a condition', async (t) => {
  const spec = (cls: string) => ({ size: 1, version: '8.0', storage: { size: '1Gi', storageClassName: cls } });
  const first = request('mysqlcluster', spec('standard')) as any;
  first.related = { ...(first.related ?? {}), ...classes };
  const made = mysqlSync(first, FIXED_NOW);
  const sts0 = made.children.find((c) => c.kind === 'StatefulSet') as any;
  t.equal(sts0.spec.volumeClaimTemplates[0].spec.storageClassName, 'standard', 'made with class standard');

  const next = request('mysqlcluster', spec('fast'), {
    children: objectMap(made.children.map((c) => asObserved(c))),
  }) as any;
  next.related = { ...(next.related ?? {}), ...classes };
  const res = mysqlSync(next, FIXED_NOW);
  const sts = res.children.find((c) => c.kind === 'StatefulSet') as any;
  t.equal(sts.spec.volumeClaimTemplates[0].spec.storageClassName, 'standard', 'the stored template is kept');
  const conditions = (res.status as any).conditions as Array<{
    type: string;
    status: string;
    reason?: string;
    message: string;
  }>;
  const told = conditions.find((c) => c.status === 'False' && /storageClassName/.test(c.message));
  t.ok(
    told,
    `a condition says spec.storage.storageClassName "fast" does not apply to volumes of class "standard" (conditions: ${JSON.stringify(conditions.map((c) => [c.type, c.status, c.reason ?? '', c.message]))})`,
  );
});
