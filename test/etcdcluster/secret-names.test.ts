// A Secret the etcd kinds name goes into a child as a Secret name (the backup Job's secretKeyRef and volume, the
// restore-check pod's and the restored members' S3 access, the members' TLS volumes), which the API server accepts
// only as a DNS-1123 subdomain. The CRD says so (a pattern from the same schema), and the hook refuses such a name
// too (a spec from before the pattern, a request that did not come through the API server): InvalidSpec naming the
// field, no child the API server would refuse; an EtcdCluster starts no restore from such an EtcdRestore.
import t from 'tap';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { EtcdBackupSpec, EtcdRestoreSpec } from '../../hooks/etcdbackup/schema.js';
import { EtcdClusterSpec } from '../../hooks/etcdcluster/schema.js';
import { restoreSourceProblem, STRICT_TENANCY } from '../../hooks/etcdcommon/tenancy.js';
import { backupRequest, etcdCluster, etcdRestore } from '../fixtures/backup.js';
import { running, restoreObject } from '../fixtures/etcd-loop.js';
import { backupSync as sync, restoreSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';

const BAD_NAMES = ['AWS_Creds', 'aws..creds', 'etcd client tls', '-aws', 'aws-', 'aws.', ''];

const conditionsOf = (status: unknown) =>
  (((status as any)?.conditions ?? []) as Array<Record<string, unknown>>).map((c) => ({
    reason: c['reason'],
    message: String(c['message']),
  }));

const cases: Array<[string, Record<string, unknown>, RegExp]> = [
  ['s3.awsSecret', { clusterName: 'example', s3: { path: 'bucket/ns/key', awsSecret: 'AWS_Creds' } }, /awsSecret/],
  ['s3.awsSecret', { clusterName: 'example', s3: { path: 'bucket/ns/key', awsSecret: 'aws..creds' } }, /awsSecret/],
  [
    'clientTLSSecret',
    { clusterName: 'example', clientTLSSecret: 'etcd client tls', s3: { path: 'bucket/ns/key', awsSecret: 'aws' } },
    /clientTLSSecret/,
  ],
];

for (const [field, spec, named] of cases) {
  t.test(`EtcdBackup spec.${field} no Secret can be named: InvalidSpec, no Job`, async (t) => {
    const res = sync(
      backupRequest({ spec, clusters: [etcdCluster('example', 'ns')] }),
      'img',
      new Date('2026-01-02T03:04:05Z'),
    );
    const conditions = conditionsOf(res.status);
    t.ok(
      conditions.some((c) => c.reason === 'InvalidSpec' && named.test(c.message)),
      `InvalidSpec naming spec.${field} (conditions: ${JSON.stringify(conditions.map((c) => c.reason))})`,
    );
    t.same(res.children, [], 'no Job the API server would refuse');
  });
}

t.test(
  'EtcdBackup: every name no Secret can carry, in either field, periodic too: InvalidSpec, no child',
  async (t) => {
    for (const bad of BAD_NAMES)
      for (const periodic of [0, 300])
        for (const field of ['awsSecret', 'clientTLSSecret']) {
          const s3 = { path: 'bucket/ns/key', awsSecret: field === 'awsSecret' ? bad : 'aws' };
          const spec: Record<string, unknown> = {
            clusterName: 'example',
            backupPolicy: { backupIntervalInSecond: periodic },
            s3,
          };
          if (field === 'clientTLSSecret') spec['clientTLSSecret'] = bad;
          const res = sync(backupRequest({ spec }), 'img', FIXED_NOW);
          const c = conditionsOf(res.status);
          t.match(c, [{ reason: 'InvalidSpec', message: new RegExp(field) }], `${field} ${JSON.stringify(bad)}`);
          t.same(res.children, [], `${field} ${JSON.stringify(bad)}: no Job or CronJob`);
        }
  },
);

t.test('EtcdBackup: Secret names the API server accepts make the Job, each as given', async (t) => {
  for (const good of ['aws', 'aws-creds', 'aws.creds.v2', '0', 'a'.repeat(253)]) {
    const res = sync(
      backupRequest({
        spec: { clusterName: 'example', clientTLSSecret: good, s3: { path: 'bucket/ns/key', awsSecret: good } },
      }),
      'img',
      FIXED_NOW,
    );
    const job = res.children.find((c) => c.kind === 'Job') as any;
    t.ok(job, `a Job for ${good.slice(0, 20)}`);
    const text = JSON.stringify(job?.spec?.template?.spec);
    t.ok(text.includes(`"secretName":"${good}"`), 'the name reaches the pod as given');
  }
});

t.test('EtcdRestore spec.s3.awsSecret no Secret can name: InvalidSpec naming it, never acting', async (t) => {
  for (const bad of BAD_NAMES) {
    const r = etcdRestore('r', 'ns', 'example', { path: 'bucket/ns/snap.db', awsSecret: bad });
    const res = restoreSync(
      {
        controller: {},
        parent: r as any,
        related: objectMap([etcdCluster('example', 'ns')], 'v1', ['EtcdCluster.etcd.database.coreos.com/v1beta2']),
      },
      FIXED_NOW,
    );
    t.match(conditionsOf(res.status), [{ reason: 'InvalidSpec', message: /awsSecret/ }], JSON.stringify(bad));
    t.notOk('succeeded' in (res.status ?? {}), 'not final: a corrected spec can still act');
  }
});

t.test('the EtcdCluster starts no restore (no check pod, no member dropped) from such an EtcdRestore', async (t) => {
  for (const bad of ['AWS_Creds', 'aws..creds', '', 5, { name: 'aws' }]) {
    const loop = await running({ size: 3 });
    const r = restoreObject('r', '2026-07-01T00:00:00Z');
    (r['spec'] as any).s3.awsSecret = bad;
    loop.related = [r];
    for (let i = 0; i < 3; i++) await loop.step();
    t.notOk(loop.checkPod(), `${JSON.stringify(bad)}: no restore-check pod the API server would refuse`);
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], `${JSON.stringify(bad)}: every member kept`);
    t.equal(loop.s().restore, undefined, `${JSON.stringify(bad)}: no restore recorded`);
    t.same(loop.etcd.calls, [], 'no membership change');
  }
});

