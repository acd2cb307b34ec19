// lib/ownership.ts takenNames: a name free now that the parent's status.heldBy records as held by another parent that
// still exists and still wants it stays held (the holder makes it again), unless that holder was made after this
// parent and its own status.heldBy says it yields to this one (yieldsTo: two parents made together, the later one
// never served and released the name). Then the name is this parent's: else both stay held for good.
import t from 'tap';
import type { CompositeSyncRequest, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { takenNames, type ChildName, type HolderWants } from '../../lib/ownership.js';
import { objectMap } from '../fixtures/requests.js';

const NS = 'ns';
const service: ChildName = { apiVersion: 'v1', kind: 'Service', name: 'x-svc' };
const pod: ChildName = { apiVersion: 'v1', kind: 'Pod', name: 'x-svc-0' };
const ref = (o: { apiVersion: string; kind: string; metadata: { name?: string; uid?: string } }) => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  name: o.metadata.name!,
  uid: o.metadata.uid!,
});
const first = (status?: Record<string, unknown>, created = '2026-01-02T03:00:00Z'): ParentObject =>
  ({
    apiVersion: 'example.com/v1',
    kind: 'First',
    metadata: { name: 'x-svc', namespace: NS, uid: 'uid-b-first', generation: 1, creationTimestamp: created },
    spec: {},
    ...(status ? { status } : {}),
  }) as ParentObject;
/** The other parent: it wants the Service and a StatefulSet `x` whose pod takes `x-svc-0`. */
const later = (status: Record<string, unknown>, over: Partial<KubeObject['metadata']> = {}) =>
  ({
    apiVersion: 'example.com/v1',
    kind: 'Later',
    metadata: { name: 'x', namespace: NS, uid: 'uid-c-later', creationTimestamp: '2026-01-02T03:00:00Z', ...over },
    spec: {},
    status,
  }) as unknown as KubeObject;
const sts = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'x', uid: 'uid-sts' } };
const wants: HolderWants = (h) =>
  h.kind === 'Later' ? [service, pod, { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'x' }] : undefined;
/** The first's records: the Service held by the later parent, the pod by its StatefulSet. */
const records = (l: KubeObject) => ({
  heldBy: [
    { child: service, holder: ref(l as any) },
    { child: pod, holder: ref(sts) },
  ],
});
const yields = (to: ParentObject) => ({
  heldBy: [{ child: pod, holder: ref(to as any), yieldsTo: ref(to as any) }],
});
const req = (parent: ParentObject, related: KubeObject[]): CompositeSyncRequest => ({
  controller: {},
  parent,
  children: {},
  related: objectMap(related),
});
const taken = (parent: ParentObject, holder: KubeObject) =>
  takenNames(req(parent, [holder]), [service, pod], undefined, wants).map((x) => x.child.name);

t.test('names released by a parent made after this one, which says it yields to it, are free', async (t) => {
  const l = later(yields(first()));
  t.same(taken(first(records(l)), l), [], 'the Service and the pod its StatefulSet made are free');
});

t.test('the same names stay held when the holder does not say it yields to this parent', async (t) => {
  const l = later({});
  t.same(taken(first(records(l)), l), ['x-svc', 'x-svc-0'], 'no yieldsTo: held (it makes them again)');
  const other = later({ heldBy: [{ child: pod, holder: ref(sts), yieldsTo: { ...ref(sts), uid: 'uid-someone' } }] });
  t.same(taken(first(records(other)), other), ['x-svc', 'x-svc-0'], 'it yields to another parent: held');
});

t.test('a holder made before this parent keeps the names, whatever its status says it yields', async (t) => {
  // The same second, a lower uid: made first. A yieldsTo naming a parent made after it is no release.
  const l = later(yields(first()), { uid: 'uid-a-earlier' });
  t.same(taken(first(records(l)), l), ['x-svc', 'x-svc-0'], 'the lower uid is first: held');
  const older = later(yields(first()), { creationTimestamp: '2026-01-02T02:59:59Z' });
  t.same(taken(first(records(older)), older), ['x-svc', 'x-svc-0'], 'made a second earlier: held');
});
