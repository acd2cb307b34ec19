// A lineage goes on only when etcd proves it (issue 30.2): a cluster rebuilt with its identity (same members, same
// token: the same cluster ID) whose revision has grown past the last snapshot again is another history, and the
// revision alone cannot tell. Each periodic snapshot records etcd's HashKV at its revision (and the compact revision
// it counts from); the next backup asks etcd for the HashKV at that revision again: the same hash, the same history;
// another, a break (HistoryDiffers); no answer to compare (compacted since, etcd before 3.3, a snapshot of an older
// metaops), a break too (LineageUnproven): never a prune on doubt. Against the stand-in gateway and S3
// (test/fixtures/fake-s3.ts); on real etcd and moto: test/real/etcdbackup-rebuilt-revision-regrown-real.test.ts.
import t from 'tap';
import { runBackup, type BackupResult } from '../../hooks/etcdbackup/backup.js';
import { compareHistory, META } from '../../hooks/etcdbackup/lineage.js';
import { FakeS3, fakeGateway } from '../fixtures/fake-s3.js';

const hour = (h: number) => new Date(Date.UTC(2026, 0, 1, h));
const CLUSTER = '1111111111111111111';

async function run(s3: FakeS3, url: string, at: Date, max = 1): Promise<BackupResult> {
  return runBackup({
    endpoints: [url],
    path: 'bucket/ns/snap',
    periodic: true,
    maxBackups: max,
    timeoutMs: 2000,
    s3: s3.client,
    now: () => at,
    backup: { uid: 'uid-a', name: 'ns/a' },
  });
}

t.test('compareHistory: the same hash at the same compaction, or no proof', async (t) => {
  const recorded = { [META.hash]: '7', [META.compact]: '-1' };
  t.same(compareHistory(recorded, { hash: '7', compact: '-1' }), { state: 'same' });
  t.same(compareHistory(recorded, { hash: '8', compact: '-1' }), { state: 'differs' });
  t.match(compareHistory(recorded, { hash: '7', compact: '40' }), { state: 'unproven', why: /compacted/ });
  t.match(compareHistory(recorded, 'etcd gave no HashKV'), { state: 'unproven', why: 'etcd gave no HashKV' });
  for (const old of [undefined, null, {}, { [META.hash]: '7' }, { [META.compact]: '-1' }] as Array<
    Record<string, string> | null | undefined
  >)
    t.match(compareHistory(old, { hash: '7', compact: '-1' }), { state: 'unproven', why: /records no HashKV/ });
});

t.test('the same cluster ID rebuilt, its revision grown past the last snapshot: the old history kept', async (t) => {
  const s3 = new FakeS3();
  const state: { revision: number; clusterId: string; history?: string } = { revision: 20, clusterId: CLUSTER };
  const gw = await fakeGateway(t, state);
  const before = await run(s3, gw.url, hour(0));
  state.revision = 25;
  const goesOn = await run(s3, gw.url, hour(1));
  t.notOk(goesOn.lineageBreak, 'the same history: the lineage goes on');
  t.same(goesOn.pruned, [before.key], 'and is pruned to maxBackups (1)');
  // Every member's data lost; bootstrapped again under the same identity, and busy: revision 60 by the next backup.
  state.history = 'rebuilt';
  state.revision = 60;
  const r = await run(s3, gw.url, hour(2));
  t.match(r, {
    succeeded: true,
    lineageBreak: { reason: 'HistoryDiffers', key: goesOn.key, revision: 25 },
    pruned: [],
  });
  t.ok(s3.objects.has(`bucket/${goesOn.key}`), 'the only snapshot of the lost data kept');
  state.revision = 70;
  const next = await run(s3, gw.url, hour(3));
  t.notOk(next.lineageBreak, 'the new history goes on');
  t.same(next.pruned, [r.key], 'its own lineage pruned');
  t.ok(s3.objects.has(`bucket/${goesOn.key}`), 'the old history still kept');
});

