// EtcdBackup and EtcdRestore with real etcd and a real S3-compatible server (moto): the backup command run
// exactly as the hook's Job would run it, the restore steps run by the test kubelet from the member pods' init
// containers, every key read back.
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import t from 'tap';
import { etcdSettings } from '../../hooks/etcdcommon/index.js';
import { tenancyFromEnv } from '../../hooks/etcdcommon/tenancy.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { backupPod, etcdRestore } from '../fixtures/backup.js';
import { BackupRig } from '../fixtures/backup-kubelet.js';
import { EtcdKubelet, etcdBin } from '../fixtures/etcd-kubelet.js';
import { driveRestores as driveRestoresWith } from '../fixtures/etcd-restore-moto.js';
import { startMoto, type Moto } from '../fixtures/moto.js';
import { allReady, status } from '../fixtures/etcd-status.js';

etcdBin();
let moto: Moto;
let admin: S3Client;
t.before(async () => {
  moto = await startMoto();
  admin = new S3Client({ endpoint: moto.endpoint, region: moto.region, credentials: moto.admin, forcePathStyle: true });
  await admin.send(new CreateBucketCommand({ Bucket: 'etcd-backups' }));
});
t.teardown(() => moto?.stop());

let rig: BackupRig;
t.before(() => {
  rig = new BackupRig(moto.endpoint, moto.region);
});
const backupHook = (...args: Parameters<BackupRig['hook']>) => rig.hook(...args);
const runJob = (child: KubeObject, endpoint: string, credentials = moto.admin) => rig.run(child, endpoint, credentials);
const serverEnv = () => rig.serverEnv();

/**
 * The server's settings for restores from moto without an awsSecret: namespace default may use the node's
 * credentials (METAOPS_BACKUP_AMBIENT_CREDENTIALS), which the test kubelet gives every init container.
 */
const restoreEnv = () => ({ ...serverEnv(), METAOPS_BACKUP_AMBIENT_CREDENTIALS: 'default' });

function restoresFromMoto(k: EtcdKubelet, credentials = moto.admin): void {
  k.settings = { backup: tenancyFromEnv(restoreEnv()) };
  k.nodeEnv = {
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_REGION: moto.region,
  };
}

/** A finished backup pod, as the hook observes it: the CLI's result as its termination message. */
const finishedPod = (result: unknown, at: string, name = 'nightly'): KubeObject =>
  backupPod(name, 'default', result, at);

t.test('one backup: a Job; the snapshot lands in S3 with the revision reported', async (t) => {
  const k = new EtcdKubelet('src', { size: 1, version: '3.6.9' });
  t.teardown(() => k.shutdown());
  await k.converge('size 1', allReady(1));
  for (let i = 0; i < 20; i++) await k.put(`key-${i}`, `value-${i}`);
  const spec = {
    clusterName: 'src',
    s3: { path: 'etcd-backups/default/src/once.db', endpoint: moto.endpoint, forcePathStyle: true, awsSecret: 'aws' },
  };
  const first = backupHook(spec, { clusters: ['src'] });
  const job = first.children[0]!;
  t.equal(job.kind, 'Job');
  t.match(status(first).conditions[0], { reason: 'Running' });
  const { code, result } = await runJob(job, k.endpoint('src-0'));
  t.equal(code, 0);
  t.equal(result.succeeded, true);
  t.equal(result.key, 'default/src/once.db');
  t.equal(result.etcdVersion, '3.6.9');
  t.ok(result.etcdRevision >= 21, `revision ${result.etcdRevision} covers the 20 puts`);
  const object = await admin.send(new GetObjectCommand({ Bucket: 'etcd-backups', Key: 'default/src/once.db' }));
  t.equal(object.ContentLength, result.size);
  t.ok(result.size > 10_000, `a real snapshot (${result.size} bytes)`);
  t.match(object.Metadata, { 'metaops-backup-uid': 'uid-nightly', 'etcd-cluster-id': result.clusterId });

  // The pod as the API server has it: the Job's pod spec, whose arguments say the store it wrote to.
  const pod = { ...finishedPod(result, '2026-01-01T00:00:00Z'), spec: (job['spec'] as any).template.spec };
  const reported = backupHook(spec, { clusters: ['src'], pods: [pod] });
  t.match(status(reported), {
    succeeded: true,
    etcdRevision: result.etcdRevision,
    etcdVersion: '3.6.9',
    key: 'default/src/once.db',
  });
  t.match(status(reported).conditions[0], { status: 'True', reason: 'BackupSucceeded' });
});

