// The injector's memory of unwritten records (hooks/podbuggertool/inject.ts UnwrittenRecords) is bounded in bytes
// (MAX_UNWRITTEN_BYTES), each entry compact: it holds MAX_UNWRITTEN_RECORDS (10,000) pods of one failing tool each,
// every name and reason at its longest, and stays fair between namespaces by weight: a namespace whose pods fail with
// many tools each (heavy entries) does not push out another's records.
import t from 'tap';
import { MAX_UNWRITTEN_BYTES, MAX_UNWRITTEN_RECORDS, UnwrittenRecords } from '../../hooks/podbuggertool/inject.js';
import type { Failure } from '../../hooks/podbuggertool/match.js';
import { NamespaceShares } from '../../lib/shares.js';
import type { KubeObject } from '../../lib/index.js';

const asked = { attachments: [], annotations: { 'debug.metaops.dev/failures': 'x' } };
const pod = (namespace: string, i: number): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    namespace,
    name: `p-${i}`.padEnd(253, 'x'),
    uid: `6f1c2f0e-0000-4000-8000-${String(i).padStart(12, '0')}`,
    annotations: { 'debug.metaops.dev/failures': `a${i}` },
  },
});
const failure = (i: number): Failure => ({
  reason: 'R'.repeat(64),
  attempts: 999_999,
  at: 999_999_999_999,
  key: `k${i}`,
});

t.test('10,000 pods of one failing tool each, everything at its longest, are all remembered', async (t) => {
  const memory = new UnwrittenRecords();
  const namespace = 'n'.repeat(63);
  for (let i = 0; i < MAX_UNWRITTEN_RECORDS; i++)
    memory.keep(pod(namespace, i), new Map([[`debug-${'c'.repeat(50)}`, failure(i)]]), asked);
  t.equal(memory.pods.size, MAX_UNWRITTEN_RECORDS, 'every pod held');
  t.ok(memory.pods.weight <= MAX_UNWRITTEN_BYTES, `counted ${memory.pods.weight} of ${MAX_UNWRITTEN_BYTES} bytes`);
  for (const i of [0, 4999, MAX_UNWRITTEN_RECORDS - 1])
    t.same(
      memory.take(pod(namespace, i), new Map([[`debug-${'c'.repeat(50)}`, `k${i}`]]))?.get(`debug-${'c'.repeat(50)}`),
      failure(i),
      `pod ${i}: its record as answered`,
    );
  // Of another attempt (another spec): none.
  t.same(memory.take(pod(namespace, 0), new Map([[`debug-${'c'.repeat(50)}`, 'other']])), new Map());
  // One pod more: the oldest goes.
  memory.keep(pod(namespace, MAX_UNWRITTEN_RECORDS), new Map([['debug-x', failure(0)]]), asked);
  t.ok(memory.pods.weight <= MAX_UNWRITTEN_BYTES);
});

t.test("a namespace of heavy records does not push out another's", async (t) => {
  const memory = new UnwrittenRecords();
  const b = pod('tenant-b', 0);
  memory.keep(b, new Map([['debug-b', failure(0)]]), asked);
  const heavy = new Map(Array.from({ length: 65 }, (_, j) => [`debug-${j}`, failure(j)] as const));
  for (let i = 0; i < 5000; i++) memory.keep(pod('tenant-a', i), heavy, asked);
  t.ok(memory.pods.weight <= MAX_UNWRITTEN_BYTES, `bounded: ${memory.pods.size} pods`);
  t.ok(memory.pods.size < 5000, 'heavy records weigh more: fewer of them are held');
  t.same(memory.take(b, new Map([['debug-b', 'k0']]))?.get('debug-b'), failure(0), "B's record kept");
  t.ok(memory.take(pod('tenant-a', 4999), new Map([['debug-64', 'k64']]))?.get('debug-64'), "A's newest kept");
});

t.test('the shares weigh their entries when told how', async (t) => {
  const shares = new NamespaceShares<string>(10, 10, (v) => v.length);
  shares.set('a', 'k1', 'xxxx');
  shares.set('a', 'k2', 'xxxx');
  shares.set('b', 'k3', 'xx');
  t.equal(shares.weight, 10);
  shares.set('b', 'k4', 'xxx');
  t.notOk(shares.has('a', 'k1'), 'past the bound: the oldest of the namespace holding the most');
  t.same([shares.held('a'), shares.held('b'), shares.size, shares.weight], [4, 5, 3, 9]);
  shares.set('c', 'k5', 'x'.repeat(11));
  t.notOk(shares.has('c', 'k5'), 'heavier than the bound: not kept');
  shares.delete('b', 'k3');
  t.same([shares.held('b'), shares.weight], [3, 7]);
});
