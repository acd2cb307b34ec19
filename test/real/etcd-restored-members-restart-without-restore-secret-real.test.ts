// Issues 30.1 and 30.5 on real etcd and a real S3 (moto): members restart in place, restored members too, for as long
// as they live. A restore's awsSecret is needed to fetch the snapshot once; afterwards a tenant deletes it (temporary
// restore credentials, a rotation, a clean-up). The restored members' pods keep their restore steps and the Secret's
// volume for life: when their sandboxes are recreated (a node reboot, a container-runtime restart, a power cut) the
// kubelet has to mount that volume before the steps that would find the data kept can run. The test kubelet runs the
// pods as test/real/etcd-restore-real.test.ts does (a Secret volume that does not exist keeps the pod waiting).
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
  'restored members whose restore Secret was deleted since come back as themselves when their sandboxes are recreated',
  async (t) => {
    const k = new EtcdKubelet('chk', { size: 3, version: '3.6.9' });
    t.teardown(() => k.shutdown());
    driveRestores(k);
    await k.converge('size 3', settled(3));
    for (let i = 0; i < 20; i++) await k.put(`key-${i}`, 'in the snapshot');
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
    k.setSecret('aws', {
      credentials: `[default]\naws_access_key_id = ${moto.admin.accessKeyId}\naws_secret_access_key = ${moto.admin.secretAccessKey}\n`,
      config: `[default]\nregion = ${moto.region}\n`,
    });
    k.nodeEnv = {};
    const good = restore('good', '2026-07-09T00:00:00Z', {
      path: 'etcd-backups/default/chk/snap.db',
      awsSecret: 'aws',
    });
    k.related = [good];
    await k.converge('restored', (res) => status(res).restore?.phase === 'Restored' && settled(3)(res), 120_000);
    t.equal((good['status'] as any).succeeded, true, 'restored');
    await k.put('after-restore', 'written since');
    const restored = status(await k.step())
      .memberList.map((m: any) => `${m.name}=${m.id}`)
      .sort();

    // Done with it: the restore's credentials are deleted. Later a power cut recreates every member's sandbox.
    k.secrets.delete('aws');
    await Promise.all(k.livePods().map((p) => k.recreateSandbox(p)));
    let back = true;
    try {
      await k.converge('back after the sandboxes were recreated', settled(3), 60_000);
    } catch (err) {
      back = false;
      t.comment((err as Error).message.slice(0, 600));
    }
    t.ok(back, 'every member runs again within a minute');
    const after = status(await k.step());
    t.comment(JSON.stringify(after.conditions?.find((c: any) => c.type === 'Available')));
    t.same(after.memberList.map((m: any) => `${m.name}=${m.id}`).sort(), restored, 'the same members');
    t.equal(await k.get('after-restore').catch(() => undefined), 'written since', 'the data written since is served');
  },
);