t.test(
  'restoreSourceProblem: a Secret name, said with the field; a value that is not text is never "absent"',
  async (t) => {
    const problem = (s3: Record<string, unknown>) =>
      restoreSourceProblem(
        { metadata: { namespace: 'ns' }, spec: { s3: { path: 'bucket/ns/snap.db', ...s3 } } },
        STRICT_TENANCY,
      );
    t.match(problem({ awsSecret: 'AWS_Creds' }), /^spec\.s3\.awsSecret "AWS_Creds" must .*DNS-1123 subdomain/);
    t.match(problem({ awsSecret: 'a'.repeat(254) }), /^spec\.s3\.awsSecret .* at most 253 characters/);
    t.match(problem({ awsSecret: 7 }), /^spec\.s3\.awsSecret must be a string/);
    t.match(problem({ awsSecret: 'aws', endpoint: 7 }), /^spec\.s3\.endpoint must be a string/);
    t.equal(problem({ awsSecret: 'aws' }), undefined);
    t.equal(problem({ awsSecret: 'a'.repeat(253) }), undefined);
  },
);

t.test('the CRDs say it: every Secret name field of the etcd kinds has the DNS-1123 subdomain pattern', async (t) => {
  const backup = TypeCompiler.Compile(EtcdBackupSpec);
  const restore = TypeCompiler.Compile(EtcdRestoreSpec);
  const cluster = TypeCompiler.Compile(EtcdClusterSpec);
  const backupSpec = (awsSecret: string, tls: string) => ({
    clusterName: 'x',
    storageType: 'S3',
    backupPolicy: { timeoutInSecond: 60, backupIntervalInSecond: 0, maxBackups: 0 },
    s3: { path: 'b/ns/k', awsSecret },
    clientTLSSecret: tls,
  });
  const restoreSpec = (awsSecret: string) => ({
    etcdCluster: { name: 'x' },
    backupStorageType: 'S3',
    s3: { path: 'b/ns/k', awsSecret },
  });
  // Defaults filled (as the API server does), so that only the name decides.
  const clusterSpec = (tls: Record<string, unknown>) =>
    Value.Default(EtcdClusterSpec, { size: 3, TLS: { static: tls } });
  t.ok(backup.Check(backupSpec('aws', 'tls')));
  t.ok(restore.Check(restoreSpec('aws')));
  t.ok(cluster.Check(clusterSpec({ member: { peerSecret: 'p', serverSecret: 's.v1' }, operatorSecret: 'o-1' })));
  for (const bad of BAD_NAMES) {
    t.notOk(backup.Check(backupSpec(bad, 'tls')), `EtcdBackup s3.awsSecret ${JSON.stringify(bad)}`);
    t.notOk(backup.Check(backupSpec('aws', bad)), `EtcdBackup clientTLSSecret ${JSON.stringify(bad)}`);
    t.notOk(restore.Check(restoreSpec(bad)), `EtcdRestore s3.awsSecret ${JSON.stringify(bad)}`);
    t.notOk(
      cluster.Check(clusterSpec({ member: { peerSecret: bad } })),
      `EtcdCluster peerSecret ${JSON.stringify(bad)}`,
    );
    t.notOk(cluster.Check(clusterSpec({ member: { serverSecret: bad } })), `serverSecret ${JSON.stringify(bad)}`);
    t.notOk(cluster.Check(clusterSpec({ operatorSecret: bad })), `operatorSecret ${JSON.stringify(bad)}`);
  }
});
