// A PodSet whose pods would be more than ASK_ALL_BYTES sent again as related objects asks, of the names its status
// does not list, at most ASK_ALL_BYTES' worth of each form, the lowest ordinals first (hooks/podset/sync.ts
// childNames): the answer Metacontroller keeps may be one asked while the status listed none of the pods that run now,
// and every name asked then sent each pod twice, past the body limit. A pod name another owner holds among the names
// asked is still seen (PodNameTaken, that pod alone not made), and whatever the status the answer was asked with, the
// PodSet's own pods asked again stay within the bound.
import fc from 'fast-check';
import t from 'tap';
import { ASK_ALL_BYTES, FIRST_BATCH } from '../../hooks/podset/sync.js';
import type { CompositeSyncResponse, ParentObject } from '../../lib/metacontroller.js';
import { podsetCustomize, podsetPodsSync as podsetSync } from '../fixtures/hooks.js';
import { replicaSetPod } from '../fixtures/pod-name-holders.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const SPEC = { size: 900, image: 'busybox:1.36', command: ['sleep', '3600'] };
const asked = (parent: ParentObject) =>
  podsetCustomize(parent)
    .filter((r) => r.apiVersion === 'v1' && r.resource === 'pods')
    .flatMap((r) => r.names ?? []);
const ready = (res: CompositeSyncResponse) =>
  ((res.status as any).conditions as Array<Record<string, unknown>>).find((c) => c['type'] === 'Ready');

t.test('a new 900-pod PodSet: a pod name another owner holds among those asked is seen', async (t) => {
  const req = request('podset', SPEC);
  const { name, namespace } = req.parent.metadata;
  // The answer asked when the PodSet was new (no status), kept for its generation.
  const names = new Set(asked(req.parent));
  const taken = `${name}-pod-7`;
  t.ok(names.has(taken), `${taken} asked for`);
  const related = [replicaSetPod(taken, namespace!)].filter((p) => names.has(p.metadata.name!));
  const res = podsetSync(request('podset', SPEC, { parent: req.parent, related: objectMap(related) }), FIXED_NOW);
  t.match(ready(res), { status: 'False', reason: 'PodNameTaken', message: new RegExp(`^Pod ${taken} belongs to`) });
  t.notOk(
    res.children.some((c) => c.metadata.name === taken),
    'no pod answered under the name another owner holds',
  );
  // A new PodSet of 900 pods is made in batches (hooks/podset/sync.ts podsThatFit): every other pod of the first.
  const batch = podsetSync(request('podset', SPEC, { parent: req.parent }), FIXED_NOW).children.length;
  t.equal(batch, FIRST_BATCH, `a first batch of ${batch} pods`);
  t.equal(res.children.length, batch - 1, 'every other pod of the first batch answered');
});

t.test('a 900-pod PodSet listing its pods: a pod gone and its name taken since is seen', async (t) => {
  // Made in two batches: the first, and once it is seen, the rest.
  const batch = podsetSync(request('podset', SPEC), FIXED_NOW).children.map((c) => asObserved(c, { phase: 'Running' }));
  const first = podsetSync(request('podset', SPEC, { children: objectMap(batch) }), FIXED_NOW);
  const pods = first.children.map((c) => asObserved(c, { phase: 'Running' }));
  t.equal(pods.length, 900);
  const req = request('podset', SPEC, { children: objectMap(pods) });
  const { name, namespace } = req.parent.metadata;
  const gone = `${name}-pod-612`;
  const nodes = pods.map((p) => p.metadata.name!).filter((n) => n !== gone);
  // Asked with a status that lists every pod but the one gone (evicted, and another owner's pod made under its name).
  const parent = { ...req.parent, status: { nodes } } as ParentObject;
  const names = new Set(asked(parent));
  t.ok(names.has(gone), `${gone}, not listed, asked for`);
  t.notOk(names.has(`${name}-pod-0`), 'the pods it lists are not asked for again');
  const observed = pods.filter((p) => p.metadata.name !== gone);
  const related = [replicaSetPod(gone, namespace!)].filter((p) => names.has(p.metadata.name!));
  const res = podsetSync(
    request('podset', SPEC, { parent, children: objectMap(observed), related: objectMap(related) }),
    FIXED_NOW,
  );
  t.match(ready(res), { status: 'False', reason: 'PodNameTaken' });
  t.notOk(
    res.children.some((c) => c.metadata.name === gone),
    'no pod answered under the name another owner holds',
  );
  t.equal(res.children.length, 899, 'the running pods kept');
});

t.test("whatever the status the answer was asked with, at most ASK_ALL_BYTES' worth of each form", async (t) => {
  const parent = request('podset', SPEC).parent;
  const name = parent.metadata.name!;
  // A pod of this spec as a 1.30+ kubelet reports it, with managedFields: ~4.6 KB
  // (test/podset/sync-request-within-body-limit-whatever-the-status-listed.test.ts).
  const bound = Math.floor(ASK_ALL_BYTES / 4600);
  const modern = Array.from({ length: 900 }, (_, i) => `${name}-pod-${i}`);
  const legacy = Array.from({ length: 900 }, (_, i) => `${name}-${i}`);
  fc.assert(
    fc.property(
      fc.oneof(
        fc.constant(undefined),
        fc.constant({}),
        fc.record({ nodes: fc.subarray(modern) }),
        fc.record({ nodes: fc.subarray(legacy) }),
        fc.record({ nodes: fc.constant('not a list') }),
      ),
      (status) => {
        const names = asked({ ...parent, ...(status === undefined ? {} : { status }) } as ParentObject);
        const listed = new Set((status as { nodes?: unknown } | undefined)?.nodes as string[] | undefined);
        const ofModern = names.filter((n) => n.startsWith(`${name}-pod-`));
        const ofLegacy = names.filter((n) => !n.startsWith(`${name}-pod-`));
        return (
          ofModern.length <= bound &&
          ofLegacy.length <= bound &&
          names.every((n) => !(Array.isArray((status as any)?.nodes) && listed.has(n))) &&
          // Not listed, lowest first: the names not asked for are listed, or above every one asked of their form.
          [modern, legacy].every((form) => {
            const of = new Set(names.filter((n) => form.includes(n)));
            const highest = Math.max(-1, ...form.flatMap((n, i) => (of.has(n) ? [i] : [])));
            return form.slice(0, highest).every((n) => of.has(n) || listed.has(n));
          })
        );
      },
    ),
    { numRuns: 60 },
  );
  t.pass('bounded');
});
