// A cluster lost and recreated under the same name begins a new lineage (issue 30.2), which maxBackups then prunes.
// The snapshot a periodic backup compares itself with (the lineage "before") is its newest by the node-clock stamp in
// the key (hooks/etcdbackup/backup.ts periodicBackup, previousOwn; lineage.ts newestFirst). One snapshot of the first
// lineage taken on a node whose clock was ahead stays "the newest" until real time passes it: every later run of the
// new cluster is compared with it, breaks again, and begins a lineage of its own; nothing is ever pruned.
import t from 'tap';
import { FakeS3, fakeGateway } from '../fixtures/fake-s3.js';
import { backupAt } from '../fixtures/periodic-backup.js';

const hour = (h: number) => new Date(Date.UTC(2026, 0, 1, h));
const CLUSTER_1 = '1111111111111111111';
const CLUSTER_2 = '2222222222222222222';

const run = backupAt;

t.test(
  'a recreated cluster: its new lineage is pruned to maxBackups though the first one has a snapshot stamped ahead',
  async (t) => {
    const s3 = new FakeS3();
    const state = { revision: 5000, clusterId: CLUSTER_1 };
    const gw = await fakeGateway(t, state);
    state.revision += 100;
    await run(s3, gw.url, hour(0));
    // The first cluster's last backup ran on a node whose clock was a day ahead.
    state.revision += 100;
    t.match(await run(s3, gw.url, new Date(Date.UTC(2026, 0, 2, 1))), { succeeded: true });
    const first = s3.keys('bucket', 'ns/');
    // Lost and recreated under the same name: a new cluster ID, an empty store.
    state.clusterId = CLUSTER_2;
    state.revision = 1;
    t.match(await run(s3, gw.url, hour(2)), { succeeded: true, lineageBreak: { reason: 'EtcdClusterChanged' } });
    const breaks: string[] = [];
    for (let h = 3; h < 8; h++) {
      state.revision += 1;
      const r = await run(s3, gw.url, hour(h));
      t.match(r, { succeeded: true });
      if (r.lineageBreak) breaks.push(`${h}:00 ${r.lineageBreak.reason} after ${r.lineageBreak.key}`);
    }
    t.same(breaks, [], 'the new lineage goes on: one break, at the recreation');
    const left = s3.keys('bucket', 'ns/');
    for (const k of first) t.ok(left.includes(k), `${k} of the first lineage survives`);
    t.same(
      left.filter((k) => !first.includes(k)).sort(),
      ['ns/snap_v6_2026-01-01T07-00-00Z', 'ns/snap_v5_2026-01-01T06-00-00Z'].sort(),
      'the new lineage is pruned to two',
    );
  },
);
