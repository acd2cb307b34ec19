// Two EtcdBackups on one path (issue 30.2: "two EtcdBackups on one path keep each other's backups") with the same
// interval have the same CronJob schedule, so their Jobs fire in the same minute; on an idle cluster (no write
// between) they snapshot the same revision. When both runs land in the same second their keys
// (`<key>_v<revision>_<stamp>`) are the same: each EtcdBackup must still get its own snapshot written.
import t from 'tap';
import type { BackupResult } from '../../hooks/etcdbackup/backup.js';
import { META } from '../../hooks/etcdbackup/lineage.js';
import { FakeS3, fakeGateway } from '../fixtures/fake-s3.js';
import { backupAt } from '../fixtures/periodic-backup.js';

const at = (h: number) => new Date(Date.UTC(2026, 0, 1, h, 0, 3));

/** A periodic backup of EtcdBackup ns/<uid> to bucket/ns/snap, keeping two, at `when` (fixtures/periodic-backup.ts). */
const run = (s3: FakeS3, url: string, uid: string, when: Date): Promise<BackupResult> =>
  backupAt(s3, url, when, { backup: { uid, name: `ns/${uid}` } });

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
