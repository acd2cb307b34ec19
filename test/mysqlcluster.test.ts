import t from 'tap';
import { normalizeVersion, PASSWORD_KEY, sync } from '../hooks/mysqlcluster/sync.js';
import type { KubeObject } from '../lib/metacontroller.js';
import { asObserved, example, FIXED_NOW, objectMap, request } from './fixtures/requests.js';

const now = FIXED_NOW;
let counter = 0;
const newPassword = () => `generated-${++counter}`;

function byKind(children: KubeObject[]) {
  const out: Record<string, any> = {};
  for (const c of children) out[`${c.kind}/${c.metadata.name}`] = c;
  return out;
}

t.test('the seed MySQLCluster (version: 8.0, read by YAML as 8) gets its four children', async (t) => {
  const res = sync(example('mysqlcluster-sync'), now, newPassword);
  const c = byKind(res.children);
  t.same(Object.keys(c).sort(), ['Secret/my-mysql-mysql', 'Service/my-mysql', 'Service/my-mysql-headless', 'StatefulSet/my-mysql']);
  const sts = c['StatefulSet/my-mysql'];
  t.equal(sts.spec.replicas, 3);
  t.equal(sts.spec.serviceName, 'my-mysql-headless');
  t.equal(sts.spec.template.spec.containers[0].image, 'mysql:8.0');
  t.equal(sts.spec.volumeClaimTemplates[0].spec.resources.requests.storage, '1Gi');
  t.same(sts.spec.template.spec.containers[0].env[0].valueFrom.secretKeyRef, { name: 'my-mysql-mysql', key: PASSWORD_KEY });
  t.equal(c['Service/my-mysql-headless'].spec.clusterIP, 'None');
  t.equal(c['Service/my-mysql'].spec.ports[0].port, 3306);
  const password = Buffer.from(c['Secret/my-mysql-mysql'].data[PASSWORD_KEY], 'base64').toString();
  t.match(password, /^generated-/);
  t.equal((res.status as any).version, '8.0');
  t.notOk((res.status as any).secretName, 'no Secret observed yet');
});

t.test('the password is generated once, then re-emitted as observed, never regenerated', async (t) => {
  const first = sync(request('mysqlcluster', { size: 1, version: '8.0' }), now, newPassword);
  const observed = objectMap(first.children.map((c) => asObserved(c)));
  const firstSecret = byKind(first.children)['Secret/my-mysql-mysql'];
  for (let i = 0; i < 3; i++) {
    const res = sync(request('mysqlcluster', { size: 1, version: '8.0' }, { children: observed }), now, () => {
      throw new Error('must not generate');
    });
    t.same(byKind(res.children)['Secret/my-mysql-mysql'].data, firstSecret.data);
    t.equal((res.status as any).secretName, 'my-mysql-mysql');
  }
});

t.test('a Secret lost after creation is reported, and no new password is made', async (t) => {
  const req = request('mysqlcluster', { size: 1, version: '8.0' });
  req.parent.status = { secretName: 'my-mysql-mysql' };
  const res = sync(req, now, () => {
    throw new Error('must not generate');
  });
  t.notOk(byKind(res.children)['Secret/my-mysql-mysql']);
  t.ok(byKind(res.children)['StatefulSet/my-mysql'], 'the StatefulSet is kept');
  const conditions = (res.status as any).conditions;
  t.match(conditions.find((c: any) => c.type === 'Ready'), { status: 'False', reason: 'CredentialsLost' });
  t.match(conditions.find((c: any) => c.type === 'CredentialsAvailable'), { status: 'False', message: /Recreate the Secret/ });
});

