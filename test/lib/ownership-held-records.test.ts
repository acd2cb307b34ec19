// lib/ownership.ts: a held parent remembers who held each name (status.heldBy) and, for the holders its operator
// judges (HolderWants), stays held while the name is free for a moment and the holder exists and wants it.
import t from 'tap';
import type { CompositeSyncRequest, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import {
  guardAnswer,
  heldRecords,
  heldRecordsOf,
  takenNames,
  type ChildName,
  type HolderWants,
} from '../../lib/ownership.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';

const NS = 'ns';
const child: ChildName = { apiVersion: 'v1', kind: 'Service', name: 'x-memcached' };
const holder = (over: Partial<KubeObject['metadata']> = {}, wantsIt = true) =>
  ({
    apiVersion: 'example.com/v1',
    kind: 'Holder',
    metadata: { name: 'x', namespace: NS, uid: 'uid-holder', creationTimestamp: '2020-01-01T00:00:00Z', ...over },
    spec: { wantsIt },
  }) as unknown as KubeObject;
const service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: {
    name: 'x-memcached',
    namespace: NS,
    uid: 'uid-svc',
    ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Holder', name: 'x', uid: 'uid-holder', controller: true }],
  },
} as KubeObject;
const wants: HolderWants = (h) => (h.kind === 'Holder' ? ((h as any).spec.wantsIt ? [child] : []) : undefined);
const parent = (status?: Record<string, unknown>): ParentObject =>
  ({
    apiVersion: 'example.com/v1',
    kind: 'Wanter',
    metadata: {
      name: 'x-memcached',
      namespace: NS,
      uid: 'uid-wanter',
      generation: 1,
      creationTimestamp: '2020-01-01T01:00:00Z',
    },
    spec: {},
    ...(status ? { status } : {}),
  }) as ParentObject;
const req = (related: KubeObject[], status?: Record<string, unknown>): CompositeSyncRequest => ({
  controller: {},
  parent: parent(status),
  children: {},
  related: objectMap(related),
});
const answer = { status: { conditions: [] }, children: [{ ...service, metadata: { name: 'x-memcached' } }] };

t.test('held with a judge: the holder is recorded; without one (the default), nothing is recorded', async (t) => {
  const held = guardAnswer(req([service, holder()]), answer as any, FIXED_NOW, wants);
  t.match((held.status as any).conditions[0], { reason: 'ServiceNameTaken' });
  t.same((held.status as any).heldBy, [
    { child, holder: { apiVersion: 'example.com/v1', kind: 'Holder', name: 'x', uid: 'uid-holder' } },
  ]);
  const plain = guardAnswer(req([service, holder()]), answer as any, FIXED_NOW);
  t.notOk('heldBy' in (plain.status as any), 'no record without a judge');
});

t.test('the name free for a moment: held while the recorded holder exists and wants it', async (t) => {
  const status = guardAnswer(req([service, holder()]), answer as any, FIXED_NOW, wants).status as any;
  const again = guardAnswer(req([holder()], status), answer as any, FIXED_NOW, wants);
  t.match((again.status as any).conditions[0], { reason: 'ServiceNameTaken', message: /still exists and wants it/ });
  t.same(again.children, [], 'nothing created');
  t.same((again.status as any).heldBy, status.heldBy, 'the record is kept');
  const cases: Array<[string, KubeObject[]]> = [
    ['the holder gone', []],
    ['the holder being deleted', [holder({ deletionTimestamp: 'x' })]],
    // Made again after the parent (one made before it that wants the name keeps it, records or not).
    [
      'another holder of that name (new uid)',
      [holder({ uid: 'uid-other', creationTimestamp: '2020-01-01T02:00:00Z' })],
    ],
    ['the holder no longer wanting it', [holder({}, false)]],
  ];
  for (const [what, related] of cases) {
    t.same(takenNames(req(related, status), [child], undefined, wants), [], `free: ${what}`);
  }
  t.same(takenNames(req([holder()], status), [child]), [], 'free without a judge');
  const observed = req([holder()], status);
  observed.children = objectMap([service]);
  t.same(takenNames(observed, [child], undefined, wants), [], 'free when observed as the parent`s own child');
});

t.test('records are read defensively and bounded', async (t) => {
  const good = { child, holder: { apiVersion: 'a/v1', kind: 'K', name: 'n', uid: 'u' } };
  const status = {
    heldBy: [null, 'x', { child }, { child, holder: { ...good.holder, uid: '' } }, good, good, good, good],
  };
  t.equal(heldRecordsOf(parent(status)).length, 3, 'at most 3, malformed ones left out');
  t.same(heldRecordsOf(parent({ heldBy: 'no' })), []);
  t.same(heldRecordsOf(parent()), []);
});

t.test('the records keep the first name of each holder before a second of any', async (t) => {
  const ref = (name: string) => ({ apiVersion: 'apps/v1', kind: 'StatefulSet', name, uid: `uid-${name}` });
  const taken = [0, 1, 2, 3].map((i) => ({
    child: { apiVersion: 'v1', kind: 'Pod', name: `a-${i}` },
    holder: 'StatefulSet a',
    ref: ref('a'),
  }));
  const other = { child: { apiVersion: 'v1', kind: 'Service', name: 'b' }, holder: 'StatefulSet b', ref: ref('b') };
  t.same(
    heldRecords([...taken, other]).map((r) => `${r.child.name} ${r.holder.name}`),
    ['a-0 a', 'b b', 'a-1 a'],
    "a holder of many names does not crowd out another holder's record",
  );
});