t.test('periodic backups with maxBackups 2 leave exactly the two newest', async (t) => {
  const k = new EtcdKubelet('per', { size: 1, version: '3.6.9' });
  t.teardown(() => k.shutdown());
  await k.converge('size 1', allReady(1));
  const spec = {
    clusterName: 'per',
    backupPolicy: { backupIntervalInSecond: 600, maxBackups: 2 },
    s3: { path: 'etcd-backups/default/per/snap', endpoint: moto.endpoint, awsSecret: 'aws' },
  };
  const cron = backupHook(spec, { clusters: ['per'] }).children[0]!;
  t.equal(cron.kind, 'CronJob');
  t.equal((cron as any).spec.schedule, '*/10 * * * *');
  const revisions: number[] = [];
  for (let i = 0; i < 4; i++) {
    await k.put(`tick`, String(i));
    const { result } = await runJob(cron, k.endpoint('per-0'));
    t.equal(result.succeeded, true);
    revisions.push(result.etcdRevision);
    // Two runs in the same second would name the same key: the CronJob runs one a minute at most.
    await new Promise((r) => setTimeout(r, 1100));
  }
  const listed = await admin.send(new ListObjectsV2Command({ Bucket: 'etcd-backups', Prefix: 'default/per/snap' }));
  const keys = (listed.Contents ?? []).map((o) => o.Key!).sort();
  t.equal(keys.length, 2, `exactly two left: ${keys.join(', ')}`);
  for (const rev of revisions.slice(-2))
    t.ok(
      keys.some((key) => key.includes(`_v${rev}_`)),
      `revision ${rev} kept`,
    );
});

t.test('bad credentials or a missing bucket: a clear failed status, never a crash', async (t) => {
  const k = new EtcdKubelet('bad', { size: 1, version: '3.6.9' });
  t.teardown(() => k.shutdown());
  await k.converge('size 1', allReady(1));
  const spec = (path: string, timeoutInSecond = 60) => ({
    clusterName: 'bad',
    backupPolicy: { timeoutInSecond },
    s3: { path, endpoint: moto.endpoint, awsSecret: 'aws' },
  });
  const job = (path: string) => backupHook(spec(path), { clusters: ['bad'] }).children[0]!;
  const denied = await runJob(job('etcd-backups/default/bad.db'), k.endpoint('bad-0'), {
    accessKeyId: 'AKIDWRONG',
    secretAccessKey: 'wrong',
  });
  t.equal(denied.code, 1);
  t.equal(denied.result.succeeded, false);
  t.match(denied.result.reason, /InvalidAccessKeyId|AccessDenied|Forbidden|InvalidClientTokenId|HTTP 403/);
  const missing = await runJob(job('no-such-bucket/default/x.db'), k.endpoint('bad-0'));
  t.equal(missing.result.succeeded, false);
  t.match(missing.result.reason, /NoSuchBucket|HTTP 404/);
  const reported = backupHook(spec('no-such-bucket/default/x.db'), {
    clusters: ['bad'],
    pods: [finishedPod(missing.result, '2026-01-01T00:00:00Z')],
  });
  t.match(status(reported), { succeeded: false, reason: missing.result.reason });
  t.match(status(reported).conditions[0], { status: 'False', reason: 'BackupFailed' });
  const unreachable = await runJob(
    backupHook(spec('etcd-backups/default/x', 2), { clusters: ['bad'] }).children[0]!,
    'http://127.0.0.1:1',
  );
  t.match(unreachable.result, { succeeded: false, reason: /no etcd endpoint could be snapshotted/ });
});

