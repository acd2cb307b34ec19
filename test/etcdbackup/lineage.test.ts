// Periodic backups prune only their own lineage, and a one-off backup never overwrites a snapshot (issue 30.2, 30.3):
// the backup command (hooks/etcdbackup/backup.ts, lineage.ts) against a stand-in etcd gateway and an in-memory S3
// that keeps object metadata. Each run's S3 is the next run's: what one run wrote is what the next one reads. The
// same cases on real etcd and moto: test/real/etcdbackup-real.test.ts.
import t from 'tap';
import {
  clusterIdOf,
  MAX_EXAMINED,
  MAX_LISTED,
  PART_SIZE,
  runBackup,
  type BackupResult,
} from '../../hooks/etcdbackup/backup.js';
import {
  dateOfStamp,
  decideLineage,
  META,
  newestFirst,
  periodicSnapshot,
  stampOf,
  toPrune,
  type Snapshot,
} from '../../hooks/etcdbackup/lineage.js';
import { FakeS3, fakeGateway, fakeKvHash, s3Error } from '../fixtures/fake-s3.js';

const hour = (h: number) => new Date(Date.UTC(2026, 0, 1, h));
const CLUSTER_1 = '1111111111111111111';
const CLUSTER_2 = '2222222222222222222';
const hex = (decimal: string) => BigInt(decimal).toString(16);

interface Run {
  uid?: string;
  at: Date;
  max?: number;
  periodic?: boolean;
  path?: string;
}

async function run(s3: FakeS3, url: string, r: Run): Promise<BackupResult> {
  return runBackup({
    endpoints: [url],
    path: r.path ?? 'bucket/ns/snap',
    periodic: r.periodic ?? true,
    maxBackups: r.max ?? 2,
    timeoutMs: 2000,
    s3: s3.client,
    now: () => r.at,
    ...(r.uid === undefined
      ? { backup: { uid: 'uid-a', name: 'ns/a' } }
      : r.uid
        ? { backup: { uid: r.uid, name: `ns/${r.uid}` } }
        : {}),
  });
}

const snap = (key: string, meta?: Record<string, string> | null): Snapshot => ({
  ...periodicSnapshot('p', key)!,
  ...(meta !== undefined ? { meta } : {}),
});
/** A snapshot's metadata as a backup of the stand-in gateway's history `h1` writes it (its HashKV included). */
const lineageMeta = (uid: string, cluster: string, since: string, revision = 1): Record<string, string> => ({
  [META.uid]: uid,
  [META.cluster]: cluster,
  [META.since]: since,
  [META.revision]: String(revision),
  [META.hash]: String(fakeKvHash('h1', revision)),
  [META.compact]: '-1',
});

