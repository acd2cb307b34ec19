// Issue 30.5 on real etcd and a real S3 (moto): a restore checks before it acts. A snapshot written by this project's
// backup command; then EtcdRestores with a Secret that does not exist, a key that does not exist and a bucket that
// does not exist each end succeeded: false with the reason, the running cluster untouched (the same members, every
// key readable); one with everything right restores the snapshot. The check pod runs as the test kubelet runs pods:
// this project's CLI, with the pod's Secret volumes and environment.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import t from 'tap';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { EtcdKubelet, etcdBin } from '../fixtures/etcd-kubelet.js';
import { etcdrestore } from '../../hooks/etcdbackup/index.js';
import { etcdSettings } from '../../hooks/etcdcommon/index.js';
import { runPure } from '../../lib/operator.js';
import { startMoto, type Moto } from '../fixtures/moto.js';
import { FIXED_NOW, objectMap, root } from '../fixtures/requests.js';

const run = promisify(execFile);
etcdBin();
let moto: Moto;
t.before(async () => {
  moto = await startMoto();
  const admin = new S3Client({
    endpoint: moto.endpoint,
    region: moto.region,
    credentials: moto.admin,
    forcePathStyle: true,
  });
  await admin.send(new CreateBucketCommand({ Bucket: 'etcd-backups' }));
});
t.teardown(() => moto?.stop());

const status = (res: CompositeSyncResponse) => res.status as any;
const settled = (size: number) => (res: CompositeSyncResponse) =>
  status(res).members.ready.length === size && status(res).members.unready.length === 0 && status(res).size === size;

/**
 * The server's settings: the strict tenancy (each restore under its namespace's prefix, with its own Secret), moto
 * the one S3 endpoint allowed.
 */
const serverSettings = () => etcdSettings({ env: { METAOPS_BACKUP_S3_ENDPOINTS: moto.endpoint } });

/** Plays Metacontroller for the EtcdRestores: after each cluster sync, their hook's status is written back. */
function driveRestores(k: EtcdKubelet): void {
  k.settings = { backup: serverSettings().backup! };
  k.onStep = (clusterStatus) => {
    const cluster = {
      apiVersion: 'etcd.database.coreos.com/v1beta2',
      kind: 'EtcdCluster',
      metadata: { name: k.name, namespace: 'default' },
      status: clusterStatus,
    };
    for (const r of k.related) {
      const res = runPure(
        etcdrestore,
        'sync',
        {
          controller: {},
          parent: r as any,
          related: objectMap([cluster], 'v1', ['EtcdCluster.etcd.database.coreos.com/v1beta2']),
        },
        { now: FIXED_NOW, settings: serverSettings() },
      );
      r['status'] = res.status;
    }
  };
}

const restore = (name: string, created: string, s3: Record<string, unknown>): KubeObject => ({
  apiVersion: 'etcd.database.coreos.com/v1beta2',
  kind: 'EtcdRestore',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, creationTimestamp: created },
  spec: { etcdCluster: { name: 'chk' }, backupStorageType: 'S3', s3: { endpoint: moto.endpoint, ...s3 } },
});