t.test('versions: strings as written, numbers as YAML read them', async (t) => {
  t.equal(normalizeVersion(8), '8.0');
  t.equal(normalizeVersion(8.4), '8.4');
  t.equal(normalizeVersion('8.0.36'), '8.0.36');
  t.equal(normalizeVersion(' 5.7 '), '5.7');
  for (const version of ['latest', '8.0;rm', 'v8', '']) {
    const res = sync(request('mysqlcluster', { size: 1, version }), now, newPassword);
    t.match((res.status as any).conditions[0], { reason: 'InvalidSpec' }, `version ${JSON.stringify(version)} is refused`);
    t.same(res.children, []);
  }
});

t.test('an invalid spec keeps the running cluster as it is', async (t) => {
  const first = sync(request('mysqlcluster', { size: 3, version: '8.0' }), now, newPassword);
  const observed = objectMap(first.children.map((c) => asObserved(c)));
  const res = sync(request('mysqlcluster', { size: 3, version: 'eight' }, { children: observed }), now, newPassword);
  t.equal(res.children.length, 4);
  t.equal(byKind(res.children)['StatefulSet/my-mysql'].spec.template.spec.containers[0].image, 'mysql:8.0');
  t.match((res.status as any).conditions[0], { reason: 'InvalidSpec', message: /spec\.version is "eight"/ });
});

t.test('volume claim templates are fixed once the StatefulSet exists', async (t) => {
  const first = sync(request('mysqlcluster', { size: 1, version: '8.0', storage: { size: '5Gi' } }), now, newPassword);
  const observed = objectMap(first.children.map((c) => asObserved(c)));
  const res = sync(
    request('mysqlcluster', { size: 1, version: '8.0', storage: { size: '10Gi' } }, { children: observed }),
    now,
    newPassword,
  );
  const sts = byKind(res.children)['StatefulSet/my-mysql'];
  t.equal(sts.spec.volumeClaimTemplates[0].spec.resources.requests.storage, '5Gi');
  t.match((res.status as any).conditions.find((c: any) => c.type === 'StorageResized'), {
    status: 'False',
    reason: 'StorageImmutable',
  });
});

t.test('a version change rolls the StatefulSet in place, selector unchanged', async (t) => {
  const a = byKind(sync(request('mysqlcluster', { size: 3, version: '8.0' }), now, newPassword).children)['StatefulSet/my-mysql'];
  const b = byKind(sync(request('mysqlcluster', { size: 3, version: '8.4' }), now, newPassword).children)['StatefulSet/my-mysql'];
  t.same(a.spec.selector, b.spec.selector);
  t.equal(b.spec.template.spec.containers[0].image, 'mysql:8.4');
});

/** A StatefulSet as the API server stores it: its claim templates get apiVersion, kind, volumeMode and a status. */
function storedStatefulSet(sts: KubeObject): KubeObject {
  const stored = asObserved(sts, { replicas: 1, readyReplicas: 1, updatedReplicas: 1 }) as any;
  stored.spec.volumeClaimTemplates = stored.spec.volumeClaimTemplates.map((c: any) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: c.metadata.name },
    spec: { ...c.spec, volumeMode: 'Filesystem' },
    status: { phase: 'Pending' },
  }));
  return stored;
}

t.test('at rest the StatefulSet answered is the one the API server stores: its claim templates are not rewritten', async (t) => {
  const first = sync(request('mysqlcluster', { size: 1, version: '8.0' }), now, newPassword);
  const stored = first.children.map((c) => (c.kind === 'StatefulSet' ? storedStatefulSet(c) : asObserved(c)));
  const storedSts = stored.find((c) => c.kind === 'StatefulSet') as any;
  // The first answer already has the stored form, so creating it is not followed by an update.
  t.same(byKind(first.children)['StatefulSet/my-mysql'].spec.volumeClaimTemplates, storedSts.spec.volumeClaimTemplates);
  for (let i = 0; i < 3; i++) {
    const res = sync(request('mysqlcluster', { size: 1, version: '8.0' }, { children: objectMap(stored) }), now, newPassword);
    t.same(byKind(res.children)['StatefulSet/my-mysql'].spec.volumeClaimTemplates, storedSts.spec.volumeClaimTemplates);
  }
});
