// Pruning reads the snapshots stamped from the lineage's start on (hooks/etcdbackup/backup.ts pruneLineage). Stamps
// are the clock of the node each backup Job ran on: a run on a node whose clock is behind stamps its snapshot before
// the lineage began. It is still of the lineage (its metadata says so, its revision the highest then) and must be
// pruned with it once newer revisions are taken, not kept for ever beside maxBackups.
import t from 'tap';
import { FakeS3, fakeGateway } from '../fixtures/fake-s3.js';
import { backupAt } from '../fixtures/periodic-backup.js';

const hour = (h: number) => new Date(Date.UTC(2026, 0, 1, h));

const run = backupAt;

t.test('a snapshot taken on a node whose clock was a day behind is pruned with its lineage', async (t) => {
  const s3 = new FakeS3();
  const state = { revision: 100, clusterId: '1111111111111111111' };
  const gw = await fakeGateway(t, state);
  t.match(await run(s3, gw.url, hour(5)), { succeeded: true });
  // The next Job runs on a node whose clock is a day behind.
  state.revision += 10;
  const behind = await run(s3, gw.url, new Date(Date.UTC(2025, 11, 31, 6)));
  t.match(behind, { succeeded: true });
  t.notOk(behind.lineageBreak, 'the same lineage');
  const kept: string[] = [];
  for (let h = 7; h < 11; h++) {
    state.revision += 10;
    const r = await run(s3, gw.url, hour(h));
    t.match(r, { succeeded: true });
    t.notOk(r.lineageBreak, 'the same lineage');
    kept.push(r.key!);
  }
  t.same(s3.keys('bucket', 'ns/').sort(), kept.slice(-2).sort(), 'the two highest revisions kept, no other');
});