t.test(
  'an EtcdRestore with a missing Secret, a wrong key or a wrong bucket ends succeeded: false, the cluster untouched',
  async (t) => {
    const k = new EtcdKubelet('chk', { size: 3, version: '3.6.9' });
    t.teardown(() => k.shutdown());
    driveRestores(k);
    await k.converge('size 3', settled(3));
    for (let i = 0; i < 40; i++) await k.put(`key-${i}`, 'in the snapshot');
    // The snapshot, taken by this project's backup command (what an EtcdBackup's Job runs).
    await run(
      process.execPath,
      [
        '--import',
        'tsx',
        join(root, 'main', 'cli.ts'),
        'etcd-backup',
        '--endpoints',
        k.endpoint('chk-0'),
        '--s3-path',
        'etcd-backups/default/chk/snap.db',
        '--s3-endpoint',
        moto.endpoint,
      ],
      {
        cwd: root,
        env: {
          ...process.env,
          AWS_ACCESS_KEY_ID: moto.admin.accessKeyId,
          AWS_SECRET_ACCESS_KEY: moto.admin.secretAccessKey,
          AWS_REGION: moto.region,
          METAOPS_TERMINATION_LOG: join(k.dir, 'backup.result'),
        },
      },
    );
    for (let i = 0; i < 40; i++) await k.put(`key-${i}`, 'after the snapshot');
    // The restore's credentials, as etcd-operator's awsSecret held them: an AWS credentials and config file.
    k.setSecret('aws', {
      credentials: `[default]\naws_access_key_id = ${moto.admin.accessKeyId}\naws_secret_access_key = ${moto.admin.secretAccessKey}\n`,
      config: `[default]\nregion = ${moto.region}\n`,
    });
    const before = status(await k.step());
    const members = before.memberList.map((m: any) => `${m.name}=${m.id}`);

    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      [
        'a missing Secret',
        { path: 'etcd-backups/default/chk/snap.db', awsSecret: 'no-such-secret' },
        /awsSecret no-such-secret was not found/,
      ],
      ['a wrong key', { path: 'etcd-backups/default/chk/no-such.db', awsSecret: 'aws' }, /NoSuchKey/],
      ['a wrong bucket', { path: 'no-such-bucket/default/chk/snap.db', awsSecret: 'aws' }, /NoSuchBucket/],
    ];
    let day = 1;
    for (const [what, s3, reason] of cases) {
      const r = restore(`r${day}`, `2026-07-0${day++}T00:00:00Z`, s3);
      k.related = [...k.related, r];
      const done = await k.converge(
        `${what}: the restore ends`,
        (res) => {
          // At every sync until then: the members as they were, none dropped.
          const pods = res.children.filter((c) => c.kind === 'Pod' && c.metadata.name !== 'chk-restore-check');
          t.same(pods.map((p) => p.metadata.name).sort(), ['chk-0', 'chk-1', 'chk-2'], `${what}: no member dropped`);
          return (r['status'] as any)?.succeeded === false;
        },
        60_000,
      );
      t.comment(`${what}: refused after ${(done.ms / 1000).toFixed(1)}s (${done.syncs} syncs)`);
      t.match(r['status'], { succeeded: false, reason });
      const after = await k.step();
      t.equal(status(after).phase, 'Running', `${what}: the cluster runs`);
      t.match(
        status(after).conditions.find((c: any) => c.type === 'Available'),
        { status: 'True' },
      );
      t.match(
        status(after).conditions.find((c: any) => c.type === 'Restore'),
        { status: 'False', reason: 'RestoreRefused', message: reason },
      );
      t.same(
        status(after).memberList.map((m: any) => `${m.name}=${m.id}`),
        members,
        `${what}: the same members`,
      );
      for (let i = 0; i < 40; i++)
        t.equal(await k.get(`key-${i}`), 'after the snapshot', `${what}: key-${i} readable, unchanged`);
    }

    // Everything right: checked, then restored.
    k.nodeEnv = {}; // the restored members' fetch uses the Secret too
    const good = restore('good', '2026-07-09T00:00:00Z', {
      path: 'etcd-backups/default/chk/snap.db',
      awsSecret: 'aws',
    });
    k.related = [...k.related, good];
    const phases: string[] = [];
    await k.converge(
      'restored',
      (res) => {
        const phase = status(res).restore?.phase;
        if (phase && phases.at(-1) !== phase) phases.push(phase);
        return phase === 'Restored' && settled(3)(res);
      },
      120_000,
    );
    t.same(phases, ['Checking', 'Replacing', 'Restoring', 'Restored']);
    t.equal((good['status'] as any).succeeded, true);
    for (let i = 0; i < 40; i++) t.equal(await k.get(`key-${i}`), 'in the snapshot');

    // The restored members' sandboxes recreated at once (a power cut): their init steps run again, and leave the
    // data they have (written after the restore) as it is; nothing is fetched from S3.
    await k.put('after-restore', 'kept');
    const restored = status(await k.step()).memberList.map((m: any) => `${m.name}=${m.id}`);
    moto.pause();
    try {
      await Promise.all(k.livePods().map((p) => k.recreateSandbox(p)));
      await k.converge('back after the sandboxes were recreated', settled(3), 60_000);
    } finally {
      moto.resume();
    }
    t.same(
      status(await k.step()).memberList.map((m: any) => `${m.name}=${m.id}`),
      restored,
      'the same members',
    );
    t.equal(await k.get('after-restore'), 'kept', 'the data written after the restore is kept');
    t.equal(await k.get('key-0'), 'in the snapshot');
  },
);