t.test('lineage.ts: the names, the order and the decisions', async (t) => {
  t.same(periodicSnapshot('p', 'p_v12_2026-01-01T00-00-00Z'), {
    key: 'p_v12_2026-01-01T00-00-00Z',
    revision: 12,
    stamp: '2026-01-01T00-00-00Z',
  });
  for (const other of [
    'p',
    'p_v1',
    'p_v2_v50_2026-01-01T00-00-00Z',
    'p_vx_2026-01-01T00-00-00Z',
    'q_v1_2026-01-01T00-00-00Z',
    'p_v1_2026-01-01T00-00-00Z.bak',
  ])
    t.equal(periodicSnapshot('p', other), undefined, `${other} is not a periodic snapshot of p`);
  t.equal(stampOf(new Date('2026-01-02T03:04:05.678Z')), '2026-01-02T03-04-05Z');
  t.equal(dateOfStamp('2026-01-02T03-04-05Z'), '2026-01-02T03:04:05Z');
  t.equal(dateOfStamp('garbage'), '');
  const order = ['p_v5_2026-01-01T01-00-00Z', 'p_v9_2026-01-01T00-00-00Z', 'p_v7_2026-01-01T01-00-00Z'].map((k) =>
    snap(k),
  );
  t.same(
    order.sort(newestFirst).map((s) => s.key),
    ['p_v7_2026-01-01T01-00-00Z', 'p_v5_2026-01-01T01-00-00Z', 'p_v9_2026-01-01T00-00-00Z'],
    'newest by date, then the higher revision',
  );

  const since = '2026-01-01T00-00-00Z';
  const prev = snap('p_v100_2026-01-01T02-00-00Z', {
    ...lineageMeta('u', 'c1', since, 100),
    [META.taken]: '2026-01-01T02:00:00.000Z',
  });
  t.same(
    decideLineage(undefined, 'u', 'c1', 5, 'S'),
    { lineage: { uid: 'u', clusterId: 'c1', since: 'S' } },
    'a first snapshot',
  );
  const same = { state: 'same' } as const;
  t.same(
    decideLineage(prev, 'u', 'c1', 100, 'S', same),
    { lineage: { uid: 'u', clusterId: 'c1', since } },
    'the same revision goes on, etcd proving the same history',
  );
  t.same(
    decideLineage(prev, 'u', 'c1', 150, 'S', same),
    { lineage: { uid: 'u', clusterId: 'c1', since } },
    'a higher one too',
  );
  const broken = (reason: string, why?: string) => ({
    lineage: { uid: 'u', clusterId: 'c1', since: 'S' },
    break: {
      reason,
      ...(why ? { why } : {}),
      key: 'p_v100_2026-01-01T02-00-00Z',
      revision: 100,
      clusterId: 'c1',
      date: '2026-01-01T02:00:00.000Z',
    },
  });
  t.same(
    decideLineage(prev, 'u', 'c1', 150, 'S', { state: 'differs' }),
    broken('HistoryDiffers'),
    'a higher revision of another history: rebuilt with its identity',
  );
  t.same(
    decideLineage(prev, 'u', 'c1', 150, 'S', { state: 'unproven', why: 'compacted' }),
    broken('LineageUnproven', 'compacted'),
    'no proof: a new lineage, never a prune on doubt',
  );
  t.same(
    decideLineage(prev, 'u', 'c1', 150, 'S'),
    broken('LineageUnproven', 'etcd was not asked'),
    'etcd not asked: no proof',
  );
  t.same(
    decideLineage(prev, 'u', 'c1', 99, 'S', same).break?.reason,
    'RevisionWentBack',
    'a revision gone back is a break whatever the hash',
  );
  t.same(decideLineage(prev, 'u', 'c1', 99, 'S'), {
    lineage: { uid: 'u', clusterId: 'c1', since: 'S' },
    break: {
      reason: 'RevisionWentBack',
      key: prev.key,
      revision: 100,
      clusterId: 'c1',
      date: '2026-01-01T02:00:00.000Z',
    },
  });
  t.same(decideLineage(prev, 'u', 'c2', 500, 'S'), {
    lineage: { uid: 'u', clusterId: 'c2', since: 'S' },
    break: {
      reason: 'EtcdClusterChanged',
      key: prev.key,
      revision: 100,
      clusterId: 'c1',
      date: '2026-01-01T02:00:00.000Z',
    },
  });
  t.same(
    decideLineage(prev, 'v', 'c1', 500, 'S'),
    { lineage: { uid: 'v', clusterId: 'c1', since: 'S' } },
    "another EtcdBackup's is no lineage of mine",
  );
  t.same(
    decideLineage(snap('p_v3_2026-01-01T02-00-00Z', { [META.uid]: 'u' }), 'u', 'c1', 1, 'S'),
    { lineage: { uid: 'u', clusterId: 'c1', since: 'S' } },
    'metadata without a whole lineage: a new one, no break claimed',
  );
  t.equal(
    decideLineage(snap('p_v3_2026-01-01T02-00-00Z', lineageMeta('u', 'c1', since, 3)), 'u', 'c1', 2, 'S').break?.date,
    '2026-01-01T02:00:00Z',
    'the date from the name when the metadata has none',
  );

  const mine = { uid: 'u', clusterId: 'c1', since };
  const all = [
    snap('p_v1_2026-01-01T00-00-00Z', lineageMeta('u', 'c1', since)),
    snap('p_v2_2026-01-01T01-00-00Z', lineageMeta('u', 'c1', since)),
    snap('p_v3_2026-01-01T02-00-00Z', lineageMeta('u', 'c1', since)),
    snap('p_v4_2026-01-01T03-00-00Z', lineageMeta('other', 'c1', since)),
    snap('p_v5_2026-01-01T03-30-00Z', lineageMeta('u', 'c2', since)),
    snap('p_v6_2026-01-01T03-40-00Z', lineageMeta('u', 'c1', '2025-12-01T00-00-00Z')),
    snap('p_v0_2025-01-01T00-00-00Z', null),
    snap('p_v0_2025-01-01T00-00-01Z', {}),
    snap('p_v0_2025-01-01T00-00-02Z'),
  ];
  const written = 'p_v9_2026-01-01T04-00-00Z';
  t.same(
    toPrune(all, mine, 2, written),
    ['p_v2_2026-01-01T01-00-00Z', 'p_v1_2026-01-01T00-00-00Z'],
    'its own, beyond the newest, the written counting',
  );
  t.same(toPrune(all, mine, 1, written), [
    'p_v3_2026-01-01T02-00-00Z',
    'p_v2_2026-01-01T01-00-00Z',
    'p_v1_2026-01-01T00-00-00Z',
  ]);
  t.same(toPrune(all, mine, 4, written), []);
  t.same(toPrune(all, mine, 0, written), [], 'maxBackups 0 keeps all');
  t.same(
    toPrune([...all, snap(written, lineageMeta('u', 'c1', since))], mine, 1, written),
    toPrune(all, mine, 1, written),
    'the written one is never pruned',
  );
});

