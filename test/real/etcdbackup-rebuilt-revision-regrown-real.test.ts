// Backups on real etcd and moto (issue 30.2): a revision that goes backwards without an EtcdRestore is never
// pruned over, also when it has grown past the last snapshot again by the next firing. Helpers in
// test/fixtures/backup-lineage.ts, as test/real/etcdbackup-lineage-real.test.ts uses them.
import t from 'tap';
import { BackupsOnMoto } from '../fixtures/backup-lineage.js';

const on = new BackupsOnMoto(['backups', 'shared']);
const { cluster, objects, periodic, fire } = on;

// The same cluster ID comes back with a fresh history (every member's data lost and the cluster bootstrapped again
// under the same names and token, as 'the same cluster rebuilt with its identity' above), and it is busy: by the
// next firing its revision has grown past the last snapshot of the old history. The revision is then higher, but
// it counts a different history: the snapshots of the lost data must not be pruned by those of the new one.
t.test(
  'the same cluster rebuilt with its identity, its revision grown past the last snapshot before the next backup: the old history is never pruned over',
  async (t) => {
    const path = 'backups/default/regrown/snap';
    const cron = on.rig.hook(periodic(path, 1, 'regrown'), { clusters: ['regrown'] }).children[0]!;
    const first = await cluster('regrown');
    for (let i = 0; i < 20; i++) await first.put(`k${i}`, 'the real data');
    const before = await fire(first, cron);
    t.ok(before.succeeded, `a snapshot of the real data at revision ${before.etcdRevision}`);
    await first.shutdown(); // every member's data lost

    const again = await cluster('regrown');
    t.teardown(() => again.shutdown());
    // A busy cluster: more writes in the hour between two firings than the old history had in all.
    for (let i = 0; i < 40; i++) await again.put(`new${i}`, 'a new history');
    const r = await fire(again, cron);
    t.equal(r.clusterId, before.clusterId, 'the same cluster ID (same members, same token)');
    t.ok(r.etcdRevision > before.etcdRevision, `revision ${r.etcdRevision}, past ${before.etcdRevision}`);
    const left = await objects('backups', 'default/regrown/');
    t.ok(left.has(before.key), `${before.key}, the only snapshot of the lost data, kept`);
    t.notMatch(r, { pruned: [before.key] }, 'not pruned by the new history');
    t.match(r, { lineageBreak: { reason: 'HistoryDiffers', key: before.key } }, 'etcd told another history apart');
  },
);

// The proof is etcd's HashKV at the last snapshot's revision, which counts from the compact revision: a compaction
// since leaves nothing to compare, and that doubt never prunes. The lineage begun then goes on and is pruned.
t.test('a compaction since the last snapshot: no proof, nothing pruned; the lineage begun then goes on', async (t) => {
  const path = 'backups/default/compacted/snap';
  const cron = on.rig.hook(periodic(path, 1, 'compacted'), { clusters: ['compacted'] }).children[0]!;
  const k = await cluster('compacted');
  t.teardown(() => k.shutdown());
  const first = await fire(k, cron);
  const same = await fire(k, cron);
  t.notOk(same.lineageBreak, 'the same history proven: the lineage goes on');
  t.same(same.pruned, [first.key], 'and is pruned to maxBackups (1)');
  await k.put('tick', 'before the compaction');
  const res = await fetch(`${k.endpoint(k.livePods()[0]!)}/v3/kv/compaction`, {
    method: 'POST',
    body: JSON.stringify({ revision: String(same.etcdRevision + 1), physical: true }),
  });
  t.equal(res.status, 200, 'compacted past the last snapshot');
  const after = await fire(k, cron);
  t.match(after, { lineageBreak: { reason: 'LineageUnproven', key: same.key, why: /compacted/ }, pruned: [] });
  const next = await fire(k, cron);
  t.notOk(next.lineageBreak, 'the lineage begun after the compaction goes on');
  t.same(next.pruned, [after.key]);
  const left = await objects('backups', 'default/compacted/');
  t.ok(left.has(same.key), `${same.key}, of the lineage before the compaction, kept`);
});
