// Related objects are the parent's own namespace's only. Metacontroller v4.17 lists a related rule that names objects
// without a namespace across every namespace (pkg/controller/common/customize/manager.go L665-683), and v2 hooks key
// related objects by namespace/name: an EtcdCluster must not read another namespace's TLS Secret, an EtcdRestore
// must not act on another namespace's cluster.
import t from 'tap';
import { etcdrestore } from '../../hooks/etcdbackup/index.js';
import { etcdcluster } from '../../hooks/etcdcluster/index.js';
import { hookContext } from '../fixtures/app.js';
import { Pki } from '../fixtures/pki.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const pki = new Pki();
const certs = { team: pki.issue('team', 'operator of team'), other: pki.issue('other', 'operator of other') };

const ctx = (tls: unknown[]) =>
  hookContext({
    now: FIXED_NOW,
    settings: { image: 'metaops' },
    clients: {
      etcd: (files: unknown) => {
        tls.push(files);
        const down = () => Promise.reject(new Error('down'));
        return {
          memberList: down,
          memberAdd: down,
          memberRemove: down,
          memberPromote: down,
          health: async () => ({ healthy: false }),
        };
      },
    },
  }) as any;

const cluster = (namespace: string) => ({
  apiVersion: 'etcd.database.coreos.com/v1beta2',
  kind: 'EtcdCluster',
  metadata: { name: 'example', namespace, uid: `u-${namespace}`, generation: 1 },
  spec: {
    size: 1,
    version: '3.5.21',
    TLS: { static: { member: { peerSecret: 'peer', serverSecret: 'server' }, operatorSecret: 'etcd-client' } },
  },
});

t.test("customize rules that name objects carry the parent's namespace", async (t) => {
  const rules = (etcdcluster.customize!({ controller: {}, parent: cluster('team') } as any, ctx([])) as any)
    .relatedResources;
  t.same(
    rules.find((r: any) => r.resource === 'secrets'),
    { apiVersion: 'v1', resource: 'secrets', namespace: 'team', names: ['etcd-client', 'peer', 'server'] },
  );
  const restore = {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdRestore',
    metadata: { name: 'r', namespace: 'team' },
    spec: { etcdCluster: { name: 'example' } },
  };
  const restoreRules = (etcdrestore.customize!({ controller: {}, parent: restore } as any, ctx([])) as any)
    .relatedResources;
  t.same(restoreRules, [
    { apiVersion: 'etcd.database.coreos.com/v1beta2', resource: 'etcdclusters', namespace: 'team', names: ['example'] },
  ]);
  const odd = { ...restore, spec: { etcdCluster: { name: { toString: 1 } } } };
  t.same(
    (etcdrestore.customize!({ controller: {}, parent: odd } as any, ctx([])) as any).relatedResources,
    [],
    'a name that is not a string names nothing',
  );
});

t.test("another namespace's Secret of the same name is not the operator's TLS identity", async (t) => {
  const secret = (namespace: 'team' | 'other') => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'etcd-client', namespace },
    data: {
      'etcd-client.crt': certs[namespace].cert.toString('base64'),
      'etcd-client.key': certs[namespace].key.toString('base64'),
      'etcd-client-ca.crt': pki.read('ca.crt').toString('base64'),
    },
  });
  const cert = (namespace: 'team' | 'other') => JSON.stringify(certs[namespace].cert.toString());
  const seen: any[] = [];
  const request = (secrets: any[]) => ({
    controller: {},
    parent: cluster('team'),
    children: { 'Pod.v1': {}, 'Service.v1': {}, 'PersistentVolumeClaim.v1': {} },
    related: { 'Secret.v1': Object.fromEntries(secrets.map((s) => [`${s.metadata.namespace}/${s.metadata.name}`, s])) },
  });
  await etcdcluster.sync(request([secret('other')]) as any, ctx(seen));
  t.notOk(JSON.stringify(seen).includes(cert('other')), "the other namespace's certificate is never used");
  seen.length = 0;
  await etcdcluster.sync(request([secret('other'), secret('team')]) as any, ctx(seen));
  t.ok(JSON.stringify(seen).includes(cert('team')), "the cluster's own is");
  t.notOk(JSON.stringify(seen).includes(cert('other')));
});

