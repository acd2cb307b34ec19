// A backup Job's pod uploads its snapshot to S3 by name (`<bucket>.s3.<region>.amazonaws.com`, `s3.amazonaws.com`),
// with web identity through STS (`sts.amazonaws.com`), or to a custom endpoint. With Kubernetes' default `ndots:5`
// each is first tried under the pod's search domains: `sts.amazonaws.com.svc.cluster.local` is pod `sts` of headless
// Service `amazonaws` in namespace `com`, whose tenant then receives every backup's requests. The Job's pod looks a
// name with a dot up as it is first (lib/names.ts podDnsConfig); the cluster it dials is fully qualified
// (endpoint-not-resolved-through-search-path.test.ts), so it needs no search domain either.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import YAML from 'yaml';
import { etcdbackup } from '../../hooks/etcdbackup/index.js';
import { etcdSettings } from '../../hooks/etcdcommon/index.js';
import { runPure } from '../../lib/operator.js';
import { backupRequest, etcdCluster } from '../fixtures/backup.js';
import { FIXED_NOW, root } from '../fixtures/requests.js';
import { lookups, resolvConfOf } from '../fixtures/resolver.js';

const A = 'team-a';
const EXTERNAL = [
  's3.us-east-1.amazonaws.com',
  's3.amazonaws.com',
  'tenant-bucket.s3.eu-north-1.amazonaws.com',
  'sts.amazonaws.com',
  'sts.us-east-1.amazonaws.com',
  'objects.example.com',
];

function podSpecOf(spec: Record<string, unknown>): any {
  const res = runPure(
    etcdbackup,
    'sync',
    backupRequest({ namespace: A, name: 'a-backup', spec, clusters: [etcdCluster('web', A)] }),
    { now: FIXED_NOW, settings: etcdSettings({ env: { METAOPS_IMAGE: 'metaops:test' } }) },
  );
  const child = res.children[0] as any;
  t.ok(child, 'a backup child is made');
  return (child.kind === 'CronJob' ? child.spec.jobTemplate.spec : child.spec).template.spec;
}

t.test("a backup Job's pod looks the names of AWS and of endpoints up as they are first", async (t) => {
  const s3 = { path: `shared/${A}/web`, awsSecret: 'a-aws' };
  for (const [what, spec] of [
    ['a one-off backup', { clusterName: 'web', s3 }],
    ['a periodic backup', { clusterName: 'web', s3, backupPolicy: { backupIntervalInSecond: 3600, maxBackups: 2 } }],
  ] as const) {
    const pod = podSpecOf(spec as Record<string, unknown>);
    t.same(pod.dnsConfig, { options: [{ name: 'ndots', value: '1' }] }, `${what}: ndots 1`);
    const conf = resolvConfOf(pod, A);
    for (const name of EXTERNAL)
      for (const libc of ['glibc', 'go', 'musl'] as const)
        t.equal(lookups(name, conf, libc)[0], name, `${what}: ${name} as it is first (${libc})`);
    // The cluster's client Service, fully qualified, is its record itself.
    const args: string[] = pod.containers[0].args;
    for (const url of args[args.indexOf('--endpoints') + 1]!.split(',')) {
      const host = new URL(url).hostname;
      t.equal(lookups(host, conf, 'musl')[0], host, `${what}: ${host} asked for as it is`);
    }
  }
});

t.test('a running backup Job is never changed in place: a new template reaches new Jobs only', async (t) => {
  const [controller] = YAML.parseAllDocuments(
    readFileSync(join(root, 'manifests', 'controllers', 'metaops-etcdbackup.yaml'), 'utf8'),
  ).map((d) => d.toJS());
  const jobs = controller.spec.childResources.find((c: any) => c.resource === 'jobs');
  t.same(jobs.updateStrategy, { method: 'OnDelete' }, "Jobs: OnDelete (a Job's template cannot change anyway)");
});
