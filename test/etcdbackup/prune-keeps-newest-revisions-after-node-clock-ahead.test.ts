// A periodic backup's snapshots are named and ordered by the stamp of the clock of the node its Job ran on
// (hooks/etcdbackup/backup.ts periodicBackup: `now` is the backup pod's clock). Within one lineage the revision only
// grows (lineage.ts mayContinue): it, not a node's clock, says which snapshots are the newest. Runs on a node whose
// clock is a year ahead must not make the snapshots taken after it (newer data, higher revisions) the ones pruned.
import t from 'tap';
import { FakeS3, fakeGateway } from '../fixtures/fake-s3.js';
import { backupAt } from '../fixtures/periodic-backup.js';

const hour = (h: number) => new Date(Date.UTC(2026, 0, 1, h));
const CLUSTER = '1111111111111111111';

const run = (s3: FakeS3, url: string, at: Date, max: number) => backupAt(s3, url, at, { maxBackups: max });

t.test('maxBackups keeps the newest revisions of its lineage after runs on a node whose clock ran ahead', async (t) => {
  const s3 = new FakeS3();
  const state = { revision: 100, clusterId: CLUSTER };
  const gw = await fakeGateway(t, state);
  // Three backups on good clocks.
  for (let h = 0; h < 3; h++) {
    state.revision += 10;
    t.match(await run(s3, gw.url, hour(h), 3), { succeeded: true });
  }
  // Two taken on a node whose clock is a year ahead (a bad RTC, an NTP step the wrong way).
  for (const h of [3, 4]) {
    state.revision += 10;
    t.match(await run(s3, gw.url, new Date(Date.UTC(2027, 0, 1, h)), 3), { succeeded: true });
  }
  // The clock is right again (or the Job lands on another node): five more backups, the data growing.
  const later: string[] = [];
  for (let h = 5; h < 10; h++) {
    state.revision += 10;
    const r = await run(s3, gw.url, hour(h), 3);
    t.match(r, { succeeded: true });
    t.notOk(r.lineageBreak, 'the same lineage');
    later.push(`ns/snap_v${state.revision}_2026-01-01T${String(h).padStart(2, '0')}-00-00Z`);
  }
  const left = s3.keys('bucket', 'ns/').sort();
  // maxBackups 3: the three newest snapshots of the lineage (the highest revisions, the last three runs).
  t.same(left, later.slice(-3).sort(), `the three newest kept (left: ${left.join(', ')})`);
});
