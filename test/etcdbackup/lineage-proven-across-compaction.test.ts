// The lineage's proof once etcd compacted past the last snapshot's revision (lineage.ts, judgeWitnesses): the keys
// recorded with it are what a compaction keeps. The same history still holds each (unchanged, or modified since with
// the same creation); another history holds a key at a revision the recorded one says it cannot, or keys in the
// window of the newest modifications that were never recorded. No key left: no proof, nothing pruned.
import t from 'tap';
import {
  decideLineage,
  encodeWitnesses,
  judgeWitnesses,
  META,
  parseWitnesses,
  type WitnessKey,
} from '../../hooks/etcdbackup/lineage.js';

const w = (create: number, mod: number, version: number, key = 'a'.repeat(12), value = 'b'.repeat(12)): WitnessKey => ({
  create,
  mod,
  version,
  key,
  value,
});
const R = 100;

t.test('recorded keys round-trip through the metadata, malformed ones prove nothing', async (t) => {
  const keys = [w(2, 50, 3), w(90, 100, 1, 'c'.repeat(12))];
  t.same(parseWitnesses(encodeWitnesses(keys)), keys);
  t.same(parseWitnesses(undefined), []);
  t.same(parseWitnesses('2.50.3.xyz.abc'), [], 'not hex');
  t.same(parseWitnesses(`${encodeWitnesses(keys)},junk`), [], 'one malformed: none');
  t.ok(encodeWitnesses(Array.from({ length: 20 }, (_, i) => w(i + 1, i + 1, 1))).split(',').length <= 8, 'bounded');
});

t.test('the same history: unchanged, or modified after the snapshot with the same creation', async (t) => {
  const recorded = [w(2, 50, 3), w(90, 100, 1, 'c'.repeat(12))];
  t.same(judgeWitnesses(recorded, [[w(2, 50, 3)], []], R), { state: 'same' }, 'one unchanged, one deleted since');
  t.same(judgeWitnesses(recorded, [[w(2, 150, 7, undefined, '')], []], R), { state: 'same' }, 'modified since');
  t.same(
    judgeWitnesses(recorded, [[w(2, 50, 3)], []], R, { above: 90, found: [w(90, 100, 1, 'c'.repeat(12))] }),
    { state: 'same' },
    'the window holds only keys recorded',
  );
});

t.test('another history: a key as the same cluster cannot have it, or an unrecorded key in the window', async (t) => {
  const recorded = [w(2, 50, 3), w(90, 100, 1, 'c'.repeat(12))];
  t.same(judgeWitnesses(recorded, [[w(2, 50, 3, undefined, 'd'.repeat(12))], []], R), { state: 'differs' }, 'value');
  t.same(judgeWitnesses(recorded, [[w(2, 60, 4, undefined, '')], []], R), { state: 'differs' }, 'modified before R');
  t.same(judgeWitnesses(recorded, [[w(2, 150, 3, undefined, '')], []], R), { state: 'differs' }, 'version not grown');
  t.same(
    judgeWitnesses(recorded, [[w(2, 50, 3)], []], R, { above: 90, found: [w(95, 95, 1, 'e'.repeat(12))] }),
    { state: 'differs' },
    'a key written at 95 that the snapshot at 100 did not have among its newest',
  );
  t.same(
    judgeWitnesses(recorded, [[w(2, 50, 3)], []], R, { above: 90, found: [w(95, 120, 2, 'e'.repeat(12))] }),
    { state: 'same' },
    'a key modified after the snapshot is no evidence',
  );
});

t.test('no proof: nothing recorded, nothing left, or etcd did not answer', async (t) => {
  t.match(judgeWitnesses([], [], R), { state: 'unproven', why: /records no keys/ });
  t.match(judgeWitnesses([w(2, 50, 3)], [[]], R), { state: 'unproven', why: /none of the 1 key/ });
  t.match(judgeWitnesses([w(2, 50, 3)], [[w(3, 50, 3)]], R), { state: 'unproven' }, 'another creation: not it');
  t.match(judgeWitnesses([w(2, 50, 3)], ['etcd gave no keys'], R), { state: 'unproven', why: 'etcd gave no keys' });
});

t.test('an unproven history begins a new lineage; the old one is kept (nothing pruned over a doubt)', async (t) => {
  const previous = {
    key: 'p/snap_v100_2026-01-01T00-00-00Z',
    stamp: '2026-01-01T00-00-00Z',
    revision: R,
    meta: { [META.uid]: 'u', [META.cluster]: 'c1', [META.since]: '2026-01-01T00-00-00Z', [META.revision]: '100' },
  };
  const why = 'none of the 1 key(s) recorded with the snapshot before is still in etcd as it was created';
  const d = decideLineage(previous, 'u', 'c1', 150, '2026-01-02T00-00-00Z', { state: 'unproven', why });
  t.match(d, { lineage: { since: '2026-01-02T00-00-00Z' }, break: { reason: 'LineageUnproven', why } });
  t.same(decideLineage(previous, 'u', 'c1', 150, 'x', { state: 'same' }).lineage.since, '2026-01-01T00-00-00Z');
});
