// A namespace's share of calls to etcd (hooks/etcdcommon/etcd.ts TENANT_MAX_CALLS, TENANT_MAX_SYNCS) bounds how many
// of Metacontroller's workers one namespace's EtcdCluster syncs hold while its members are slow or silent. The
// EtcdBackup and EtcdRestore hooks need no such share: they dial nothing. The snapshot, the S3 calls and the prune run
// in the backup Job's pod and the restore's init step (main/cli.ts), in the tenant's namespace; the hooks only decide
// the Job or the restore's state from what Metacontroller sends, synchronously (runPure refuses an answer that
// waits), with no client to call out with. So a namespace's endpoints or bucket, however slow, hold no worker.
import { Socket } from 'node:net';
import t from 'tap';
import { etcdbackup, etcdrestore } from '../../hooks/etcdbackup/index.js';
import { backupRequest, etcdCluster, etcdRestore } from '../fixtures/backup.js';
import { backupSync, restoreSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';

/** Every connection this process opens while `run` runs. */
function connectionsDuring<T>(run: () => T): { value: T; connections: number } {
  const connect = Socket.prototype.connect;
  let connections = 0;
  Socket.prototype.connect = function (this: Socket, ...args: unknown[]) {
    connections++;
    return (connect as (...a: unknown[]) => Socket).apply(this, args);
  } as typeof connect;
  try {
    return { value: run(), connections };
  } finally {
    Socket.prototype.connect = connect;
  }
}

t.test('the EtcdBackup and EtcdRestore hooks are given no client to call out with', async (t) => {
  t.equal(etcdbackup.clients, undefined, 'EtcdBackup');
  t.equal(etcdrestore.clients, undefined, 'EtcdRestore');
});

t.test("a namespace's backups are answered without dialling its etcd or its bucket", async (t) => {
  const specs = [
    { etcdEndpoints: ['http://example-client:2379'], s3: { path: 'bucket/ns/key', awsSecret: 'aws' } },
    {
      clusterName: 'example',
      backupPolicy: { backupIntervalInSecond: 3600, maxBackups: 2 },
      s3: { path: 'bucket/ns/snap', awsSecret: 'aws' },
    },
  ];
  for (const spec of specs) {
    const { value: res, connections } = connectionsDuring(() =>
      backupSync(backupRequest({ spec }), 'metaops:test', FIXED_NOW),
    );
    t.ok(
      res.children.some((c) => c.kind === 'Job' || c.kind === 'CronJob'),
      'the backup is decided (its Job or CronJob), in the hook itself',
    );
    t.equal(connections, 0, `no connection opened (${JSON.stringify(spec)})`);
  }
});

t.test("a namespace's restores are answered without dialling its bucket", async (t) => {
  const restore = etcdRestore('r', 'ns', 'example', { path: 'bucket/ns/snap.db', awsSecret: 'aws' });
  const { value: res, connections } = connectionsDuring(() =>
    restoreSync(
      {
        controller: {},
        parent: restore as any,
        related: objectMap([etcdCluster('example', 'ns')], 'v1', ['EtcdCluster.etcd.database.coreos.com/v1beta2']),
      } as any,
      FIXED_NOW,
    ),
  );
  t.ok(res.status, 'answered with a status');
  t.equal(connections, 0, 'no connection opened');
});
