// Every answer that keeps an observed child as it is (lib/objects.ts keepObserved: an InvalidSpec answer, a refused
// EtcdBackup's, a MySQLCluster's Secret whose password was lost) answers it in the parent's namespace, with the
// values the child has: its last-applied annotation is text tenant A may write on its own children, and Metacontroller
// creates a desired child in the namespace the answer names, and sets every value it names, with its own rights.
// Tenant A rewrites the annotation of each of its children: tenant B's namespace, B's ServiceAccount, a marker value.
import t, { type Test } from 'tap';
import { etcdbackup } from '../../hooks/etcdbackup/index.js';
import { etcdSettings } from '../../hooks/etcdcommon/index.js';
import { PASSWORD_KEY } from '../../hooks/mysqlcluster/sync.js';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { parseJson } from '../../lib/index.js';
import { LAST_APPLIED } from '../../lib/objects.js';
import { runPure } from '../../lib/operator.js';
import { backupRequest, etcdCluster } from '../fixtures/backup.js';
import { memcachedSync, mysqlSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const MARK = 'forged-by-tenant-a';

/** `child` as observed, its annotation rewritten: B's namespace, B's ServiceAccount, every string value marked. */
function forged(child: KubeObject): KubeObject {
  const observed = asObserved(child);
  const text = JSON.stringify(child, (key, value) =>
    key === 'namespace' ? 'team-b' : typeof value === 'string' && key !== 'name' && key !== 'kind' ? MARK : value,
  );
  const annotation = parseJson(text) as Record<string, any>;
  const spec = annotation['spec'];
  if (spec?.template?.spec) spec.template.spec.serviceAccountName = 'b-admin';
  if (spec?.jobTemplate?.spec?.template?.spec) spec.jobTemplate.spec.template.spec.serviceAccountName = 'b-admin';
  observed.metadata.annotations = {
    ...(observed.metadata.annotations ?? {}),
    [LAST_APPLIED]: JSON.stringify(annotation),
  };
  return observed;
}

function outside(res: CompositeSyncResponse, namespace: string): string[] {
  return res.children
    .filter((c) => c.metadata.namespace !== undefined && c.metadata.namespace !== namespace)
    .map((c) => `${c.kind} ${c.metadata.namespace}/${c.metadata.name}`);
}

function check(t: Test, what: string, res: CompositeSyncResponse, namespace: string, kept: number) {
  t.equal(res.children.length, kept, `${what}: every child kept`);
  t.same(outside(res, namespace), [], `${what}: every child in ${namespace}`);
  const text = JSON.stringify(res.children);
  t.notOk(text.includes(MARK) || text.includes('b-admin'), `${what}: no value of the rewritten annotation`);
}

t.test('an InvalidSpec answer keeps every child in its namespace with its own values', async (t) => {
  for (const [kind, sync, spec] of [
    ['memcached', memcachedSync, { size: 2 }],
    ['mysqlcluster', mysqlSync, { size: 3, version: '8.0' }],
  ] as const) {
    const first = sync(request(kind, spec), FIXED_NOW);
    const namespace = request(kind, spec).parent.metadata.namespace!;
    const observed = first.children.map(forged);
    const refused = { ...spec, size: 'many' };
    const parent = { ...request(kind, refused).parent, status: first.status };
    const groups = Object.keys(request(kind, spec).children ?? {});
    const req: CompositeSyncRequest = request(kind, refused, { parent, children: objectMap(observed, 'v1', groups) });
    const res = sync(req, FIXED_NOW);
    t.equal((res.status as any).conditions[0].reason, 'InvalidSpec', `${kind}: InvalidSpec`);
    check(t, kind, res, namespace, observed.length);
  }
});

t.test(
  'a MySQLCluster whose Secret lost its password answers its own Secret, in its namespace, the password put back',
  async (t) => {
    const spec = { size: 3, version: '8.0' };
    const first = mysqlSync(request('mysqlcluster', spec), FIXED_NOW);
    const secret = first.children.find((c) => c.kind === 'Secret')!;
    const observed = asObserved(secret);
    // The annotation rewritten: B's namespace, another type, a key of A's choosing; the password left as applied.
    const annotation = structuredClone(secret) as Record<string, any>;
    annotation['metadata'].namespace = 'team-b';
    annotation['type'] = 'kubernetes.io/service-account-token';
    annotation['data'] = { ...annotation['data'], extra: Buffer.from(MARK).toString('base64') };
    observed.metadata.annotations = { [LAST_APPLIED]: JSON.stringify(annotation) };
    const password = (secret['data'] as Record<string, string>)[PASSWORD_KEY];
    delete (observed['data'] as Record<string, string>)[PASSWORD_KEY];
    const req = request('mysqlcluster', spec, {
      children: objectMap([observed], 'v1', ['Secret.v1', 'StatefulSet.apps/v1', 'Service.v1']),
    });
    req.parent.status = { secretName: secret.metadata.name };
    const res = mysqlSync(req, FIXED_NOW);
    const answered = res.children.find((c) => c.kind === 'Secret')!;
    t.equal(answered.metadata.namespace, req.parent.metadata.namespace, 'in its own namespace');
    t.equal(answered['type'], secret['type'], "the hook's own type");
    t.notOk('extra' in (answered['data'] as object), 'no key of the rewritten annotation');
    t.equal((answered['data'] as Record<string, string>)[PASSWORD_KEY], password, 'the password put back');
  },
);

t.test('a refused EtcdBackup keeps its CronJob or Job in its namespace, with its own values', async (t) => {
  const settings = etcdSettings({ env: { METAOPS_IMAGE: 'metaops:test' } });
  const backup = (spec: Record<string, unknown>, children: KubeObject[] = []) =>
    runPure(
      etcdbackup,
      'sync',
      backupRequest({
        namespace: 'team-a',
        name: 'a-backup',
        spec,
        clusters: [etcdCluster('web', 'team-a')],
        children,
      }),
      { now: FIXED_NOW, settings },
    );
  const s3 = { path: 'shared/team-a/web', awsSecret: 'a-aws' };
  for (const [what, policy] of [
    ['CronJob', { backupIntervalInSecond: 3600, maxBackups: 3 }],
    ['one-off Job', { maxBackups: 3 }],
  ] as const) {
    const made = backup({ clusterName: 'web', s3, backupPolicy: policy });
    t.equal(made.children.length, 1, `${what}: made`);
    const res = backup({ clusterName: 'web', s3, backupPolicy: { ...policy, maxBackups: 'three' } }, [
      forged(made.children[0]!),
    ]);
    t.equal((res.status as any).conditions[0].reason, 'InvalidSpec', `${what}: InvalidSpec`);
    check(t, what, res, 'team-a', 1);
  }
});
