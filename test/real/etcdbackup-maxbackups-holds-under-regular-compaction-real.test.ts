// Backups on real etcd and moto (issue 30.2, "bounded always"): a cluster whose history is compacted between
// backups, as every production etcd is (kube-apiserver compacts every 5 minutes; `--auto-compaction-retention`
// through `etcdEnv`), is the same cluster with the same data and a growing revision. maxBackups must still hold:
// a break per compaction that is never healed leaves every snapshot in the bucket for ever.
// Helpers as in test/real/etcdbackup-rebuilt-revision-regrown-real.test.ts.
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { BackupRig } from '../fixtures/backup-kubelet.js';
import { EtcdKubelet, etcdBin } from '../fixtures/etcd-kubelet.js';
import { startMoto, type Moto } from '../fixtures/moto.js';

etcdBin();
let moto: Moto;
let admin: S3Client;
let rig: BackupRig;
t.before(async () => {
  moto = await startMoto();
  admin = new S3Client({ endpoint: moto.endpoint, region: moto.region, credentials: moto.admin, forcePathStyle: true });
  await admin.send(new CreateBucketCommand({ Bucket: 'backups' }));
  rig = new BackupRig(moto.endpoint, moto.region);
});
t.teardown(() => moto?.stop());

async function keys(prefix: string): Promise<string[]> {
  const page = await admin.send(new ListObjectsV2Command({ Bucket: 'backups', Prefix: prefix }));
  return (page.Contents ?? []).map((o) => o.Key!);
}

async function fire(k: EtcdKubelet, cron: KubeObject): Promise<any> {
  await k.put('tick', String(Date.now()));
  const { result } = await rig.run(cron, k.endpoint(k.livePods()[0]!), moto.admin);
  await new Promise((r) => setTimeout(r, 1050));
  return result;
}

t.test(
  'a cluster compacted between every two backups (as kube-apiserver or auto-compaction does): maxBackups still holds',
  async (t) => {
    const k = new EtcdKubelet('compacting', { size: 1, version: '3.6.9' }, 'default');
    await k.converge('default/compacting', (res) => (res.status as any).members.ready.length === 1);
    t.teardown(() => k.shutdown());
    // Made once the cluster records its etcd cluster ID (the Job checks it).
    const cron = rig.hook(
      {
        clusterName: 'compacting',
        backupPolicy: { backupIntervalInSecond: 3600, maxBackups: 2 },
        s3: { path: 'backups/default/compacting/snap', endpoint: moto.endpoint, awsSecret: 'aws' },
      },
      { clusters: ['compacting'] },
    ).children[0]!;
    const results: any[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await fire(k, cron);
      t.ok(
        r.succeeded,
        `backup ${i + 1}: ${r.key} (revision ${r.etcdRevision}, break: ${r.lineageBreak?.reason ?? 'none'})`,
      );
      results.push(r);
      // The cluster's routine compaction (what kube-apiserver asks every 5 minutes) up to the current revision.
      await k.put('tick', 'between backups');
      const res = await fetch(`${k.endpoint(k.livePods()[0]!)}/v3/kv/compaction`, {
        method: 'POST',
        body: JSON.stringify({ revision: String(r.etcdRevision + 1), physical: true }),
      });
      t.equal(res.status, 200, 'compacted');
    }
    t.equal(new Set(results.map((r) => r.clusterId)).size, 1, 'one cluster, one cluster ID throughout');
    const left = await keys('default/compacting/');
    // One break may be forgiven (docs/etcdbackup.md: "a compaction between two backups costs one break"), but a
    // routine compaction must not turn maxBackups into "keep everything".
    t.ok(
      left.length <= 2 + 1,
      `maxBackups 2 over 5 backups of one cluster holds (at most one break's snapshot kept); kept ${left.length}: ${left.join(', ')}`,
    );
  },
);
