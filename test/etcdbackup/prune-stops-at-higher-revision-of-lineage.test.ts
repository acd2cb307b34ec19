// Pruning keeps a lineage's highest revisions (hooks/etcdbackup/lineage.ts toPrune). The snapshot a run compares
// itself with is found among the newest few by the stamp in the name, a node's clock (backup.ts previousOwn): a
// snapshot of the same lineage at a higher revision than etcd has now, stamped by a clock that ran behind, can lie
// beyond them. The revision went back: nothing is pruned, and that is said, rather than prune the snapshots taken
// before it over the lower revision written now.
import t from 'tap';
import { FakeS3, fakeGateway } from '../fixtures/fake-s3.js';
import { backupAt, CLUSTER, lineageMeta } from '../fixtures/periodic-backup.js';

const stampAt = (m: number) => `2026-01-01T00-${String(m).padStart(2, '0')}-00Z`;
const meta = lineageMeta;

t.test('a snapshot of the lineage above the revision written now: nothing pruned, and said', async (t) => {
  const s3 = new FakeS3();
  // Twelve snapshots of the lineage (revisions 100..111), and one at revision 500 stamped before them all by a node
  // whose clock ran behind (the lineage's floor recorded by the next one).
  s3.put('bucket', 'ns/snap_v500_2025-12-31T00-00-00Z', 'x', meta(500));
  for (let m = 0; m < 12; m++)
    s3.put('bucket', `ns/snap_v${100 + m}_${stampAt(m + 1)}`, 'x', meta(100 + m, '2025-12-31T00-00-00Z'));
  const gw = await fakeGateway(t, { revision: 120, clusterId: CLUSTER });
  const r = await backupAt(s3, gw.url, new Date(Date.UTC(2026, 0, 1, 1)), { maxBackups: 3 });
  t.match(r, { succeeded: true, pruned: [], pruneProblem: /revision 500, above the 120 just written/ });
  t.equal(s3.keys('bucket', 'ns/').length, 14, 'every snapshot kept');
});