t.test("an EtcdRestore does not see another namespace's cluster of the same name", async (t) => {
  const restore = {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdRestore',
    metadata: { name: 'r', namespace: 'team', uid: 'u-r', generation: 1 },
    spec: { etcdCluster: { name: 'example' }, backupStorageType: 'S3', s3: { path: 'b/team/k', awsSecret: 'aws' } },
  };
  const other = { ...cluster('other'), status: { restore: { uid: 'u-r', phase: 'Restored' } } };
  const res = (await etcdrestore.sync(
    {
      controller: {},
      parent: restore,
      children: {},
      related: { 'EtcdCluster.etcd.database.coreos.com/v1beta2': { 'other/example': other } },
    } as any,
    ctx([]),
  )) as any;
  t.match(res.status.conditions.find((c: any) => c.type === 'Ready') ?? res.status.conditions[0], {
    reason: 'ClusterNotFound',
  });
});

t.test("no hook sees another namespace's related objects, whatever rule asked for them", async (t) => {
  const { testApp: buildApp } = await import('../fixtures/app.js');
  const { customize } = await import('../../hooks/mysqlcluster/sync.js');
  const app = buildApp({
    services: { now: () => FIXED_NOW, randomSecret: () => 'secret' },
    allowUnauthenticated: true,
  });
  t.teardown(() => app.close());
  // MySQLCluster team-a/db, while team-b has the data volume of its own cluster named db (v4.17 lists a names rule
  // across every namespace; v2 keys related objects by namespace/name).
  const pvc = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'data-db-0', namespace: 'team-b', uid: 'pvc-b' },
    spec: {},
  };
  const parent = {
    apiVersion: 'database.example.com/v1alpha1',
    kind: 'MySQLCluster',
    metadata: { name: 'db', namespace: 'team-a', uid: 'u-db', generation: 1 },
    spec: { size: 1 },
  };
  const rules = customize({ controller: {}, parent } as any).relatedResources;
  t.ok(
    rules.filter((r: any) => r.names).every((r: any) => r.namespace === 'team-a'),
    'a names rule carries the namespace',
  );
  const res = await app.inject({
    method: 'POST',
    url: '/hooks/mysqlcluster/sync',
    payload: {
      controller: {},
      parent,
      children: {},
      related: { 'PersistentVolumeClaim.v1': { 'team-b/data-db-0': pvc } },
    },
  });
  t.equal(res.statusCode, 200, res.body);
  const body = res.json();
  t.notMatch(JSON.stringify(body.status), /CredentialsLost/, "another team's volume is not this cluster's");
  t.ok(
    body.children.some((c: any) => c.kind === 'Secret'),
    'the new cluster gets its credentials',
  );
  // EtcdBackup: a forged backup pod in another namespace reports nothing for team-a's backup.
  const forged = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'fake',
      namespace: 'team-b',
      labels: { 'app.kubernetes.io/name': 'etcdbackup', 'app.kubernetes.io/instance': 'b' },
    },
    status: {
      phase: 'Succeeded',
      containerStatuses: [
        {
          name: 'backup',
          state: {
            terminated: {
              exitCode: 0,
              message: JSON.stringify({ succeeded: true, key: 'evil-bucket/forged.db', etcdRevision: 42 }),
            },
          },
        },
      ],
    },
  };
  const backup = {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdBackup',
    metadata: { name: 'b', namespace: 'team-a', uid: 'u-b', generation: 1 },
    spec: {
      clusterName: 'x',
      storageType: 'S3',
      etcdEndpoints: ['http://x:2379'],
      s3: { path: 'bucket/x.db', awsSecret: 'aws' },
    },
  };
  const b = await app.inject({
    method: 'POST',
    url: '/hooks/etcdbackup/sync',
    payload: { controller: {}, parent: backup, children: {}, related: { 'Pod.v1': { 'team-b/fake': forged } } },
  });
  t.equal(b.statusCode, 200, b.body);
  t.notMatch(b.body, /forged/, 'the forged result is not reported');
  t.not(b.json().status.succeeded, true);
});
