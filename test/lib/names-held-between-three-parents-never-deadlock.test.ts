// lib/ownership.ts: a parent held for a name waits for its holder; a free name a parent made before wants is kept from
// a later parent (wantedByEarlier) unless that earlier parent itself waits for the later one. The waits must never
// close a circle: three parents a (made first), b, c, each holding a name the one before wants, must not all be held
// for good. Here a is held for Service y (b's), b for Service w (c's), and c, scaled to want Service x (a name a may
// take but never made: a is held), must not wait for a, which waits (through b) for c.
import t from 'tap';
import type {
  CompositeSyncRequest,
  CompositeSyncResponse,
  KubeObject,
  ParentObject,
} from '../../lib/metacontroller.js';
import { guardAnswer } from '../../lib/ownership.js';
import { holderParent, holderService as service, holderWants as wants } from '../fixtures/holders.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';

const made = { a: '2020-01-01T00:00:00Z', b: '2020-01-01T01:00:00Z', c: '2020-01-01T02:00:00Z' } as const;
type Name = keyof typeof made;

function parent(name: Name, wanted: string[], status?: Record<string, unknown>): ParentObject {
  return holderParent(name, made[name], wanted, status);
}

const answerFor = (p: ParentObject): CompositeSyncResponse => ({
  status: { ...((p.status as object) ?? {}), conditions: [] },
  children: ((p.spec as any).wants as string[]).map((n) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: n },
  })) as KubeObject[],
});

/** One sync of `p` among `parents` and the Services `services`. */
function sync(p: ParentObject, parents: ParentObject[], services: KubeObject[]): CompositeSyncResponse {
  const own = (s: KubeObject) => (s.metadata as any).ownerReferences?.[0]?.uid === p.metadata.uid;
  const request: CompositeSyncRequest = {
    controller: {},
    parent: p,
    children: objectMap(services.filter(own)),
    related: objectMap([
      ...parents.filter((o) => o.metadata.uid !== p.metadata.uid),
      ...services.filter((s) => !own(s)),
    ]),
  };
  return guardAnswer(request, answerFor(p), FIXED_NOW, wants);
}

const heldFor = (res: CompositeSyncResponse) => {
  const ready = (res.status as any)?.conditions?.find((c: any) => c.type === 'Ready');
  return ready?.status === 'False' && /NameTaken$/.test(String(ready.reason)) ? String(ready.message) : undefined;
};

t.test('three parents each waiting for the next are not all held for good', async (t) => {
  // b serves Service y; c serves Service w. a (made first) came to want y and x, b came to want w: each is held.
  const services = [service('y', 'b'), service('w', 'c')];
  let a = parent('a', ['x', 'y']);
  let b = parent('b', ['y', 'w']);
  let c = parent('c', ['w']);
  for (let round = 0; round < 2; round++) {
    const ra = sync(a, [a, b, c], services);
    const rb = sync(b, [a, b, c], services);
    const rc = sync(c, [a, b, c], services);
    a = parent('a', ['x', 'y'], ra.status as any);
    b = parent('b', ['y', 'w'], rb.status as any);
    c = parent('c', ['w'], rc.status as any);
  }
  t.ok(heldFor(sync(a, [a, b, c], services)), 'a is held (Service y is b`s)');
  t.ok(heldFor(sync(b, [a, b, c], services)), 'b is held (Service w is c`s)');
  t.notOk(heldFor(sync(c, [a, b, c], services)), 'c serves');
  // c is scaled: it now wants Service x too, a name no object holds.
  c = parent('c', ['w', 'x'], c.status as any);
  const held: string[] = [];
  for (let round = 0; round < 3; round++) {
    const ra = sync(a, [a, b, c], services);
    const rb = sync(b, [a, b, c], services);
    const rc = sync(c, [a, b, c], services);
    a = parent('a', ['x', 'y'], ra.status as any);
    b = parent('b', ['y', 'w'], rb.status as any);
    c = parent('c', ['w', 'x'], rc.status as any);
    held.splice(0, held.length, ...[ra, rb, rc].map((r, i) => (heldFor(r) ? 'abc'[i]! : '')).filter(Boolean));
  }
  t.not(
    held.join(','),
    'a,b,c',
    `not every one of the three held for good (c: ${heldFor(sync(c, [a, b, c], services))?.slice(0, 200)})`,
  );
});
