// lib/ownership.ts takenNames (wantedByEarlier): a name free now (no object of it observed) that a parent made before
// this one wants now is not this one's, whether or not this one's status records a holder (status.heldBy: lost with a
// restore from a backup, or written over). Customize sends such a parent whatever the status (lib/holders.ts
// holderRules), so the judgement needs no record, and none is written: each sync judges it again from the related
// objects. The rules around it: only a parent with an earlier creationTimestamp keeps the name (parents made in the
// same second are judged by the made-together yield); one being deleted, no longer wanting the name, in another
// namespace, or held itself (it makes none of its free names) keeps nothing; it is judged by the names its answer makes
// now (HolderJudge.wantsNow), not every name it may take.
import t from 'tap';
import type { CompositeSyncRequest, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { guardAnswer, takenNames, type ChildName, type HolderWants } from '../../lib/ownership.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';

const NS = 'ns';
const service: ChildName = { apiVersion: 'v1', kind: 'Service', name: 'x-memcached' };
const EARLY = '2020-01-01T00:00:00Z';
const LATE = '2020-01-01T01:00:00Z';

/** Holder `x` (a parent of a kind `wants` judges), which wants Service x-memcached unless told not to. */
const holder = (over: Record<string, unknown> = {}, wantsIt = true, status?: Record<string, unknown>) =>
  ({
    apiVersion: 'example.com/v1',
    kind: 'Holder',
    metadata: { name: 'x', namespace: NS, uid: 'uid-holder', creationTimestamp: EARLY, ...over },
    spec: { wantsIt },
    ...(status ? { status } : {}),
  }) as unknown as KubeObject;
const wants: HolderWants = (h) =>
  h.kind === 'Holder' ? ((h as any).spec.wantsIt ? [service] : []) : h.kind === 'Wanter' ? [service] : undefined;

/** Parent `x-memcached` of kind Wanter, made at LATE unless told, with `status`. */
const req = (related: KubeObject[], status?: Record<string, unknown>, over: Record<string, unknown> = {}) =>
  ({
    controller: {},
    parent: {
      apiVersion: 'example.com/v1',
      kind: 'Wanter',
      metadata: {
        name: 'x-memcached',
        namespace: NS,
        uid: 'uid-wanter',
        generation: 1,
        creationTimestamp: LATE,
        ...over,
      },
      spec: {},
      ...(status ? { status } : {}),
    } as ParentObject,
    children: {},
    related: objectMap(related),
  }) as CompositeSyncRequest;
const answer = {
  status: { conditions: [] },
  children: [{ apiVersion: 'v1', kind: 'Service', metadata: { name: 'x-memcached' } }],
};

t.test('no record: a parent made before, that wants the free name now, keeps it, at every sync', async (t) => {
  const taken = takenNames(req([holder()]), [service], undefined, wants);
  t.match(taken, [{ child: service, holder: /^Holder x \(uid uid-holder\), made before this Wanter, which wants it/ }]);
  t.equal(taken[0]!.ref, undefined, 'no holder to record: judged again at each sync');
  const held = guardAnswer(req([holder()]), answer as any, FIXED_NOW, wants);
  t.match((held.status as any).conditions[0], { type: 'Ready', status: 'False', reason: 'ServiceNameTaken' });
  t.same(held.children, [], 'the Service is not answered');
  const again = guardAnswer(req([holder()], held.status as any), answer as any, FIXED_NOW, wants);
  t.same(again, held, 'fed back: the same answer (quiet at rest)');
});

t.test('the free name is this parent`s when the other parent cannot keep it', async (t) => {
  const heldStatus = {
    heldBy: [
      {
        child: { apiVersion: 'v1', kind: 'Service', name: 'y' },
        holder: { apiVersion: 'example.com/v1', kind: 'Other', name: 'y', uid: 'uid-y' },
      },
    ],
  };
  const cases: Array<[string, KubeObject[], Record<string, unknown>?]> = [
    ['no other parent sent (deleted)', []],
    ['the other made after this one', [holder({ creationTimestamp: '2020-01-01T02:00:00Z' })]],
    ['the other made in the same second (the made-together yield judges it)', [holder({ creationTimestamp: LATE })]],
    ['the other being deleted', [holder({ deletionTimestamp: LATE })]],
    ['the other no longer wanting it (its spec changed)', [holder({}, false)]],
    ['the other in another namespace', [holder({ namespace: 'other' })]],
    ['the other without a time', [holder({ creationTimestamp: undefined })]],
    ['the other held itself (status.heldBy)', [holder({}, true, heldStatus)]],
    [
      'the other held itself (Ready says NameTaken)',
      [holder({}, true, { conditions: [{ type: 'Ready', status: 'False', reason: 'ServiceNameTaken' }] })],
    ],
    [
      'the other releasing names',
      [holder({}, true, { conditions: [{ type: 'Ready', status: 'False', reason: 'HolderNameReleasing' }] })],
    ],
  ];
  for (const [what, related] of cases)
    t.same(takenNames(req(related), [service], undefined, wants), [], `free: ${what}`);
  t.same(
    takenNames(req([holder()], undefined, { creationTimestamp: undefined }), [service], undefined, wants),
    [],
    'free: this parent without a time',
  );
  t.same(takenNames(req([holder()]), [service]), [], 'free without a judge (a kind that judges no holder)');
  t.same(
    takenNames(
      req([holder({}, true, { conditions: [{ type: 'Ready', status: 'True', reason: 'Serving' }] })]),
      [service],
      undefined,
      wants,
    ).length,
    1,
    'kept by one that serves (Ready True)',
  );
});

t.test('judged by the names the earlier parent makes now, not every name it may take', async (t) => {
  const legacy: ChildName = { apiVersion: 'v1', kind: 'Service', name: 'x' };
  const mayTake: HolderWants = (h) => (h.kind === 'Holder' ? [service, legacy] : undefined);
  const makesNow: HolderWants = (h) => (h.kind === 'Holder' ? [service] : undefined);
  t.equal(takenNames(req([holder()]), [legacy], undefined, mayTake).length, 1, 'a bare judge: every name it may take');
  t.same(
    takenNames(req([holder()]), [legacy], undefined, { wants: mayTake, wantsNow: makesNow }),
    [],
    'with wantsNow: a name it no longer makes is free',
  );
  t.equal(
    takenNames(req([holder()]), [service], undefined, { wants: mayTake, wantsNow: makesNow }).length,
    1,
    'with wantsNow: the name it makes is kept',
  );
});

t.test('a parent held this way is let go once the earlier parent no longer keeps the name', async (t) => {
  const held = guardAnswer(req([holder()]), answer as any, FIXED_NOW, wants);
  for (const [what, related] of [
    ['its spec changed', [holder({}, false)]],
    ['it was deleted', []],
    ['it is being deleted', [holder({ deletionTimestamp: LATE })]],
  ] as const) {
    const res = guardAnswer(req([...related], held.status as any), answer as any, FIXED_NOW, wants);
    t.same(res.children, answer.children, `${what}: the Service is answered`);
    t.not((res.status as any).conditions?.[0]?.reason, 'ServiceNameTaken', `${what}: not held`);
  }
});

t.test('a name an object holds is judged by that object, whoever was made first', async (t) => {
  const svc = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'x-memcached',
      namespace: NS,
      uid: 'uid-svc',
      ownerReferences: [
        { apiVersion: 'example.com/v1', kind: 'Wanter', name: 'x-memcached', uid: 'uid-wanter', controller: true },
      ],
    },
  } as unknown as KubeObject;
  t.same(takenNames(req([holder(), svc]), [service], undefined, wants), [], 'this parent`s own Service stays its own');
});
