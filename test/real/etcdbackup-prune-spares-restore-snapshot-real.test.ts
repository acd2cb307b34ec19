// Several resources sharing one external thing (issue 30.2 and 30.5): one S3 path holds a periodic EtcdBackup's
// lineage, and an EtcdRestore (of another cluster of the namespace: a staging copy of production, a clone to
// investigate) restores one of its snapshots. The restore checked that snapshot and dropped its cluster's members;
// its members fetch the snapshot in their init steps. Meanwhile the periodic backup runs and prunes its lineage to
// maxBackups: the snapshot a restore under way is about to fetch is deleted, its members' fetch fails, and the
// restored cluster ends with no member and nothing restored. Never destroy on doubt: a snapshot an unfinished
// EtcdRestore of the namespace names is not pruned. The hooks' own commands (the CronJob's, the check pod's, the
// members' fetch steps) run against moto, as the kubelet would run them.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { KubeObject } from '../../lib/metacontroller.js';
import { backupRequest, etcdCluster } from '../fixtures/backup.js';
import { cliOnMoto, type Container } from '../fixtures/cli-on-moto.js';
import { running, restoreObject } from '../fixtures/etcd-loop.js';
import { backupSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';

/** A stand-in etcd gateway whose snapshot is one etcd could restore: its bytes, then their sha256. */
async function gateway(t: { teardown(fn: () => void): void }, state: { revision: number }) {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url === '/v3/maintenance/status')
        return res.end(
          JSON.stringify({ header: { revision: String(state.revision), cluster_id: '1111' }, version: '3.6.9' }),
        );
      const body = Buffer.from(`the data at revision ${state.revision}\n`.repeat(50));
      const blob = Buffer.concat([body, createHash('sha256').update(body).digest()]).toString('base64');
      res.end(JSON.stringify({ result: { blob } }) + '\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

t.test('a periodic backup never prunes the snapshot an unfinished EtcdRestore of its namespace restores', async (t) => {
  const { s3, dir, run } = await cliOnMoto(t, 'metaops-prune-restore');
  const state = { revision: 100 };
  const etcd = await gateway(t, state);

  /** A container of one of the hooks' pods, run as the kubelet would, its etcd endpoints the gateway. */
  const runContainer = (container: Container, volume: string) => run(container, volume, etcd);
  const keys = async () =>
    ((await s3.send(new ListObjectsV2Command({ Bucket: 'bucket', Prefix: 'ns/' }))).Contents ?? [])
      .map((o) => o.Key!)
      .sort();

  // Production's periodic backup: maxBackups 2, on bucket/ns/prod.
  const spec = {
    clusterName: 'prod',
    backupPolicy: { backupIntervalInSecond: 3600, maxBackups: 2 },
    s3: { path: 'bucket/ns/prod', awsSecret: 'aws' },
  };
  const restores: KubeObject[] = [];
  const backupRun = async () => {
    const request = backupRequest({
      name: 'prod',
      spec,
      // prod's etcd cluster ID recorded as its hook records it: the stand-in gateway's.
      clusters: [etcdCluster('prod', 'ns', { clusterID: '1111' }), etcdCluster('e', 'ns')],
    });
    // The namespace's EtcdRestores, should the hook ask for them.
    request.related = {
      ...request.related,
      ...objectMap(restores, 'v1', ['EtcdRestore.etcd.database.coreos.com/v1beta2']),
    };
    const cron = backupSync(request, 'metaops:test', FIXED_NOW).children.find((c) => c.kind === 'CronJob') as any;
    const container = cron.spec.jobTemplate.spec.template.spec.containers[0];
    state.revision += 10;
    const r = await runContainer(container, join(dir, 'backup'));
    await new Promise((r) => setTimeout(r, 1100)); // the next run's key is a second later
    return r;
  };
  for (let i = 0; i < 2; i++) t.match((await backupRun()).result, { succeeded: true });
  const [oldest] = await keys();
  t.ok(oldest, `two snapshots of production (${(await keys()).join(', ')})`);

  // A copy of production restored into cluster e from the older snapshot.
  const restore = restoreObject('r', '2026-07-01T00:00:00Z');
  (restore['spec'] as any).s3.path = `bucket/${oldest}`;
  restores.push(restore);
  const loop = await running({ size: 3 });
  loop.related = [restore];
  loop.check = 'running';
  await loop.step();
  const verdict = await runContainer((loop.checkPod() as any).spec.containers[0], join(dir, 'check'));
  t.equal(verdict.code, 0, 'its check passes');
  loop.check = verdict.result;
  await loop.step();
  t.match(loop.s().restore, { phase: 'Replacing' }, "e's members are dropped");
  let members: any[] = [];
  for (let i = 0; i < 4 && members.length === 0; i++) {
    await loop.step();
    members = loop.children.filter(
      (c: any) => c.kind === 'Pod' && (c.spec.initContainers ?? []).some((x: any) => x.name === 'fetch-snapshot'),
    );
  }
  t.equal(members.length, 3, 'the restored members are made');

  // Production's next backup runs while they are scheduled, their images pulled.
  t.match((await backupRun()).result, { succeeded: true });
  t.ok((await keys()).includes(oldest!), 'the snapshot the restore checked and is about to fetch is still there');
  for (const m of members) {
    const fetch = m.spec.initContainers.find((x: any) => x.name === 'fetch-snapshot');
    const got = await runContainer(fetch, join(dir, m.metadata.name));
    t.equal(got.code, 0, `${m.metadata.name} fetches its snapshot (${JSON.stringify(got.result)})`);
  }
});
