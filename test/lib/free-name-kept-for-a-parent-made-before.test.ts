// lib/ownership.ts takenNames: a name free now (no object of it observed) that a parent made before this one makes
// is not this one's, whether or not this one's status records a holder (status.heldBy: lost with a restore from a
// backup, written over, or never written: a parent made while the name is free for a moment). Customize sends such a
// parent whatever the status (lib/holders.ts holderRules), so the judgement needs no record (keptByEarlier). The rules
// around it: the first made keeps the name (the same second: the lower uid); a parent made after, being deleted, no
// longer wanting the name, or held for names itself (its Ready `<Kind>NameTaken`: it creates nothing, so it keeps
// no free name, recorded or not) keeps nothing; one waiting for names released to it (`<Kind>NameReleasing`) keeps
// them; the answer records the earlier parent as the holder, and the next syncs, with that record, answer the same.
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
const req = (
  related: KubeObject[],
  status?: Record<string, unknown>,
  over: Record<string, unknown> = {},
  children: KubeObject[] = [],
): CompositeSyncRequest => ({
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
  children: objectMap(children),
  related: objectMap(related),
});
const answer = {
  status: { conditions: [] },
  children: [{ apiVersion: 'v1', kind: 'Service', metadata: { name: 'x-memcached' } }],
};
const holderRef = { apiVersion: 'example.com/v1', kind: 'Holder', name: 'x', uid: 'uid-holder' };
/** A status whose Ready says `reason` (the holder held for a name another owner holds, or names released to it). */
const heldStatus = (reason: string) => ({
  conditions: [{ type: 'Ready', status: 'False', reason, message: 'Service y belongs to ...' }],
  heldBy: [
    {
      child: { apiVersion: 'v1', kind: 'Service', name: 'y' },
      holder: { apiVersion: 'example.com/v1', kind: 'Other', name: 'y', uid: 'uid-other' },
    },
  ],
});

t.test('no record: a parent made before, that wants the free name, keeps it', async (t) => {
  const taken = takenNames(req([holder()]), [service], undefined, wants);
  t.match(taken, [
    { child: service, holder: /^Holder x \(uid uid-holder\), made before this Wanter, which wants it/, ref: holderRef },
  ]);
  const held = guardAnswer(req([holder()]), answer as any, FIXED_NOW, wants);
  t.match((held.status as any).conditions[0], { type: 'Ready', status: 'False', reason: 'ServiceNameTaken' });
  t.same(held.children, [], 'the Service is not answered');
  t.same((held.status as any).heldBy, [{ child: service, holder: holderRef }], 'the earlier parent is recorded');
  // The next sync reads the record (the holder still exists and wants the name: held, the record kept), and the one
  // after answers the same (quiet at rest).
  const again = guardAnswer(req([holder()], held.status as any), answer as any, FIXED_NOW, wants);
  t.match((again.status as any).conditions[0], {
    reason: 'ServiceNameTaken',
    message: /^Service x-memcached belongs to Holder x/,
  });
  t.same((again.status as any).heldBy, (held.status as any).heldBy, 'the record kept');
  t.same(again.children, []);
  const third = guardAnswer(req([holder()], again.status as any), answer as any, FIXED_NOW, wants);
  t.same(third, again, 'the same answer for the same observed state');
});

t.test('made in the same second: the lower uid is the first', async (t) => {
  const same = { creationTimestamp: LATE };
  t.equal(
    takenNames(req([holder({ ...same, uid: 'uid-a' })]), [service], undefined, wants).length,
    1,
    'lower uid keeps',
  );
  t.same(takenNames(req([holder({ ...same, uid: 'uid-z' })]), [service], undefined, wants), [], 'higher uid does not');
});

t.test('the free name is this parent`s when the other parent cannot keep it', async (t) => {
  const cases: Array<[string, KubeObject[], Record<string, unknown>?]> = [
    ['no other parent sent (deleted)', []],
    ['the other made after this one', [holder({ creationTimestamp: '2020-01-01T02:00:00Z' })]],
    ['the other being deleted', [holder({ deletionTimestamp: LATE })]],
    ['the other no longer wanting it (its spec changed)', [holder({}, false)]],
    ['the other in another namespace', [holder({ namespace: 'other' })]],
    ['which was made first cannot be told (one without a time)', [holder({ creationTimestamp: undefined })]],
    // Held for names itself (by this parent, or by anyone): it creates nothing, so a name it does not make is not
    // kept from anyone; else parents each held for a name the next one makes would wait for one another for good.
    ['the other held for names itself', [holder({}, true, heldStatus('ServiceNameTaken'))]],
    [
      'the other held for names itself, its Ready after another condition',
      [
        holder({}, true, {
          ...heldStatus('ServiceNameTaken'),
          conditions: [
            { type: 'Available', status: 'True', reason: 'Available' },
            ...heldStatus('ServiceNameTaken').conditions,
          ],
        }),
      ],
    ],
  ];
  for (const [what, related] of cases) {
    const sts = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'x-memcached', namespace: NS, uid: 'uid-sts' },
    } as KubeObject;
    t.same(takenNames(req(related, undefined, {}, [sts]), [service], undefined, wants), [], `free: ${what}`);
  }
  t.same(takenNames(req([holder()]), [service]), [], 'free without a judge (a kind that judges no holder)');
});

t.test('a parent held this way is let go once the earlier parent no longer wants the name', async (t) => {
  const held = guardAnswer(req([holder()]), answer as any, FIXED_NOW, wants);
  for (const [what, related] of [
    ['its spec changed', [holder({}, false)]],
    ['it was deleted', []],
    ['it is being deleted', [holder({ deletionTimestamp: LATE })]],
  ] as const) {
    const res = guardAnswer(req([...related], held.status as any), answer as any, FIXED_NOW, wants);
    t.same(res.children, answer.children, `${what}: the Service is answered`);
  }
});

t.test('a name observed as the parent`s own child is its own, whoever was made before', async (t) => {
  const own = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'x-memcached', namespace: NS, uid: 'uid-svc' },
  } as KubeObject;
  t.same(takenNames(req([holder()], undefined, {}, [own]), [service], undefined, wants), []);
});

t.test('a parent made before that waits for names released to it keeps the free name', async (t) => {
  const taken = takenNames(req([holder({}, true, heldStatus('ServiceNameReleasing'))]), [service], undefined, wants);
  t.match(taken, [{ child: service, ref: holderRef }]);
});

t.test('a recorded holder that is held for names itself keeps the free name no longer', async (t) => {
  // Recorded while it was not held (this parent's status.heldBy names it); it is held since, for another name, and
  // creates nothing: the free name is this parent's, and the answer records no holder.
  const held = guardAnswer(req([holder()]), answer as any, FIXED_NOW, wants);
  t.same((held.status as any).heldBy, [{ child: service, holder: holderRef }], 'recorded');
  const res = guardAnswer(
    req([holder({}, true, heldStatus('DeploymentNameTaken'))], held.status as any),
    answer as any,
    FIXED_NOW,
    wants,
  );
  t.same(res.children, answer.children, 'the Service is answered');
  t.notOk('heldBy' in (res.status as any), 'no record kept');
  // A holder made after this parent, held for names itself, recorded as the holder: the same.
  const later = holder({ creationTimestamp: '2020-01-01T02:00:00Z' }, true, heldStatus('PodNameTaken'));
  t.same(takenNames(req([later], held.status as any), [service], undefined, wants), []);
});