t.test('no proof, no prune: compacted since, no HashKV, a snapshot of an older metaops', async (t) => {
  // Compacted past the last snapshot's revision.
  const s3 = new FakeS3();
  const state: { revision: number; clusterId: string; compact?: number; noHashKv?: boolean } = {
    revision: 20,
    clusterId: CLUSTER,
  };
  const gw = await fakeGateway(t, state);
  const first = await run(s3, gw.url, hour(0));
  state.revision = 30;
  state.compact = 25;
  const compacted = await run(s3, gw.url, hour(1));
  t.match(compacted, {
    lineageBreak: { reason: 'LineageUnproven', key: first.key, why: /required revision has been compacted/ },
    pruned: [],
  });
  // Compacted below it: the hash counts from another revision, it cannot be compared.
  state.revision = 40;
  state.compact = 28;
  const moved = await run(s3, gw.url, hour(2));
  t.match(moved, { lineageBreak: { reason: 'LineageUnproven', why: /compact revision 25 then, 28 now/ }, pruned: [] });
  // No compaction since: it goes on.
  state.revision = 50;
  const on = await run(s3, gw.url, hour(3));
  t.notOk(on.lineageBreak);
  t.same(on.pruned, [moved.key]);
  t.same(s3.keys('bucket', 'ns/').sort(), [compacted.key, first.key, on.key].sort(), 'nothing pruned on doubt');

  // etcd without HashKV (before 3.3): every snapshot its own lineage, said in pruneProblem, nothing pruned.
  const old = new FakeS3();
  state.noHashKv = true;
  state.compact = undefined;
  const a = await run(old, gw.url, hour(4));
  t.match(a.pruneProblem, /etcd gave no HashKV .*the next backup cannot prove it continues this lineage/);
  t.notOk(old.objects.get(`bucket/${a.key}`)!.metadata[META.hash], 'no hash recorded');
  state.revision = 60;
  const b = await run(old, gw.url, hour(5));
  t.match(b, { lineageBreak: { reason: 'LineageUnproven', why: /records no HashKV/ }, pruned: [] });
  t.equal(old.keys('bucket', 'ns/').length, 2);

  // Snapshots of an older metaops (no hash): one break, then the lineage begun goes on.
  state.noHashKv = false;
  state.revision = 70;
  const c = await run(old, gw.url, hour(6));
  t.match(c, { lineageBreak: { reason: 'LineageUnproven' }, pruned: [] });
  state.revision = 80;
  const d = await run(old, gw.url, hour(7));
  t.notOk(d.lineageBreak);
  t.same(d.pruned, [c.key]);
  t.ok(old.objects.has(`bucket/${a.key}`) && old.objects.has(`bucket/${b.key}`), 'the unproven ones kept');
});

t.test('the status and the Lineage condition say which break, and why etcd could not prove it', async (t) => {
  const { lineageCondition, lineageStatus } = await import('../../hooks/etcdbackup/sync.js');
  const { ETCDBACKUP_EVENTS } = await import('../../hooks/etcdbackup/events.js');
  const result = (reason: string, why?: string): BackupResult => ({
    succeeded: true,
    clusterId: 'c1',
    lineage: '2026-01-01T02-00-00Z',
    lineageBreak: {
      reason: reason as any,
      ...(why ? { why } : {}),
      key: 'ns/snap_v25_2026-01-01T01-00-00Z',
      revision: 25,
      clusterId: 'c1',
      date: '2026-01-01T01:00:00Z',
    },
  });
  const differs = lineageStatus(undefined, result('HistoryDiffers'), [])!;
  t.match(lineageCondition(differs, 1), {
    status: false,
    reason: 'HistoryDiffers',
    message: /holds another history up to revision 25 than the snapshot ns\/snap_v25_2026-01-01T01-00-00Z recorded/,
  });
  const unproven = lineageStatus(undefined, result('LineageUnproven', `compacted\n${'x'.repeat(400)}`), [])!;
  t.equal(unproven.previous!.why!.length, 240, 'why bounded');
  t.notMatch(unproven.previous!.why!, /\n/, 'and printable');
  t.match(lineageCondition(unproven, 1), {
    status: false,
    reason: 'LineageUnproven',
    message: /etcd could not prove that cluster c1 still holds the history .* \(compacted x+/,
  });
  t.ok(ETCDBACKUP_EVENTS.warnings.has('HistoryDiffers') && ETCDBACKUP_EVENTS.warnings.has('LineageUnproven'));
});
