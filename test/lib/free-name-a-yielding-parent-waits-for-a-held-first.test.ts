// lib/ownership.ts: a parent held for names itself (`<Kind>NameTaken`) creates nothing, so it keeps no free name from
// a parent made after it (keptByEarlier, stillHeld) — except from one that yields to it. Parent e (made first) wants
// Services m and n; x holds m, so e is held. p (made last, never served) wants n: free, e held, so p takes it; e is
// then held by p's n too, and p, reading e's records, yields: it releases n (Metacontroller deletes it) and records
// yieldsTo e. n is free again: p must wait for e now, not take n again (else p would make and release n round after
// round, and e's status would flip with it).
import t from 'tap';
import type {
  CompositeSyncRequest,
  CompositeSyncResponse,
  KubeObject,
  ParentObject,
} from '../../lib/metacontroller.js';
import { guardAnswer } from '../../lib/ownership.js';
import { holderParent, holderService, holderWants as wants, servedBut } from '../fixtures/holders.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';

const made = { x: '2020-01-01T00:00:00Z', e: '2020-01-01T01:00:00Z', p: '2020-01-01T02:00:00Z' } as const;
const specs = { x: ['m'], e: ['m', 'n'], p: ['n'] } as const;
type Name = keyof typeof made;

const parent = (name: Name, status?: unknown): ParentObject => holderParent(name, made[name], specs[name], status);
// p never served (it yields to a parent made before it); x and e did.
const served = servedBut('p');
/** Service `name`, made by `owner` (a uid of its own each time it is made). */
const service = (name: string, owner: Name): KubeObject => holderService(name, owner, `uid-svc-${name}-${owner}`);

t.test('a parent that yielded to a held first waits for it, and does not take the name again', async (t) => {
  let services: KubeObject[] = [service('m', 'x')];
  const status: Partial<Record<Name, unknown>> = {};
  const owner = (s: KubeObject) => (s.metadata as any).ownerReferences[0].name as Name;
  const created: string[] = [];
  const answers: string[] = [];
  for (let round = 0; round < 6; round++) {
    for (const name of ['x', 'e', 'p'] as const) {
      const p = parent(name, status[name]);
      const own = services.filter((s) => owner(s) === name);
      const request: CompositeSyncRequest = {
        controller: {},
        parent: p,
        children: objectMap(own),
        related: objectMap([
          ...(['x', 'e', 'p'] as const).filter((o) => o !== name).map((o) => parent(o, status[o]) as KubeObject),
          ...services.filter((s) => owner(s) !== name),
        ]),
      };
      const answer: CompositeSyncResponse = {
        status: { conditions: [] },
        children: specs[name].map((n) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: n } }) as KubeObject),
      };
      const res = guardAnswer(request, answer, FIXED_NOW, wants, { served });
      status[name] = res.status;
      // Metacontroller: creates what the answer names and is free, deletes the parent's own it no longer names.
      const named = new Set(res.children.map((c) => c.metadata.name));
      services = services.filter((s) => owner(s) !== name || named.has(s.metadata.name));
      for (const n of named)
        if (!services.some((s) => s.metadata.name === n)) {
          services.push(service(n!, name));
          created.push(`${name}:${n}`);
        }
      if (name === 'p') answers.push(JSON.stringify(res));
    }
  }
  t.ok(created.filter((c) => c === 'p:n').length <= 1, `p makes Service n at most once (made: ${created.join(', ')})`);
  t.equal(answers.at(-1), answers.at(-2), 'p answers the same once settled');
  const ready = (status.p as any).conditions.find((c: any) => c.type === 'Ready');
  t.match(ready, { status: 'False', reason: 'ServiceNameTaken', message: /Holder e/ }, 'p is held, naming e');
  t.notOk(
    services.some((s) => s.metadata.name === 'n'),
    'n waits for e',
  );
});
