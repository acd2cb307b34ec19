// Two EtcdBackups on one path (issue 30.2: "two EtcdBackups on one path keep each other's backups") with the same
// interval have the same CronJob schedule, so their Jobs fire in the same minute; on an idle cluster (no write
// between) they snapshot the same revision. When both runs land in the same second their keys
// (`<key>_v<revision>_<stamp>`) are the same: each EtcdBackup must still get its own snapshot written.
import t from 'tap';
import { runBackup, type BackupResult } from '../../hooks/etcdbackup/backup.js';
import { META } from '../../hooks/etcdbackup/lineage.js';
import { FakeS3, fakeGateway } from '../fixtures/fake-s3.js';

const at = (h: number) => new Date(Date.UTC(2026, 0, 1, h, 0, 3));

async function run(s3: FakeS3, url: string, uid: string, when: Date): Promise<BackupResult> {
  return runBackup({
    endpoints: [url],
    path: 'bucket/ns/snap',
    periodic: true,
    maxBackups: 2,
    timeoutMs: 2000,
    s3: s3.client,
    now: () => when,
    backup: { uid, name: `ns/${uid}` },
  });
}

t.test('two EtcdBackups on one path whose Jobs run in the same second both write a snapshot', async (t) => {
  const s3 = new FakeS3();
  const state = { revision: 10, clusterId: '1111111111111111111' };
  const gw = await fakeGateway(t, state);
  for (let i = 0; i < 3; i++) {
    const a = await run(s3, gw.url, 'uid-a', at(i));
    const b = await run(s3, gw.url, 'uid-b', at(i));
    t.equal(a.succeeded, true, `run ${i}: a succeeded`);
    t.equal(b.succeeded, true, `run ${i}: b succeeded (${b.reason ?? ''})`);
  }
  const whose = (uid: string) =>
    s3.keys('bucket', 'ns/').filter((k) => s3.objects.get(`bucket/${k}`)!.metadata[META.uid] === uid);
  t.ok(whose('uid-b').length > 0, 'b has snapshots of its own');
});