t.test(
  'restore: wipe the cluster, restore from the snapshot, every key back, all members restored together',
  async (t) => {
    const k = new EtcdKubelet('rest', { size: 3, version: '3.6.9' });
    t.teardown(() => k.shutdown());
    await k.converge('size 3', allReady(3));
    const keys = Array.from({ length: 30 }, (_, i) => `restore-key-${i}`);
    for (const key of keys) await k.put(key, `v-${key}`);
    // The members of the moment (under load a bootstrap may have started over with new ordinals).
    const before = k.livePods();
    const spec = {
      clusterName: 'rest',
      s3: { path: 'etcd-backups/default/rest/snap.db', endpoint: moto.endpoint, awsSecret: 'aws' },
    };
    const backup = await runJob(backupHook(spec, { clusters: ['rest'] }).children[0]!, k.endpoint(before[0]!));
    t.equal(backup.result.succeeded, true);

    // Wipe: every key overwritten with junk and a new key written after the backup.
    for (const key of keys) await k.put(key, 'junk');
    await k.put('after-backup', 'gone after restore');

    restoresFromMoto(k);
    k.related = [
      {
        apiVersion: 'etcd.database.coreos.com/v1beta2',
        kind: 'EtcdRestore',
        metadata: {
          name: 'rest-from-snap',
          namespace: 'default',
          uid: 'uid-restore-1',
          creationTimestamp: '2026-01-01T00:00:00Z',
        },
        spec: {
          etcdCluster: { name: 'rest' },
          backupStorageType: 'S3',
          s3: { path: 'etcd-backups/default/rest/snap.db', endpoint: moto.endpoint },
        },
      },
    ];
    const started = Date.now();
    const phases: string[] = [];
    const done = await k.converge(
      'restored to size 3',
      (res) => {
        const phase = status(res).restore?.phase;
        if (phase && phases[phases.length - 1] !== phase) phases.push(phase);
        return phase === 'Restored' && allReady(3)(res);
      },
      120_000,
    );
    t.comment(
      `restore took ${((Date.now() - started) / 1000).toFixed(1)}s over ${done.syncs} syncs; phases ${phases.join(' -> ')}`,
    );
    t.same(phases, ['Checking', 'Replacing', 'Restoring', 'Restored']);
    t.equal(k.livePods().length, 3);
    t.same(
      k.livePods().filter((p) => before.includes(p)),
      [],
      'the old members were replaced',
    );
    for (const key of keys) t.equal(await k.get(key), `v-${key}`, `${key} restored`);
    t.equal(await k.get('after-backup'), undefined, 'nothing written after the snapshot survives');
    // The restore happens once: more syncs change nothing.
    const pods = k.livePods();
    for (let i = 0; i < 3; i++) await k.step();
    t.same(k.livePods(), pods);
  },
);

/** Plays Metacontroller for the EtcdRestores under the server's settings for restores from moto. */
const driveRestores = (k: EtcdKubelet) => driveRestoresWith(k, () => etcdSettings({ env: restoreEnv() }));

const restoreOf = (name: string, cluster: string, path: string, created: string): KubeObject => ({
  apiVersion: 'etcd.database.coreos.com/v1beta2',
  kind: 'EtcdRestore',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, creationTimestamp: created },
  spec: { etcdCluster: { name: cluster }, backupStorageType: 'S3', s3: { path, endpoint: moto.endpoint } },
});

t.test(
  'a restore with bad credentials ends succeeded: false; a new EtcdRestore after the fix brings the cluster back',
  async (t) => {
    const k = new EtcdKubelet('badrest', { size: 3, version: '3.6.9' });
    t.teardown(() => k.shutdown());
    driveRestores(k);
    await k.converge('size 3', allReady(3));
    await k.put('kept', 'in the snapshot');
    const spec = {
      clusterName: 'badrest',
      s3: { path: 'etcd-backups/default/badrest/snap.db', endpoint: moto.endpoint, awsSecret: 'aws' },
    };
    t.equal(
      (await runJob(backupHook(spec, { clusters: ['badrest'] }).children[0]!, k.endpoint('badrest-0'))).result
        .succeeded,
      true,
    );

    restoresFromMoto(k, { accessKeyId: 'AKIDWRONG', secretAccessKey: 'wrong' });
    const bad = restoreOf('bad-creds', 'badrest', 'etcd-backups/default/badrest/snap.db', '2026-01-01T00:00:00Z');
    k.related = [bad];
    await k.converge('restore failed', () => (bad['status'] as any)?.succeeded === false, 60_000);
    t.match(bad['status'], { succeeded: false, reason: /InvalidAccessKeyId|AccessDenied|Forbidden|credentials/i });
    // Its snapshot check failed before any member was dropped: the cluster runs on, untouched (issue 30.5).
    for (let i = 0; i < 3; i++) {
      const res = await k.step();
      t.match(
        status(res),
        { phase: 'Running', restore: { phase: 'Failed', untouched: true } },
        'the cluster untouched',
      );
      t.same(k.livePods(), ['badrest-0', 'badrest-1', 'badrest-2']);
    }
    t.equal(await k.get('kept'), 'in the snapshot');
    // The user fixes the secret and creates a new EtcdRestore.
    restoresFromMoto(k);
    const fixed = restoreOf('fixed-creds', 'badrest', 'etcd-backups/default/badrest/snap.db', '2026-01-02T00:00:00Z');
    k.related = [bad, fixed];
    await k.converge('restored', (res) => status(res).restore?.phase === 'Restored' && allReady(3)(res), 120_000);
    t.equal((fixed['status'] as any).succeeded, true);
    t.equal(await k.get('kept'), 'in the snapshot');
  },
);