t.test('periodic backups with maxBackups 2 keep the two newest of their lineage, metadata recorded', async (t) => {
  const s3 = new FakeS3();
  const gw = await fakeGateway(t, { revision: 10, clusterId: CLUSTER_1 });
  const results: BackupResult[] = [];
  for (let i = 0; i < 4; i++) {
    results.push(await run(s3, gw.url, { at: hour(i) }));
  }
  t.same(
    results.map((r) => r.succeeded),
    [true, true, true, true],
  );
  t.same(s3.keys('bucket', 'ns/'), ['ns/snap_v10_2026-01-01T02-00-00Z', 'ns/snap_v10_2026-01-01T03-00-00Z']);
  t.match(results[3], {
    clusterId: hex(CLUSTER_1),
    lineage: '2026-01-01T00-00-00Z',
    pruned: ['ns/snap_v10_2026-01-01T01-00-00Z'],
  });
  t.notOk(results[3]!.lineageBreak);
  t.same(s3.objects.get('bucket/ns/snap_v10_2026-01-01T03-00-00Z')!.metadata, {
    [META.uid]: 'uid-a',
    [META.backup]: 'ns/a',
    [META.cluster]: hex(CLUSTER_1),
    [META.revision]: '10',
    [META.version]: '3.6.9',
    [META.since]: '2026-01-01T00-00-00Z',
    [META.taken]: '2026-01-01T03:00:00.000Z',
    [META.hash]: s3.objects.get('bucket/ns/snap_v10_2026-01-01T03-00-00Z')!.metadata[META.hash],
    [META.compact]: '-1',
  });
  t.match(s3.objects.get('bucket/ns/snap_v10_2026-01-01T03-00-00Z')!.metadata[META.hash], /^\d+$/, "etcd's HashKV");
});

t.test('a cluster lost and recreated under the same name: every snapshot of the first lineage survives', async (t) => {
  const s3 = new FakeS3();
  const state = { revision: 5000, clusterId: CLUSTER_1 };
  const gw = await fakeGateway(t, state);
  for (let i = 0; i < 3; i++) {
    state.revision += 100;
    await run(s3, gw.url, { at: hour(i) });
  }
  const first = s3.keys('bucket', 'ns/');
  t.equal(first.length, 2);
  // Recreated: a new cluster ID, an empty store.
  state.clusterId = CLUSTER_2;
  state.revision = 1;
  const broke = await run(s3, gw.url, { at: hour(3) });
  t.match(broke, {
    succeeded: true,
    lineage: '2026-01-01T03-00-00Z',
    lineageBreak: { reason: 'EtcdClusterChanged', key: first[1], revision: 5300, clusterId: hex(CLUSTER_1) },
    pruned: [],
  });
  for (let i = 4; i < 9; i++) {
    state.revision += 1;
    const r = await run(s3, gw.url, { at: hour(i) });
    t.notOk(r.lineageBreak, 'the new lineage goes on');
  }
  const left = s3.keys('bucket', 'ns/');
  for (const k of first) t.ok(left.includes(k), `${k} of the first lineage survives`);
  t.same(
    left.filter((k) => !first.includes(k)),
    ['ns/snap_v5_2026-01-01T07-00-00Z', 'ns/snap_v6_2026-01-01T08-00-00Z'],
    'the new lineage is pruned to two',
  );
});

t.test('the same cluster ID, its revision gone back: reported, never pruned over', async (t) => {
  const s3 = new FakeS3();
  const state = { revision: 900, clusterId: CLUSTER_1 };
  const gw = await fakeGateway(t, state);
  await run(s3, gw.url, { at: hour(0) });
  state.revision = 950;
  await run(s3, gw.url, { at: hour(1) });
  state.revision = 3;
  const r = await run(s3, gw.url, { at: hour(2) });
  t.match(r, { lineageBreak: { reason: 'RevisionWentBack', revision: 950, key: 'ns/snap_v950_2026-01-01T01-00-00Z' } });
  for (let i = 3; i < 6; i++) {
    state.revision += 1;
    await run(s3, gw.url, { at: hour(i), max: 1 });
  }
  t.same(s3.keys('bucket', 'ns/'), [
    'ns/snap_v6_2026-01-01T05-00-00Z',
    'ns/snap_v900_2026-01-01T00-00-00Z',
    'ns/snap_v950_2026-01-01T01-00-00Z',
  ]);
});

