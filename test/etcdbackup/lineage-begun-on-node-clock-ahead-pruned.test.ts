// A lineage's start is the stamp of its first snapshot (hooks/etcdbackup/lineage.ts `since`), and pruning reads only
// the snapshots stamped at or after it (backup.ts pruneLineage: `s.stamp >= lineage.since`). Stamps are the clock of
// the node each backup Job ran on. A lineage whose first snapshot was taken on a node whose clock ran ahead excludes
// every later snapshot taken on a right clock until real time passes that stamp: none of them is ever pruned.
import t from 'tap';
import { FakeS3, fakeGateway } from '../fixtures/fake-s3.js';
import { backupAt } from '../fixtures/periodic-backup.js';

const hour = (h: number) => new Date(Date.UTC(2026, 0, 1, h));

const run = backupAt;

t.test('a lineage whose first snapshot was stamped a day ahead is still pruned to maxBackups', async (t) => {
  const s3 = new FakeS3();
  const state = { revision: 100, clusterId: '1111111111111111111' };
  const gw = await fakeGateway(t, state);
  // The EtcdBackup's first Job ran on a node whose clock was a day ahead.
  t.match(await run(s3, gw.url, new Date(Date.UTC(2026, 0, 2, 0))), { succeeded: true });
  for (let h = 1; h < 7; h++) {
    state.revision += 10;
    const r = await run(s3, gw.url, hour(h));
    t.match(r, { succeeded: true });
    t.notOk(r.lineageBreak, 'the same lineage');
  }
  const left = s3.keys('bucket', 'ns/');
  t.ok(left.length <= 3, `maxBackups 2 (and at most the one stamped ahead) kept: ${left.join(', ')}`);
});