t.test('a cluster deleted and recreated under the same name is left alone by the old EtcdRestore', async (t) => {
  const old = new EtcdKubelet('again', { size: 1, version: '3.6.9' });
  await old.converge('size 1', allReady(1));
  await old.put('first life', 'x');
  const spec = {
    clusterName: 'again',
    s3: { path: 'etcd-backups/default/again/snap.db', endpoint: moto.endpoint, awsSecret: 'aws' },
  };
  t.equal(
    (await runJob(backupHook(spec, { clusters: ['again'] }).children[0]!, old.endpoint('again-0'))).result.succeeded,
    true,
  );
  restoresFromMoto(old);
  const restore = restoreOf('again-restore', 'again', 'etcd-backups/default/again/snap.db', '2026-01-01T00:00:00Z');
  old.related = [restore];
  driveRestores(old);
  await old.converge('restored', (res) => status(res).restore?.phase === 'Restored' && allReady(1)(res), 120_000);
  t.equal((restore['status'] as any).succeeded, true);
  await old.shutdown(); // the EtcdCluster is deleted

  const k = new EtcdKubelet('again', { size: 3, version: '3.6.9' });
  t.teardown(() => k.shutdown());
  k.creationTimestamp = '2026-02-01T00:00:00Z';
  restoresFromMoto(k);
  k.related = [restore];
  driveRestores(k);
  await k.converge('the new cluster', allReady(3));
  await k.put('second life', 'kept');
  const pods = k.livePods();
  for (let i = 0; i < 4; i++) {
    const res = await k.step();
    t.notOk(status(res).restore, 'no restore started');
  }
  t.same(k.livePods(), pods, 'no pod replaced');
  t.equal(await k.get('second life'), 'kept');
  t.equal(await k.get('first life'), undefined);
  t.equal((restore['status'] as any).succeeded, true, 'the old restore keeps its verdict');
});

t.test("a restore with an awsSecret fetches with that Secret's credentials, under the strict settings", async (t) => {
  const k = new EtcdKubelet('secrest', { size: 1, version: '3.6.9' });
  t.teardown(() => k.shutdown());
  driveRestores(k);
  await k.converge('size 1', allReady(1));
  await k.put('kept', 'in the snapshot');
  const path = 'etcd-backups/default/secrest/snap.db';
  const spec = { clusterName: 'secrest', s3: { path, endpoint: moto.endpoint, awsSecret: 'aws' } };
  t.equal(
    (await runJob(backupHook(spec, { clusters: ['secrest'] }).children[0]!, k.endpoint('secrest-0'))).result.succeeded,
    true,
  );
  await k.put('kept', 'overwritten after the snapshot');
  // No ambient credentials allowed, none on the node: only the Secret's.
  k.settings = { backup: tenancyFromEnv(serverEnv()) };
  k.nodeEnv = {};
  k.setSecret('restore-aws', {
    AWS_ACCESS_KEY_ID: moto.admin.accessKeyId,
    AWS_SECRET_ACCESS_KEY: moto.admin.secretAccessKey,
    AWS_REGION: moto.region,
  });
  k.related = [
    etcdRestore(
      'with-secret',
      'default',
      'secrest',
      { path, endpoint: moto.endpoint, awsSecret: 'restore-aws' },
      '2026-01-01T00:00:00Z',
    ),
  ];
  await k.converge('restored', (res) => status(res).restore?.phase === 'Restored' && allReady(1)(res), 120_000);
  t.equal(await k.get('kept'), 'in the snapshot');
  t.equal((k.related[0]!['status'] as any).succeeded, true);
});
