// lib/ownership.ts replacedBy: a holder of the parent's own kind (API group), namespace and name with another uid
// cannot exist beside the parent (the API server keeps one object per name): it is the parent it replaced (deleted and
// made again under its name). Its children still seen (being deleted by its garbage collection, or in Metacontroller's
// informer cache) hold their names, never taken over; it is not recorded in status.heldBy, and a record of it (written
// before) holds nothing once its children are not seen: the name is the parent's at the next sync, not
// HOLDER_UNSEEN_SECONDS later. A holder of another kind, group or name is judged as before.
import t from 'tap';
import type { CompositeSyncRequest, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { guardAnswer, type HolderJudge, type HolderRef } from '../../lib/ownership.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';

const NS = 'ns';
const API = 'example.com/v1';
const CHILD = { apiVersion: 'v1', kind: 'Service', name: 'web-svc' };
const OLD: HolderRef = { apiVersion: API, kind: 'Wanter', name: 'web', uid: 'uid-before' };
const at = (seconds: number) => new Date(FIXED_NOW.getTime() + seconds * 1000);
// Every recorded holder is one customize asks for only as the status records it: not sent may mean "exists".
const judge = (now: Date): HolderJudge => ({ wants: () => undefined, askedFor: () => 'recorded', now });

const parent = (status?: Record<string, unknown>, uid = 'uid-again'): ParentObject =>
  ({
    apiVersion: API,
    kind: 'Wanter',
    metadata: { name: 'web', namespace: NS, uid, generation: 1, creationTimestamp: '2026-01-02T03:04:00Z' },
    spec: {},
    ...(status ? { status } : {}),
  }) as ParentObject;

const service = (metadata: Record<string, unknown>): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web-svc', namespace: NS, uid: 'uid-svc', ...metadata },
  }) as KubeObject;
const controlledBy = (ref: HolderRef, deleting = true) =>
  service({
    ...(deleting ? { deletionTimestamp: '2026-01-02T03:04:00Z' } : {}),
    ownerReferences: [{ ...ref, controller: true }],
  });

const req = (related: KubeObject[], status?: Record<string, unknown>, uid?: string): CompositeSyncRequest => ({
  controller: {},
  parent: parent(status, uid),
  children: {},
  related: objectMap(related),
});
const answer = () => ({
  status: { conditions: [] },
  children: [{ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web-svc' } }],
});
const ready = (res: any) => (res.status.conditions as any[]).find((c) => c.type === 'Ready');
const made = (res: any) => res.children.some((c: any) => c.metadata.name === 'web-svc');

t.test('the replaced parent holds a name while its child is seen, and is not recorded', async (t) => {
  const held = guardAnswer(req([controlledBy(OLD)]), answer() as any, at(0), judge(at(0)));
  t.match(ready(held), {
    status: 'False',
    reason: 'ServiceNameTaken',
    message:
      /Wanter web \(uid uid-before\) \(being deleted\), the Wanter of this name before this one: .*the garbage collector deletes its children, never taken over, and this Wanter makes them at its next sync.*kubectl delete --force\)$/,
  });
  t.notMatch(ready(held).message, /rename this Wanter/, "renaming is not advised: the name is the parent's once free");
  t.notOk(made(held), 'the child is not taken over while seen');
  t.notOk('heldBy' in (held.status as any), 'the replaced parent is not recorded');
  // Not being deleted yet (the garbage collector has not come to it): held as well.
  const notYet = guardAnswer(req([controlledBy(OLD, false)]), answer() as any, at(0), judge(at(0)));
  t.match(ready(notYet), { reason: 'ServiceNameTaken' });
  t.notOk(made(notYet));
  // Beside a name a third owner holds: that one is advised as before, the replaced parent's as its own.
  const third = {
    ...service({ name: 'web-other', uid: 'uid-other' }),
    metadata: { name: 'web-other', namespace: NS, uid: 'uid-other' },
  };
  const two = {
    status: { conditions: [] },
    children: [...answer().children, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web-other' } }],
  };
  const mixed = guardAnswer(req([controlledBy(OLD), third as KubeObject]), two as any, at(0), judge(at(0)));
  t.match(ready(mixed), {
    reason: 'ServiceNameTaken',
    message:
      /Service web-other belongs to no controller.*rename this Wanter, or delete or rename what holds the name\. the Wanter this one replaced/,
  });
  // Gone: the next sync makes it.
  const next = guardAnswer(req([], held.status as any), answer() as any, at(5), judge(at(5)));
  t.ok(made(next), 'made at the next sync once it is not seen');
});

t.test('a record of the replaced parent (written before) holds nothing once its child is not seen', async (t) => {
  const recorded = (holder: HolderRef) => ({
    heldBy: [{ child: CHILD, holder, unseenSince: at(0).toISOString() }],
    conditions: [{ type: 'Ready', status: 'False', reason: 'ServiceNameTaken' }],
  });
  const free = guardAnswer(req([], recorded(OLD)), answer() as any, at(5), judge(at(5)));
  t.ok(made(free), `the replaced parent's record: free (${ready(free)?.reason ?? 'no Ready'})`);
  t.notOk('heldBy' in (free.status as any), 'its record goes');
  // Another served version of the same API group is the same kind.
  const v2 = guardAnswer(
    req([], recorded({ ...OLD, apiVersion: 'example.com/v2' })),
    answer() as any,
    at(5),
    judge(at(5)),
  );
  t.ok(made(v2), 'of another version of its group: free');
  // Not the parent replaced: judged as before (kept HOLDER_UNSEEN_SECONDS from the first sync that did not see it).
  const others: Array<[string, HolderRef, string?]> = [
    ['another kind of that name', { ...OLD, kind: 'Other' }],
    ['its kind in another API group', { ...OLD, apiVersion: 'other.example.com/v1' }],
    ['a core kind of that name', { ...OLD, apiVersion: 'v1' }],
    ['its kind under another name', { ...OLD, name: 'web2' }],
    ['a parent with an empty uid', OLD, ''],
    ['a parent with no uid', OLD],
  ];
  for (const [what, holder, uid] of others) {
    const request = req([], recorded(holder), uid);
    if (uid === undefined && what.endsWith('no uid')) delete request.parent.metadata.uid;
    const kept = guardAnswer(request, answer() as any, at(5), judge(at(5)));
    t.match(ready(kept), { reason: 'ServiceNameTaken', message: /do not show since/ }, `${what}: still held`);
    t.notOk(made(kept), `${what}: not made`);
  }
});

t.test(
  'a child the replaced parent left behind (--cascade=orphan) is held as any object without a controller',
  async (t) => {
    const orphan = service({
      labels: {
        'app.kubernetes.io/instance': 'web',
        'app.kubernetes.io/managed-by': 'metaops',
        'controller-uid': 'uid-before',
      },
    });
    const held = guardAnswer(req([orphan]), answer() as any, at(0), judge(at(0)));
    t.match(ready(held), {
      reason: 'ServiceNameTaken',
      message: /left behind by a Wanter of this name deleted with --cascade=orphan.*controller-uid=uid-again/,
    });
    t.notOk(made(held), "never adopted or replaced on doubt: the user says whether it is this parent's");
    t.notOk('heldBy' in (held.status as any), 'nothing recorded: held only while it is there');
    const gone = guardAnswer(req([], held.status as any), answer() as any, at(5), judge(at(5)));
    t.ok(made(gone), 'deleted: made at the next sync');
  },
);
