// keepObserved answers a kept child in its last-applied annotation's shape with the child's values; both are text
// the tenant writes on its own children. A list of objects is matched element by element (keepListShape): each
// element of the annotation takes the first element of the child's with its merge key (or its text) not taken yet.
// With many elements of one key on both sides (env entries all named `a`: the API server keeps duplicate env names;
// tolerations all `{"operator":"Exists"}`), the search for the next element not taken scanned every element taken
// before it: n²/2 steps for n elements, ~190 million for the 19,500 a 256 KiB annotation holds, about a second of
// the server's one thread per child (test/etcdcluster/kept-member-pods-cost-bounded-whatever-their-lists.test.ts).
// Counted here as the predicate calls of the array searches keepObserved makes (Array.prototype.find), not as time.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { keepObserved, LAST_APPLIED } from '../../lib/objects.js';

/** Runs `fn`, counting the calls Array.prototype.find makes to its predicates meanwhile. */
function findSteps(fn: () => void): number {
  const find = Array.prototype.find;
  let steps = 0;
  Array.prototype.find = function (this: unknown[], predicate: (v: unknown, i: number, a: unknown[]) => unknown) {
    return find.call(this, (v: unknown, i: number, a: unknown[]) => {
      steps++;
      return predicate(v, i, a);
    });
  } as typeof find;
  try {
    fn();
  } finally {
    Array.prototype.find = find;
  }
  return steps;
}

function pod(field: 'env' | 'tolerations', live: unknown[], applied: unknown[]): KubeObject {
  const spec = (list: unknown[]) =>
    field === 'env' ? { containers: [{ name: 'c', env: list }] } : { containers: [{ name: 'c' }], tolerations: list };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'p',
      namespace: 'team-a',
      annotations: {
        [LAST_APPLIED]: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: spec(applied) }),
      },
    },
    spec: spec(live),
  };
}

const N = 4000;

t.test('a list matched by its merge key: work in proportion to its elements, whatever keys repeat', async (t) => {
  const entries = () => Array.from({ length: N }, () => ({ name: 'a' }));
  const steps = findSteps(() => keepObserved(pod('env', entries(), entries())));
  t.ok(steps <= 20 * N, `${steps} steps for ${N} elements on each side`);
});

t.test('a list matched by its elements: work in proportion to its elements, whatever elements repeat', async (t) => {
  const same = () => Array.from({ length: N }, () => ({ operator: 'Exists' }));
  // The child's first element is another one: every element of the annotation misses its index and is searched for.
  const live = [{ key: 'other', operator: 'Equal', value: 'v' }, ...same()];
  const steps = findSteps(() => keepObserved(pod('tolerations', live, same())));
  t.ok(steps <= 20 * N, `${steps} steps for ${N} elements on each side`);
});