t.test('two EtcdBackups on one path, and one recreated under the same name, keep each other’s backups', async (t) => {
  const s3 = new FakeS3();
  const state = { revision: 10, clusterId: CLUSTER_1 };
  const gw = await fakeGateway(t, state);
  for (let i = 0; i < 6; i++) {
    state.revision += 1;
    await run(s3, gw.url, { uid: 'uid-a', at: new Date(hour(i).getTime()) });
    await run(s3, gw.url, { uid: 'uid-b', at: new Date(hour(i).getTime() + 60_000), max: 3 });
  }
  const whose = (uid: string) =>
    s3.keys('bucket', 'ns/').filter((k) => s3.objects.get(`bucket/${k}`)!.metadata[META.uid] === uid);
  t.equal(whose('uid-a').length, 2, 'a keeps its 2');
  t.equal(whose('uid-b').length, 3, 'b keeps its 3');
  // a is deleted and recreated under the same name: a new UID.
  const before = whose('uid-a');
  for (let i = 6; i < 10; i++) {
    state.revision += 1;
    await run(s3, gw.url, { uid: 'uid-a2', at: hour(i) });
  }
  t.same(whose('uid-a'), before, "the earlier EtcdBackup's snapshots are kept");
  t.equal(whose('uid-a2').length, 2);
  t.equal(whose('uid-b').length, 3);
});

t.test('objects without a lineage (etcd-operator, an older metaops, a copy by hand) are never pruned', async (t) => {
  const s3 = new FakeS3();
  s3.put('bucket', 'ns/snap_v1_2025-01-01T00-00-00Z');
  s3.put('bucket', 'ns/snap_v2_2025-06-01T00-00-00Z', 'x', { [META.uid]: 'uid-a' });
  s3.put('bucket', 'ns/snap', 'one-off');
  const gw = await fakeGateway(t, { revision: 10, clusterId: CLUSTER_1 });
  for (let i = 0; i < 4; i++) await run(s3, gw.url, { at: hour(i), max: 1 });
  t.same(s3.keys('bucket', 'ns/'), [
    'ns/snap',
    'ns/snap_v10_2026-01-01T03-00-00Z',
    'ns/snap_v1_2025-01-01T00-00-00Z',
    'ns/snap_v2_2025-06-01T00-00-00Z',
  ]);
  // A Job of an older hook names no EtcdBackup: it writes, and prunes nothing.
  const old = await run(s3, gw.url, { uid: '', at: hour(5), max: 1 });
  t.match(old, {
    succeeded: true,
    pruned: [],
    pruneProblem: 'this Job does not name its EtcdBackup (made by an older hook): nothing pruned',
  });
  t.equal(s3.objects.get('bucket/ns/snap_v10_2026-01-01T05-00-00Z')!.metadata[META.since], '2026-01-01T05-00-00Z');
  // Its listing fails too: both said, within the bound.
  s3.fault = (cmd) => (cmd === 'ListObjectsV2' ? s3Error('InternalError', 500, 'x'.repeat(1000)) : undefined);
  const both = await run(s3, gw.url, { uid: '', at: hour(6), max: 1 });
  t.match(
    both.pruneProblem,
    /^the snapshots under s3:\/\/bucket\/ns\/snap could not be listed, nothing pruned: InternalError: x+$/,
  );
  t.equal(both.pruneProblem!.length, 600);
  s3.fault = undefined;
  const bothShort = await run(s3, gw.url, { uid: '', at: hour(7), max: 1 });
  t.equal(bothShort.pruneProblem, 'this Job does not name its EtcdBackup (made by an older hook): nothing pruned');
  t.equal(s3.keys('bucket', 'ns/').length, 7, 'three more written, none pruned');
});

