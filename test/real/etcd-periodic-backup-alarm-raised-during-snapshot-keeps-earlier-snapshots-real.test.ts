// Real etcd 3.5.21 + moto: a periodic backup reads etcd's alarms before its snapshot and again once the snapshot
// streamed whole, before anything is pruned. etcd's corruption check runs on its own clock and raises CORRUPT whenever
// it finds members that disagree; a snapshot of a large backend streams for minutes. Here the alarm is raised as the
// snapshot is asked for (a proxy in front of the member raises it, through etcd's own API, when the backup's snapshot
// call arrives). Before, the run pruned to maxBackups, deleting the oldest snapshot taken before the alarm for one of
// a cluster etcd calls corrupt. Now, as for an alarm raised before the run
// (etcd-periodic-backup-under-corrupt-alarm-keeps-earlier-snapshots-real): nothing pruned, said why, the alarm recorded
// on the snapshot. (Found by the issue 30 attack; hook level:
// test/etcdbackup/periodic-backup-alarm-raised-during-snapshot-prunes-nothing.test.ts.)
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { META } from '../../hooks/etcdbackup/lineage.js';
import { BackupsOnMoto } from '../fixtures/backup-lineage.js';
import { EtcdKubelet, maintenance, memberAlarm } from '../fixtures/etcd-kubelet.js';

const on = new BackupsOnMoto(['backups']);
const { objects, periodic, fire } = on;

t.test('a CORRUPT alarm raised as the snapshot is taken: nothing pruned', async (t) => {
  const path = 'backups/default/late/snap';
  const k = new EtcdKubelet('late', { size: 1, version: '3.5.21' });
  t.teardown(() => k.shutdown());
  await k.converge('late', (res) => {
    const s = res.status as any;
    return s.members.ready.length === 1 && s.members.unready.length === 0 && !!s.clusterID;
  });
  const cron = on.rig.hook(periodic(path, 2, 'late'), { clusters: ['late'] }).children[0]!;
  for (let i = 0; i < 20; i++) await k.put(`k${i}`, `v${i}`);
  for (let i = 0; i < 2; i++) t.match(await fire(k, cron), { succeeded: true }, `good backup ${i + 1}`);
  const good = await objects('backups', 'default/late/');
  t.equal(good.size, 2);

  const ep = k.endpoint(k.livePods()[0]!);
  const target = new URL(ep);
  let raised = false;
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      if (req.url?.endsWith('/maintenance/snapshot') && !raised) {
        raised = true;
        await memberAlarm(ep);
      }
      const out = request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      out.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  t.teardown(() => proxy.close());
  await k.put('tick', 'moved');
  const { result } = await on.rig.run(cron, `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, on.moto.admin);
  t.comment(JSON.stringify({ succeeded: result.succeeded, pruned: result.pruned, problem: result.pruneProblem }));
  t.ok(raised, 'the alarm was raised as the snapshot was asked for');
  t.match(
    await maintenance(ep, 'alarm', { action: 'GET' }),
    { alarms: [{ alarm: 'CORRUPT' }] },
    'etcd holds a CORRUPT alarm',
  );
  const after = await objects('backups', 'default/late/');
  for (const [key, etag] of good) t.equal(after.get(key), etag, `${key}, taken before the alarm, survives`);
  t.match(result, { succeeded: true, pruned: [], pruneProblem: /CORRUPT alarm.*nothing pruned/ }, 'said why');
  t.equal(after.size, 3, 'every snapshot kept');
  const head = await on.admin.send(new HeadObjectCommand({ Bucket: 'backups', Key: result.key }));
  t.equal(head.Metadata?.[META.alarms], 'CORRUPT', 'the snapshot records the alarm');
});
