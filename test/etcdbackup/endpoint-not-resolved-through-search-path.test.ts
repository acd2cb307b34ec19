// A backup Job dials its EtcdCluster by a name that only the cluster's own Service can answer. The Job's pod resolves
// names through the pod's resolv.conf (`search <ns>.svc.cluster.local svc.cluster.local cluster.local`, ndots:5):
// a name of fewer than five dots is tried under each search domain first. `web-client.team-a.svc` is therefore
// looked up as `web-client.team-a.svc.svc.cluster.local` before `web-client.team-a.svc.cluster.local`, and the
// first of these is the record of a pod with hostname `web-client` behind a headless Service `team-a` in a
// namespace named `svc` (Kubernetes DNS: <hostname>.<subdomain>.<namespace>.svc.<zone>). The tenant of namespace
// `svc` then answers every backup of namespace team-a's cluster `web`: it receives the snapshot stream's request
// and serves its own "snapshot", which A's Job uploads into A's prefix (and a restore later puts back).
// The endpoint handed to the Job must be the fully qualified name in the server's cluster domain.
import t from 'tap';
import { etcdbackup } from '../../hooks/etcdbackup/index.js';
import { etcdSettings } from '../../hooks/etcdcommon/index.js';
import { runPure } from '../../lib/operator.js';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { backupRequest, etcdCluster } from '../fixtures/backup.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const A = 'team-a';

function backup(spec: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): CompositeSyncResponse {
  return runPure(
    etcdbackup,
    'sync',
    backupRequest({ namespace: A, name: 'a-backup', spec, clusters: [etcdCluster('web', A)] }),
    { now: FIXED_NOW, settings: etcdSettings({ env: { METAOPS_IMAGE: 'metaops:test', ...env } }) },
  );
}

function endpointsOf(res: CompositeSyncResponse): string {
  const child = res.children[0] as any;
  t.ok(child, 'a backup child is made');
  const spec = child.kind === 'CronJob' ? child.spec.jobTemplate.spec : child.spec;
  const args: string[] = spec.template.spec.containers[0].args;
  return args[args.indexOf('--endpoints') + 1]!;
}

t.test(
  "a backup Job dials its cluster's client Service by its fully qualified name, never through the search path",
  async (t) => {
    const own = { path: `shared/${A}/web`, awsSecret: 'a-aws' };
    for (const [what, spec] of [
      ['clusterName', { clusterName: 'web', s3: own }],
      ['etcdEndpoints, short form', { etcdEndpoints: ['http://web-client:2379'], s3: own }],
      ['etcdEndpoints, full form', { etcdEndpoints: [`http://web-client.${A}.svc.cluster.local:2379`], s3: own }],
      [
        'a periodic backup',
        { clusterName: 'web', s3: own, backupPolicy: { backupIntervalInSecond: 3600, maxBackups: 2 } },
      ],
    ] as const) {
      for (const url of endpointsOf(backup(spec as Record<string, unknown>)).split(',')) {
        const host = new URL(url).hostname;
        t.equal(
          host,
          `web-client.${A}.svc.cluster.local`,
          `${what}: ${url} names the Service in the cluster domain (a relative name is answered by namespace "svc" first)`,
        );
      }
    }
    // With the server's own cluster domain set, that domain.
    const res = backup({ clusterName: 'web', s3: own }, { METAOPS_ETCD_CLUSTER_DOMAIN: 'corp.example' });
    t.equal(new URL(endpointsOf(res)).hostname, `web-client.${A}.svc.corp.example`);
  },
);