t.test('S3 half-working: a failed delete, list or metadata read costs the pruning, never the snapshot', async (t) => {
  const s3 = new FakeS3();
  const gw = await fakeGateway(t, { revision: 10, clusterId: CLUSTER_1 });
  const second = await fakeGateway(t, { revision: 10, clusterId: CLUSTER_1 });
  for (let i = 0; i < 3; i++) await run(s3, gw.url, { at: hour(i) });
  t.equal(s3.keys().length, 2);

  s3.fault = (cmd) => (cmd === 'DeleteObject' ? s3Error('AccessDenied', 403, 'Access Denied') : undefined);
  const denied = await runBackup({
    endpoints: [gw.url, second.url],
    path: 'bucket/ns/snap',
    periodic: true,
    maxBackups: 2,
    timeoutMs: 2000,
    s3: s3.client,
    now: () => hour(3),
    backup: { uid: 'uid-a', name: 'ns/a' },
  });
  t.match(denied, {
    succeeded: true,
    key: 'ns/snap_v10_2026-01-01T03-00-00Z',
    pruned: [],
    pruneProblem: /pruning stopped after 0 deletion\(s\): AccessDenied/,
  });
  t.same(second.posts, [], 'no second endpoint tried: one snapshot written');
  t.equal(s3.keys().length, 3);

  s3.fault = (cmd) =>
    cmd === 'ListObjectsV2' ? s3Error('InternalError', 500, 'We encountered an internal error') : undefined;
  const unlisted = await run(s3, gw.url, { at: hour(4) });
  t.match(unlisted, {
    succeeded: true,
    pruned: [],
    pruneProblem: /could not be listed, nothing pruned: InternalError/,
  });
  t.equal(s3.keys().length, 4);

  // Back to normal at once: the lineage the snapshot of hour 4 began (its listing failed) goes on and is pruned.
  s3.fault = undefined;
  const next = await run(s3, gw.url, { at: hour(5), max: 1 });
  t.same(next.pruned, ['ns/snap_v10_2026-01-01T04-00-00Z']);
  t.notOk(next.pruneProblem);

  // Metadata unreadable (no s3:GetObject): nothing is anyone's, nothing pruned, each object read once, and the
  // snapshot just written read back once: maxBackups cannot hold, and that is said (issue 30.2, a dependency that
  // half-works: silence would let the path grow without bound while status says every backup is fine).
  s3.fault = (cmd) => (cmd === 'HeadObject' ? s3Error('Forbidden', 403) : undefined);
  const heads = s3.count('HeadObject');
  const blind = await run(s3, gw.url, { at: hour(6), max: 1 });
  t.match(blind, {
    succeeded: true,
    pruned: [],
    pruneProblem:
      /^nothing pruned, maxBackups 1 does not hold: the snapshot just written could not be read back to check its lineage \(Forbidden/,
  });
  t.equal(s3.count('HeadObject') - heads, 5, 'the four snapshots there, each read once, and the one written');
  t.equal(s3.keys().length, 5);
  t.ok(s3.objects.has('bucket/ns/snap_v10_2026-01-01T03-00-00Z'), 'the lineage before the failed listing is kept');

  // The upload itself fails: a failed result, nothing deleted.
  const before = s3.keys();
  s3.fault = (cmd) => (cmd === 'PutObject' ? s3Error('SlowDown', 503, 'Please reduce your request rate') : undefined);
  t.match(await run(s3, gw.url, { at: hour(7) }), { succeeded: false, reason: /upload .* failed: SlowDown/ });
  t.same(s3.keys(), before);
});

t.test('thousands of objects under the path: bounded reads, the lineage still pruned', async (t) => {
  const s3 = new FakeS3();
  // 3,000 snapshots of an earlier lineage (another cluster) and 2,000 objects of nobody.
  for (let i = 0; i < 3000; i++)
    s3.put(
      'bucket',
      `ns/snap_v${i}_2025-0${1 + (i % 9)}-01T00-00-00Z`.replace(
        /T00-00-00Z$/,
        `T00-${String(Math.floor(i / 60) % 60).padStart(2, '0')}-${String(i % 60).padStart(2, '0')}Z`,
      ),
      'x',
      lineageMeta('uid-a', 'old', '2025-01-01T00-00-00Z'),
    );
  for (let i = 0; i < 2000; i++) s3.put('bucket', `ns/snap_v${i}_2024-01-01T00-00-00Z.copy${i}`);
  const gw = await fakeGateway(t, { revision: 10, clusterId: CLUSTER_1 });
  const first = await run(s3, gw.url, { at: hour(0) });
  t.match(first, { lineageBreak: { reason: 'EtcdClusterChanged' } });
  const heads = s3.count('HeadObject');
  t.ok(heads <= 16, `the previous snapshot found in ${heads} metadata reads`);
  for (let i = 1; i < 4; i++) await run(s3, gw.url, { at: hour(i) });
  const perRun = (s3.count('HeadObject') - heads) / 3;
  t.ok(perRun <= 20, `${perRun} metadata reads per run, not one per object`);
  t.equal(s3.keys('bucket', 'ns/').length, 5002, 'the earlier 3,000 and the other 2,000 kept, 2 of the lineage');
  t.ok(s3.count('ListObjectsV2') / 4 <= 6, 'the listing paged');
});

t.test('more keys than the listing bound: nothing pruned, and said', async (t) => {
  const s3 = new FakeS3();
  const gw = await fakeGateway(t, { revision: 10, clusterId: CLUSTER_1 });
  await run(s3, gw.url, { at: hour(0), max: 1 });
  // With the snapshot of hour 0, one key more than the bound under the prefix.
  for (let i = 0; i < MAX_LISTED; i++) s3.put('bucket', `ns/snap_v${i}_zz`);
  const r = await run(s3, gw.url, { at: hour(1), max: 1 });
  t.match(r, {
    succeeded: true,
    pruned: [],
    pruneProblem: `more than ${MAX_LISTED} objects under s3://bucket/ns/snap_v: nothing pruned`,
  });
  t.equal(s3.keys('bucket', 'ns/snap_v10_2026').length, 2, 'both snapshots of the lineage kept');
  t.equal(s3.count('ListObjectsV2'), 1 + MAX_LISTED / 1000, 'listing stopped at the bound');

  // Keys under the path but outside the prefix of its snapshots are not listed.
  const other = new FakeS3();
  for (let i = 0; i < MAX_LISTED + 5; i++) other.put('bucket', `ns/other/x${i}`);
  for (let i = 0; i < 3; i++) await run(other, gw.url, { at: hour(i), max: 1 });
  t.equal(other.keys('bucket', 'ns/snap').length, 1, 'pruned as usual');
  t.equal(other.count('ListObjectsV2'), 3);
});

t.test('a lineage longer than a batch of reads: pruned whole, each snapshot read once', async (t) => {
  const s3 = new FakeS3();
  const since = '2026-01-01T00-00-00Z';
  const stampAt = (m: number) => `2026-01-01T00-${String(m).padStart(2, '0')}-00Z`;
  for (let m = 0; m < 20; m++)
    s3.put('bucket', `ns/snap_v${100 + m}_${stampAt(m)}`, 'x', lineageMeta('uid-a', hex(CLUSTER_1), since, 100 + m));
  const gw = await fakeGateway(t, { revision: 200, clusterId: CLUSTER_1 });
  const r = await run(s3, gw.url, { at: hour(1), max: 12 });
  t.same(
    r.pruned,
    [8, 7, 6, 5, 4, 3, 2, 1, 0].map((m) => `ns/snap_v${100 + m}_${stampAt(m)}`),
    'the 9 oldest: 12 kept with the one written',
  );
  t.notOk(r.pruneProblem);
  t.equal(s3.count('HeadObject'), 21, 'twenty snapshots, twenty reads, and the one written read back');

  // maxBackups 0: the lineage is found, nothing more is read, nothing deleted.
  const all = new FakeS3();
  for (let m = 0; m < 20; m++)
    all.put('bucket', `ns/snap_v${100 + m}_${stampAt(m)}`, 'x', lineageMeta('uid-a', hex(CLUSTER_1), since, 100 + m));
  const keep = await run(all, gw.url, { at: hour(1), max: 0 });
  t.same(keep.pruned, []);
  t.equal(all.count('HeadObject'), 8, 'one batch of reads finds its previous snapshot');
  t.equal(all.keys().length, 21);

  // A read that fails is not tried again in the same run.
  const flaky = new FakeS3();
  for (let m = 0; m < 20; m++)
    flaky.put('bucket', `ns/snap_v${100 + m}_${stampAt(m)}`, 'x', lineageMeta('uid-a', hex(CLUSTER_1), since, 100 + m));
  flaky.fault = (cmd, input) =>
    cmd === 'HeadObject' && input.Key === `ns/snap_v110_${stampAt(10)}` ? s3Error('InternalError', 500) : undefined;
  const f = await run(flaky, gw.url, { at: hour(1), max: 12 });
  t.equal(flaky.count('HeadObject'), 21);
  t.notOk(f.pruned!.includes(`ns/snap_v110_${stampAt(10)}`));
  t.equal(f.pruneProblem, 'the metadata of 1 snapshot(s) could not be read: they are kept, whatever their lineage');
});

t.test('S3 answers without a body, or says "not found" its own way', async (t) => {
  const gw = await fakeGateway(t, { revision: 42, clusterId: CLUSTER_1 });
  const once = { periodic: false, path: 'bucket/ns/once.db', at: hour(0) };
  for (const [err, reason] of [
    [s3Error('UnknownError', 500), 'HTTP 500'],
    [Object.assign(new Error('no status'), { name: 'Unknown' }), 'Unknown: no status'],
  ] as const) {
    const s3 = new FakeS3();
    s3.fault = (cmd) => (cmd === 'HeadObject' ? err : undefined);
    const r = await run(s3, gw.url, once);
    t.equal(
      r.reason,
      `s3://bucket/ns/once.db could not be checked before writing (a one-off backup never overwrites a snapshot): ${reason}`,
    );
  }
  for (const err of [
    Object.assign(new Error('x'), { name: 'NoSuchKey' }),
    Object.assign(new Error('x'), { name: 'NotFound' }),
    s3Error('SomethingElse', 404),
    // Write-only credentials: 403 on HEAD tells nothing; the conditional write alone keeps an object from overwrite.
    s3Error('Unknown', 403),
  ]) {
    const s3 = new FakeS3();
    s3.fault = (cmd) => (cmd === 'HeadObject' ? err : undefined);
    t.match(await run(s3, gw.url, once), { succeeded: true, key: 'ns/once.db' }, `${err.name}: no object there`);
  }
  const s3 = new FakeS3();
  s3.fault = (cmd) => (cmd === 'PutObject' ? s3Error('AccessDenied', 403, 'Access Denied') : undefined);
  t.match(await run(s3, gw.url, once), {
    succeeded: false,
    reason: 'upload to s3://bucket/ns/once.db failed: AccessDenied: Access Denied',
  });
});

t.test('a one-off snapshot of its own with sparse metadata is still its own', async (t) => {
  const s3 = new FakeS3();
  s3.put('bucket', 'ns/once.db', 'x', { [META.uid]: 'uid-a' });
  const gw = await fakeGateway(t, { revision: 42, clusterId: CLUSTER_1 });
  const r = await run(s3, gw.url, { periodic: false, path: 'bucket/ns/once.db', at: hour(0) });
  t.same(r, { succeeded: true, alreadyTaken: true, bucket: 'bucket', key: 'ns/once.db', lastSuccessDate: '' });
});

t.test('no etcd endpoint answers: every one tried, each said', async (t) => {
  const s3 = new FakeS3();
  const broken = await fakeGateway(t, { revision: 1, clusterId: CLUSTER_1, statusFails: true });
  const r = await runBackup({
    endpoints: ['http://127.0.0.1:1', broken.url],
    path: 'bucket/ns/snap',
    periodic: true,
    maxBackups: 1,
    timeoutMs: 2000,
    s3: s3.client,
    backup: { uid: 'uid-a', name: 'ns/a' },
  });
  t.equal(r.succeeded, false);
  t.match(
    r.reason,
    new RegExp(
      `^no etcd endpoint could be snapshotted: http://127.0.0.1:1: .*ECONNREFUSED.*; ${broken.url}: .*HTTP 500`,
    ),
  );
  t.same(s3.calls, []);
  t.same(Object.keys(r).sort(), ['reason', 'succeeded']);
});

t.test('a status without header or version: revision 0, version and cluster unknown', async (t) => {
  const s3 = new FakeS3();
  const gw = await fakeGateway(t, { revision: 0, bare: true });
  const r = await run(s3, gw.url, { at: hour(0) });
  t.match(r, {
    succeeded: true,
    etcdRevision: 0,
    etcdVersion: '',
    clusterId: 'unknown',
    key: 'ns/snap_v0_2026-01-01T00-00-00Z',
  });
});

t.test('no snapshot of its own among the newest read: a new lineage, nothing pruned', async (t) => {
  const s3 = new FakeS3();
  const gw = await fakeGateway(t, { revision: 10, clusterId: CLUSTER_1 });
  await run(s3, gw.url, { at: hour(0), max: 1 });
  // Another EtcdBackup on the path wrote more than the budget since.
  for (let i = 0; i < MAX_EXAMINED + 10; i++)
    s3.put(
      'bucket',
      `ns/snap_v11_2026-01-01T00-${String(Math.floor(i / 60) + 10).padStart(2, '0')}-${String(i % 60).padStart(2, '0')}Z`,
      'x',
      lineageMeta('uid-b', hex(CLUSTER_1), '2026-01-01T00-00-00Z'),
    );
  const heads = s3.count('HeadObject');
  const r = await run(s3, gw.url, { at: hour(1), max: 1 });
  t.match(r, { succeeded: true, pruned: [], pruneProblem: new RegExp(`among the newest ${MAX_EXAMINED}`) });
  t.ok(s3.objects.has('bucket/ns/snap_v10_2026-01-01T00-00-00Z'));
  const read = s3.count('HeadObject') - heads;
  t.ok(read <= MAX_EXAMINED + 1, `${read} metadata reads at most (the budget, and the snapshot written read back)`);
});

t.test('a one-off backup writes its key once and never overwrites a snapshot', async (t) => {
  const s3 = new FakeS3();
  const state = { revision: 42, clusterId: CLUSTER_1 };
  const gw = await fakeGateway(t, state);
  const once = { periodic: false, path: 'bucket/ns/before-upgrade.db' };
  const first = await run(s3, gw.url, { ...once, at: hour(0) });
  t.match(first, { succeeded: true, key: 'ns/before-upgrade.db', etcdRevision: 42, clusterId: hex(CLUSTER_1) });
  t.notOk(first.alreadyTaken);
  const body = s3.objects.get('bucket/ns/before-upgrade.db')!.body.toString();

  // The Job runs again (its record lost, the Job deleted): its own snapshot is its result, nothing written.
  state.revision = 99;
  const again = await run(s3, gw.url, { ...once, at: hour(5) });
  t.match(again, {
    succeeded: true,
    alreadyTaken: true,
    key: 'ns/before-upgrade.db',
    etcdRevision: 42,
    lastSuccessDate: '2026-01-01T00:00:00.000Z',
  });
  t.equal(s3.objects.get('bucket/ns/before-upgrade.db')!.body.toString(), body, 'the point-in-time snapshot unchanged');
  t.equal(s3.count('PutObject'), 1);

  // Another EtcdBackup (or this one recreated: a new UID) on the same path: refused, the snapshot unchanged.
  const other = await run(s3, gw.url, { ...once, uid: 'uid-b', at: hour(6) });
  t.match(other, {
    succeeded: false,
    reason: /already holds a snapshot, written by EtcdBackup ns\/a: a one-off backup never overwrites/,
  });
  s3.put('bucket', 'ns/by-hand.db', 'copied by hand');
  t.match(await run(s3, gw.url, { ...once, path: 'bucket/ns/by-hand.db', at: hour(7) }), {
    succeeded: false,
    reason: /written by someone else/,
  });
  t.equal(s3.objects.get('bucket/ns/by-hand.db')!.body.toString(), 'copied by hand');
  // The check itself fails: nothing written on a guess.
  s3.fault = (cmd) => (cmd === 'HeadObject' ? s3Error('InternalError', 500) : undefined);
  t.match(await run(s3, gw.url, { ...once, path: 'bucket/ns/new.db', at: hour(8) }), {
    succeeded: false,
    reason: /could not be checked before writing/,
  });
  t.notOk(s3.objects.has('bucket/ns/new.db'));
  t.equal(s3.count('PutObject'), 1);
  // HEAD forbidden (write-only credentials) on a key that holds a snapshot: the conditional write keeps it.
  s3.fault = (cmd) => (cmd === 'HeadObject' ? s3Error('Forbidden', 403) : undefined);
  t.match(await run(s3, gw.url, { ...once, uid: 'uid-b', at: hour(9) }), { succeeded: false });
  t.equal(s3.objects.get('bucket/ns/before-upgrade.db')!.body.toString(), body, 'still the point-in-time snapshot');
});

t.test('a periodic key another EtcdBackup wrote is not overwritten: this one writes its own key', async (t) => {
  const s3 = new FakeS3();
  const gw = await fakeGateway(t, { revision: 10, clusterId: CLUSTER_1 });
  s3.put(
    'bucket',
    'ns/snap_v10_2026-01-01T00-00-00Z',
    'another writer, the same second',
    lineageMeta('uid-b', 'c', 'x'),
  );
  t.match(await run(s3, gw.url, { at: hour(0) }), {
    succeeded: true,
    key: 'ns/snap_v10_2026-01-01T00-00-00Z-uid-a',
  });
  t.equal(
    s3.objects.get('bucket/ns/snap_v10_2026-01-01T00-00-00Z')!.body.toString(),
    'another writer, the same second',
  );
  // Its own key taken too (anyone's): never overwritten, the run fails.
  t.match(await run(s3, gw.url, { at: hour(0), uid: 'uid-a' }), { succeeded: false, reason: /already exists/ });
});

t.test('etcd that half-works: a snapshot that breaks off writes nothing and prunes nothing', async (t) => {
  const s3 = new FakeS3();
  const state = { revision: 10, clusterId: CLUSTER_1, snapshotFails: false, snapshot: undefined as string | undefined };
  const gw = await fakeGateway(t, state);
  for (let i = 0; i < 2; i++) await run(s3, gw.url, { at: hour(i), max: 1 });
  const before = s3.keys();
  state.snapshotFails = true;
  const small = await run(s3, gw.url, { at: hour(2), max: 1 });
  t.match(small, {
    succeeded: false,
    reason: /^no snapshot written to s3:\/\/bucket\/ns\/snap_v10_.*snapshot aborted/,
  });
  // A large one breaks off after a part went up: the multipart upload is aborted.
  state.snapshot = 'x'.repeat(PART_SIZE + 1000);
  const large = await run(s3, gw.url, { at: hour(3), max: 1 });
  t.match(large, { succeeded: false, reason: /snapshot aborted/ });
  t.equal(s3.count('UploadPart'), 1, 'a part was sent');
  t.equal(s3.openUploads, 0, 'and the upload aborted');
  t.same(s3.keys(), before, 'nothing written, nothing pruned');
});

t.test('a gateway that gives no cluster ID: the lineage rests on the EtcdBackup and the revision', async (t) => {
  t.equal(clusterIdOf({ header: { cluster_id: '1234' } }), '4d2');
  for (const none of [
    undefined,
    {},
    { header: {} },
    { header: { cluster_id: '' } },
    { header: { cluster_id: '0' } },
    { header: { cluster_id: 'x' } },
  ])
    t.equal(clusterIdOf(none), 'unknown', JSON.stringify(none));
  const s3 = new FakeS3();
  const state: { revision: number; clusterId?: string } = { revision: 10 };
  const gw = await fakeGateway(t, state);
  for (let i = 0; i < 3; i++) {
    state.revision += 1;
    await run(s3, gw.url, { at: hour(i), max: 1 });
  }
  t.same(s3.keys(), ['ns/snap_v13_2026-01-01T02-00-00Z'], 'pruned as usual');
  t.equal(s3.objects.get('bucket/ns/snap_v13_2026-01-01T02-00-00Z')!.metadata[META.cluster], 'unknown');
  state.revision = 2;
  t.match(await run(s3, gw.url, { at: hour(3), max: 1 }), { lineageBreak: { reason: 'RevisionWentBack' } });
  t.equal(s3.keys().length, 2);
});
