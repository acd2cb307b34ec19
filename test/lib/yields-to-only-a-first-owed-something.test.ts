// lib/ownership.ts laterSide: a parent made second that never served yields to the parent made first, and records it
// (status.heldBy[].yieldsTo) only for a first it owes something: a child the first wants, a first it said so before,
// or a first whose records (its status.heldBy) name this parent or one of its children as a holder — any one of
// them, among records that name other holders too. The first reads that record: a name it was held for by this
// parent is released to it (releasedTo), so it takes the name once free instead of waiting for good. To a first it
// owes nothing (it holds no child the first wants, and no record of the first names it) it says nothing, and its
// Ready says it holds none of the names (the first carries on), as a later parent that served says it.
import t from 'tap';
import type { CompositeSyncRequest, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { guardAnswer } from '../../lib/ownership.js';
import {
  HOLDER_API as API,
  holderChild,
  holderParent,
  holderService as service,
  holderWants as wants,
  servedBut,
  svc,
} from '../fixtures/holders.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';

const made = { e: '2020-01-01T01:00:00Z', p: '2020-01-01T02:00:00Z' } as const;
type Name = keyof typeof made;
const ref = (name: Name) => ({ apiVersion: API, kind: 'Holder', name, uid: `uid-${name}` });
/** A record of status.heldBy: Service `child` held by `holder` (a parent's uid, or a child's). */
const record = (child: string, holder: { name: string; uid: string }) => ({
  child: svc(child),
  holder: { apiVersion: API, kind: 'Holder', ...holder },
});
const byOther = record('y', { name: 'x', uid: 'uid-x' });
const byP = (child: string) => record(child, { name: 'p', uid: 'uid-p' });

const parent = (name: Name, wanted: string[], status?: Record<string, unknown>): ParentObject =>
  holderParent(name, made[name], wanted, status);
// e served; p never did (it yields to a parent made before it).
const served = servedBut('p');

/** `self`'s sync: its answer names a Service for each name it wants; `others` and their Services are related. */
const sync = (self: ParentObject, others: ParentObject[], services: KubeObject[]) => {
  const own = services.filter((s) => (s.metadata as any).ownerReferences[0].uid === self.metadata.uid);
  const request: CompositeSyncRequest = {
    controller: {},
    parent: self,
    children: objectMap(own),
    related: objectMap([...others, ...services.filter((s) => !own.includes(s))]),
  };
  const names = (self.spec as { wants: string[] }).wants;
  const answer = {
    status: { conditions: [] },
    children: names.map((n) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: n } }) as KubeObject),
  };
  return guardAnswer(request, answer, FIXED_NOW, wants, { served });
};
const ready = (res: { status?: unknown }) => ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');

t.test('a first owed nothing (no child of this parent it wants, no record naming it): no yieldsTo', async (t) => {
  // e holds Service a; its only record names another holder (x, for y). p wants a, holds nothing.
  const e = parent('e', ['a'], { heldBy: [byOther] });
  const p = parent('p', ['a']);
  const res = sync(p, [e], [service('a', 'e')]);
  t.match(ready(res), {
    status: 'False',
    reason: 'ServiceNameTaken',
    message: /Holder e .*holds none of them: it carries on/,
  });
  t.notMatch(ready(res).message, /so it yields/, 'it yields nothing: it says it holds none of the names');
  t.same(res.children, [], 'p creates nothing');
  t.same((res.status as any).heldBy, [{ child: svc('a'), holder: ref('e') }], 'e is the holder; p yields to nothing');
});

t.test('a first that wants a child of this parent: it is released and yieldsTo recorded (the contrast)', async (t) => {
  const e = parent('e', ['a', 'b'], { heldBy: [] });
  const p = parent('p', ['a', 'b']);
  const res = sync(p, [e], [service('a', 'e'), service('b', 'p')]);
  t.same(res.children, [], 'b is released (left out of the answer)');
  t.same((res.status as any).heldBy, [{ child: svc('a'), holder: ref('e'), yieldsTo: ref('e') }]);
});

for (const [order, records] of [
  ['after another holder', [byOther, byP('z')]],
  ['before another holder', [byP('z'), byOther]],
] as const)
  t.test(
    `one of several records of the first names this parent (${order}): yieldsTo, and the first takes the name`,
    async (t) => {
      // p released Service z already (Metacontroller deleted it); e's records still say p holds z (and x held y). p
      // holds no child e wants, and its own status is lost (no yieldsTo of its own to keep saying).
      const e = parent('e', ['a', 'z'], { heldBy: records, conditions: [] });
      const p = parent('p', ['a', 'z']);
      const services = [service('a', 'e')];
      const res = sync(p, [e], services);
      t.same(res.children, [], 'p creates nothing');
      t.match(ready(res), { status: 'False', reason: 'ServiceNameTaken', message: /Holder e / });
      const heldBy = (res.status as any).heldBy as any[];
      t.same(
        heldBy.map((r) => [r.child.name, r.holder.name, r.yieldsTo?.name]),
        [
          ['a', 'e', 'e'],
          ['z', 'e', 'e'],
        ],
        'p records that it yields to e, for each name',
      );
      // e's next sync reads p's record: z, free, is released to it, so e makes it and is held by nothing.
      const next = sync(e, [parent('p', ['a', 'z'], res.status as Record<string, unknown>)], services);
      t.ok(
        next.children.some((c) => c?.metadata?.name === 'z'),
        'e makes Service z',
      );
      t.notOk(ready(next), "e is not held (the hook's answer, without a Ready of its own, stands)");
    },
  );

t.test('a record of the first that names a child of this parent (its StatefulSet) as holder: yieldsTo', async (t) => {
  // p's StatefulSet made a pod named z (gone now); e's record says that StatefulSet holds z. e wants no child of p's.
  const sts = holderChild('apps/v1', 'StatefulSet', 'p', 'p', 'uid-sts-p');
  const bySts = {
    child: { apiVersion: 'v1', kind: 'Pod', name: 'z' },
    holder: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'p', uid: 'uid-sts-p' },
  };
  const e = parent('e', ['a'], { heldBy: [byOther, bySts] });
  const p = parent('p', ['a']);
  const res = sync(p, [e], [service('a', 'e'), sts]);
  t.same(
    res.children.map((c) => `${c?.kind} ${c?.metadata?.name}`),
    ['StatefulSet p'],
    'p keeps its StatefulSet (e does not want it)',
  );
  t.same((res.status as any).heldBy, [{ child: svc('a'), holder: ref('e'), yieldsTo: ref('e') }]);
});
