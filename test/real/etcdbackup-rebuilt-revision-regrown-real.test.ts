// Backups on real etcd and moto (issue 30.2): a revision that goes backwards without an EtcdRestore is never
// pruned over, also when it has grown past the last snapshot again by the next firing. Helpers in
// test/fixtures/backup-lineage.ts, as test/real/etcdbackup-lineage-real.test.ts uses them.
import t from 'tap';
import { BackupsOnMoto } from '../fixtures/backup-lineage.js';
import type { EtcdKubelet } from '../fixtures/etcd-kubelet.js';

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
    const first = await cluster('regrown');
    const cron = on.rig.hook(periodic(path, 1, 'regrown'), { clusters: ['regrown'] }).children[0]!;
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

/** etcd's routine compaction (what kube-apiserver asks every 5 minutes), physical, up to `revision`. */
async function compact(t: any, k: EtcdKubelet, revision: number): Promise<void> {
  const res = await fetch(`${k.endpoint(k.livePods()[0]!)}/v3/kv/compaction`, {
    method: 'POST',
    body: JSON.stringify({ revision: String(revision), physical: true }),
  });
  t.equal(res.status, 200, `compacted up to revision ${revision}`);
}

// The first proof is etcd's HashKV at the last snapshot's revision, which counts from the compact revision: a
// compaction since leaves nothing to compare. The keys recorded with the snapshot (lineage.ts, WitnessKey) are what
// a compaction keeps: the same history still holds them (unchanged, or modified since with the same creation), so
// the lineage goes on and is pruned. With every one of them deleted since, nothing proves it: nothing is pruned.
t.test(
  'a compaction since the last snapshot: the keys etcd kept prove the same history; with them all deleted, nothing is pruned',
  async (t) => {
    const path = 'backups/default/compacted/snap';
    const k = await cluster('compacted');
    const cron = on.rig.hook(periodic(path, 1, 'compacted'), { clusters: ['compacted'] }).children[0]!;
    t.teardown(() => k.shutdown());
    for (let i = 0; i < 6; i++) await k.put(`stable${i}`, 'kept as it is');
    const first = await fire(k, cron);
    const same = await fire(k, cron);
    t.notOk(same.lineageBreak, 'the same history proven: the lineage goes on');
    t.same(same.pruned, [first.key], 'and is pruned to maxBackups (1)');
    await k.put('tick', 'before the compaction');
    await compact(t, k, same.etcdRevision + 1);
    const after = await fire(k, cron);
    t.notOk(after.lineageBreak, 'compacted past the last snapshot: proven by the keys etcd kept');
    t.same(after.pruned, [same.key], 'pruned to maxBackups (1)');
    // Every key deleted and others written: nothing recorded is left to prove the history by.
    const res = await fetch(`${k.endpoint(k.livePods()[0]!)}/v3/kv/deleterange`, {
      method: 'POST',
      body: JSON.stringify({ key: 'AA==', range_end: 'AA==' }),
    });
    t.equal(res.status, 200, 'every key deleted');
    await k.put('other', 'written since');
    await compact(t, k, after.etcdRevision + 2);
    const unproven = await fire(k, cron);
    t.match(unproven, {
      lineageBreak: { reason: 'LineageUnproven', key: after.key, why: /compacted.*none of the/ },
      pruned: [],
    });
    const next = await fire(k, cron);
    t.notOk(next.lineageBreak, 'the lineage begun then goes on');
    t.same(next.pruned, [unproven.key]);
    const left = await objects('backups', 'default/compacted/');
    t.ok(left.has(after.key), `${after.key}, of the lineage before, kept`);
  },
);

// The same cluster ID with a fresh history, compacted before the next backup (etcd's HashKV then proves nothing
// either way): the keys recorded with the last snapshot of the lost data are not there as that history left them,
// so nothing of it is pruned.
t.test(
  'the same cluster rebuilt with its identity and compacted before the next backup: the old history is never pruned over',
  async (t) => {
    const path = 'backups/default/rebuiltcompacted/snap';
    const first = await cluster('rebuiltcompacted');
    const cron = on.rig.hook(periodic(path, 1, 'rebuiltcompacted'), { clusters: ['rebuiltcompacted'] }).children[0]!;
    for (let i = 0; i < 20; i++) await first.put(`k${i}`, 'the real data');
    const before = await fire(first, cron);
    t.ok(before.succeeded);
    await first.shutdown();
    const again = await cluster('rebuiltcompacted');
    t.teardown(() => again.shutdown());
    // The same keys written again in the same order (a deterministic bootstrap), then others.
    for (let i = 0; i < 20; i++) await again.put(`k${i}`, 'the real data');
    for (let i = 0; i < 20; i++) await again.put(`new${i}`, 'a new history');
    await compact(t, again, before.etcdRevision + 10);
    const r = await fire(again, cron);
    t.equal(r.clusterId, before.clusterId, 'the same cluster ID');
    t.ok(r.etcdRevision > before.etcdRevision, `revision ${r.etcdRevision}, past ${before.etcdRevision}`);
    t.match(r, { lineageBreak: { key: before.key, reason: /^(HistoryDiffers|LineageUnproven)$/ }, pruned: [] });
    t.ok((await objects('backups', 'default/rebuiltcompacted/')).has(before.key), `${before.key} kept`);
  },
);
