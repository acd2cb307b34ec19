// A refused EtcdBackup spec keeps its Job or CronJob as the API server stores it (hooks/etcdbackup/refused.ts judges
// every field of the observed pod template): the fields the API server defaults into a template metaops gave without
// them are read as today's child, not as something else it runs. On a real kube-apiserver, today's child is created,
// read back, and answered kept.
import t from 'tap';
import { etcdbackup } from '../../hooks/etcdbackup/index.js';
import { etcdSettings } from '../../hooks/etcdcommon/index.js';
import { runPure } from '../../lib/operator.js';
import { parseJson } from '../../lib/index.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { backupRequest, etcdCluster } from '../fixtures/backup.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { startApiServer } from '../fixtures/apiserver.js';

const A = 'team-a';
const api = startApiServer(t, 'f-backup-stored', [A]);
const own = { path: `shared/${A}/web`, awsSecret: 'a-aws' };

function backup(spec: Record<string, unknown>, children: KubeObject[] = []) {
  return runPure(
    etcdbackup,
    'sync',
    backupRequest({ namespace: A, name: 'a-backup', spec, clusters: [etcdCluster('web', A)], children }),
    { now: FIXED_NOW, settings: etcdSettings({ env: { METAOPS_IMAGE: 'registry.example.com/metaops:1.4.0' } }) },
  );
}

t.test('a child as the API server stores it is kept while the spec is refused', async (t) => {
  for (const [what, spec] of [
    ['a periodic CronJob', { clusterName: 'web', backupPolicy: { backupIntervalInSecond: 3600 }, s3: own }],
    ['a one-off Job', { clusterName: 'web', s3: own }],
    [
      'a CronJob with client TLS',
      { clusterName: 'web', clientTLSSecret: 'web-tls', backupPolicy: { backupIntervalInSecond: 3600 }, s3: own },
    ],
    [
      'a CronJob on ambient credentials',
      { clusterName: 'web', backupPolicy: { backupIntervalInSecond: 3600 }, s3: { path: own.path } },
    ],
  ] as [string, Record<string, any>][]) {
    const ambient = !spec['s3'].awsSecret;
    const env = {
      METAOPS_IMAGE: 'registry.example.com/metaops:1.4.0',
      ...(ambient ? { METAOPS_BACKUP_AMBIENT_CREDENTIALS: A } : {}),
    };
    const run = (s: Record<string, unknown>, children: KubeObject[] = []) =>
      runPure(
        etcdbackup,
        'sync',
        backupRequest({ namespace: A, name: 'a-backup', spec: s, clusters: [etcdCluster('web', A)], children }),
        { now: FIXED_NOW, settings: etcdSettings({ env }) },
      );
    const made = run(spec).children[0] as KubeObject;
    t.ok(made, `${what}: made`);
    const stored = parseJson(api.kubectl(['create', '-o', 'json', '-f', '-'], JSON.stringify(made))) as KubeObject;
    const refused = run({ ...spec, backupPolicy: { ...(spec['backupPolicy'] ?? {}), maxBackups: 'three' } }, [stored]);
    t.match((refused.status as any).conditions[0], { reason: 'InvalidSpec' }, `${what}: InvalidSpec`);
    t.notMatch((refused.status as any).conditions[0].message, /not kept/, `${what}: nothing said against it`);
    t.equal(refused.children.length, 1, `${what}: kept`);
    api.kubectl(['delete', made.kind.toLowerCase(), made.metadata.name!, '-n', A, '--wait=false']);
  }
  // And the judgement is not blind to the stored form: one with a container added is not kept.
  const made = backup({ clusterName: 'web', backupPolicy: { backupIntervalInSecond: 3600 }, s3: own })
    .children[0] as any;
  made.spec.jobTemplate.spec.template.spec.containers.push({ name: 'other', image: 'busybox', command: ['sh'] });
  const stored = parseJson(api.kubectl(['create', '-o', 'json', '-f', '-'], JSON.stringify(made))) as KubeObject;
  const refused = backup(
    { clusterName: 'web', backupPolicy: { backupIntervalInSecond: 3600, maxBackups: 'x' }, s3: own },
    [stored],
  );
  t.same(refused.children, [], 'a stored CronJob with a second container is not kept');
});
