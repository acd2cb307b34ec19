// The rules of hooks/etcdcommon/tenancy.ts one by one (issue 29.6): URLs as compared with the allowlists, the
// in-cluster names of a namespace's EtcdClusters, S3 paths, the server's settings and what is wrong with them. The
// tenants' cases, through the hooks: test/etcdbackup/tenancy.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import YAML from 'yaml';
import {
  clusterOfHost,
  etcdTargets,
  normalUrl,
  restoreSourceProblem,
  s3TargetProblem,
  STRICT_TENANCY,
  tenancyFromEnv,
  tenancyProblems,
} from '../../hooks/etcdcommon/tenancy.js';
import { etcdSettings } from '../../hooks/etcdcommon/index.js';
import { configProblems } from '../../main/operators.js';
import { etcdRestore } from '../fixtures/backup.js';
import { root } from '../fixtures/requests.js';

const A = 'team-a';
const B = 'team-b';
const own = { path: `shared/${A}/web`, awsSecret: 'a-aws' };

t.test('the rules, one by one', async (t) => {
  t.equal(normalUrl('https://S3.Example.com:443/'), 'https://s3.example.com');
  t.equal(normalUrl('http://h:9000/base/'), 'http://h:9000/base');
  for (const bad of ['ftp://h', 'http://u@h', 'http://h/#x', 'http://h/?', 'h:1', '', 'http://[::1'])
    t.equal(normalUrl(bad), undefined, bad);
  const local = ['cluster.local'];
  t.equal(clusterOfHost('web-client', A, local), 'web');
  t.equal(clusterOfHost(`web-client.${A}`, A, local), 'web');
  t.equal(clusterOfHost(`web-client.${A}.svc`, A, local), 'web');
  t.equal(clusterOfHost(`web-client.${A}.svc.k8s.internal`, A, ['k8s.internal']), 'web');
  t.equal(clusterOfHost(`web-client.${A}.svc.cluster.local`, A, ['k8s.internal']), undefined);
  t.equal(clusterOfHost(`web-client.${A}.svc.corp.example`, A, ['k8s.internal', 'corp.example']), 'web');
  t.equal(clusterOfHost('web', A, local), undefined);
  t.equal(clusterOfHost('-client', A, local), undefined);
  t.equal(clusterOfHost(`web-client.${B}`, A, local), undefined);
  t.equal(clusterOfHost(`web-client.${A}.pod`, A, local), undefined);
  t.same(etcdTargets(A, { clusterName: 'web' }, ['web'], STRICT_TENANCY), {
    ok: true,
    endpoints: [`http://web-client.${A}.svc.cluster.local:2379`],
    clusters: ['web'],
  });
  t.same(
    etcdTargets(
      A,
      { etcdEndpoints: ['http://web-client:2379', `http://web-client.${A}.svc:2379`] },
      ['web'],
      STRICT_TENANCY,
    ),
    { ok: true, endpoints: [`http://web-client.${A}.svc.cluster.local:2379`], clusters: ['web'] },
    'one endpoint, dialled once',
  );
  t.same(etcdTargets(A, {}, ['web'], STRICT_TENANCY), { ok: true, endpoints: [], clusters: [] });
  t.equal(s3TargetProblem(A, own, STRICT_TENANCY), undefined);
  t.equal(s3TargetProblem(A, { path: `a.b-c/${A}/x/y.db`, awsSecret: 's' }, STRICT_TENANCY), undefined);
  t.match(s3TargetProblem(A, { path: `/${A}/x`, awsSecret: 's' }, STRICT_TENANCY), /bucket name/);
  t.equal(restoreSourceProblem({ metadata: { namespace: A }, spec: { s3: own } }, STRICT_TENANCY), undefined);
  t.equal(restoreSourceProblem({ metadata: { namespace: A }, spec: {} }, STRICT_TENANCY), 'spec.s3.path is required');
  t.match(restoreSourceProblem({ metadata: { namespace: B }, spec: { s3: own } }, STRICT_TENANCY), /team-b\//);
  t.match(
    restoreSourceProblem(
      { metadata: { namespace: A }, spec: { s3: { path: own.path, awsSecret: 5 } } },
      STRICT_TENANCY,
    ),
    /^spec\.s3\.awsSecret must be a string/,
    'a Secret name that is not a string is refused (never read as none)',
  );
  const ambientA = { ...STRICT_TENANCY, ambient: { all: false, namespaces: [A] } };
  t.match(
    restoreSourceProblem({ metadata: { namespace: A }, spec: { s3: { path: own.path, awsSecret: 5 } } }, ambientA),
    /^spec\.s3\.awsSecret must be a string/,
    "refused where ambient credentials are allowed too: not the pod's own credentials by a wrong type",
  );

  const env = {
    METAOPS_BACKUP_AMBIENT_CREDENTIALS: ` ${A} , *`,
    METAOPS_BACKUP_S3_ENDPOINTS: `http://a:1, ${B}=https://b`,
    METAOPS_BACKUP_ETCD_ENDPOINTS: 'http://e:2379/',
    // One cluster domain setting for the whole server: the EtcdCluster hook's, read by etcdSettings.
    METAOPS_ETCD_CLUSTER_DOMAIN: 'K8S.Internal.',
    METAOPS_ETCD_CLUSTER_DOMAINS: 'corp.example',
  };
  t.same(etcdSettings({ env }).backup, {
    ambient: { all: true, namespaces: [A] },
    s3Endpoints: [{ url: 'http://a:1' }, { namespace: B, url: 'https://b' }],
    etcdEndpoints: [{ url: 'http://e:2379' }],
    clusterDomains: ['k8s.internal', 'corp.example'],
  });
  t.same(etcdSettings({ env: {} }).backup, STRICT_TENANCY);
  // A backup names a cluster's client Service in the domain the EtcdCluster hook dials its members in.
  const inDomain = { etcdEndpoints: [`http://web-client.${A}.svc.k8s.internal:2379`] };
  t.same(etcdTargets(A, inDomain, ['web'], etcdSettings({ env }).backup!), {
    ok: true,
    endpoints: [`http://web-client.${A}.svc.k8s.internal:2379`],
    clusters: ['web'],
  });
  t.match(etcdTargets(A, inDomain, ['web'], etcdSettings({ env: {} }).backup!), { ok: false, reason: 'NotAllowed' });
  t.match(
    etcdTargets(A, inDomain, ['web'], etcdSettings({ env: { METAOPS_CLUSTER_DOMAIN: 'k8s.internal' } }).backup!),
    { ok: false, reason: 'NotAllowed' },
    'the old name of the setting is no setting',
  );
  t.same(tenancyFromEnv({}), STRICT_TENANCY);
  t.same(tenancyProblems(env), []);
  t.same(tenancyProblems({}), []);
  const problems = tenancyProblems({
    METAOPS_BACKUP_AMBIENT_CREDENTIALS: 'Team_A',
    METAOPS_BACKUP_S3_ENDPOINTS: 'ftp://x, Bad_NS=http://y, http://u@z',
    METAOPS_BACKUP_ETCD_ENDPOINTS: ' , ',
  });
  t.equal(problems.length, 5, problems.join('\n'));
  t.match(problems.join('\n'), /METAOPS_BACKUP_ETCD_ENDPOINTS is empty/);
  t.match(problems.join('\n'), /"Team_A" is not a namespace/);
  t.match(problems.join('\n'), /"ftp:\/\/x" is not an http\(s\) URL/);
  t.match(problems.join('\n'), /namespace "Bad_NS"/);
  t.match(
    configProblems({ METAOPS_ETCD_CLUSTER_DOMAIN: 'a..b' }),
    [/METAOPS_ETCD_CLUSTER_DOMAIN and METAOPS_ETCD_CLUSTER_DOMAINS take DNS domains .*"a\.\.b"/],
    'a wrong cluster domain is refused once, by the setting the EtcdCluster hook reads',
  );
  t.equal(
    restoreSourceProblem(
      etcdRestore('r', 'ns', 'e', { path: 'b/ns/x' }),
      tenancyFromEnv({ METAOPS_BACKUP_AMBIENT_CREDENTIALS: 'ns' }),
    ),
    undefined,
    'a restore without awsSecret in a namespace the admin opted in',
  );
  t.ok(
    configProblems({ METAOPS_BACKUP_S3_ENDPOINTS: 'nope' }).some((p) => p.includes('METAOPS_BACKUP_S3_ENDPOINTS')),
    'the server refuses to start on it',
  );
});

t.test('the example EtcdBackup and EtcdRestore (manifests/examples) pass the rules in namespace default', async (t) => {
  const docs = YAML.parseAllDocuments(readFileSync(join(root, 'manifests/examples/etcd-backup.yaml'), 'utf8')).map(
    (d) => d.toJS(),
  );
  t.same(
    docs.map((d) => d.kind),
    ['EtcdBackup', 'EtcdRestore'],
  );
  for (const d of docs) {
    t.equal(s3TargetProblem('default', d.spec.s3, STRICT_TENANCY), undefined, d.kind);
    t.match(s3TargetProblem('other', d.spec.s3, STRICT_TENANCY), /under its own prefix/, `${d.kind} elsewhere`);
  }
  t.same(etcdTargets('default', docs[0].spec, ['example-etcd-cluster'], STRICT_TENANCY), {
    ok: true,
    endpoints: ['http://example-etcd-cluster-client.default.svc.cluster.local:2379'],
    clusters: ['example-etcd-cluster'],
  });
});
