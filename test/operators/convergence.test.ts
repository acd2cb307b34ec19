// The convergence property: a hook's answer, fed back to it as what Metacontroller observed, is a fixed point.
// Once the children it asked for exist, it asks for the same children again and reports the same status.
import fc from 'fast-check';
import t from 'tap';
import { memcachedSync as memcached } from '../fixtures/hooks.js';
import { mysqlSync as mysqlcluster } from '../fixtures/hooks.js';
import { podsetSync as podset } from '../fixtures/hooks.js';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';
import { NEW_CREDENTIALS_ANNOTATION } from '../../hooks/mysqlcluster/sync.js';
import { FIRST_BATCH } from '../../hooks/podset/sync.js';

type Sync = (req: CompositeSyncRequest, now: Date) => CompositeSyncResponse;
let n = 0;
const kinds: Array<[string, 'memcached' | 'podset' | 'mysqlcluster', Sync, (size: number) => Record<string, unknown>]> =
  [
    ['Memcached', 'memcached', memcached, (size) => ({ size })],
    ['PodSet', 'podset', podset, (size) => ({ size })],
    [
      'MySQLCluster',
      'mysqlcluster',
      (r, now) => mysqlcluster(r, now, () => `pw-${++n}`),
      (size) => ({ size, version: '8.0' }),
    ],
  ];

/**
 * Random pre-existing children that look like the parent's own: pods named `<parent>-<ordinal>` with its
 * instance label, with ordinals within and beyond the size (a scaled-down PodSet's leftovers, a StatefulSet's pods).
 */
const strayPods = fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 8 });

/**
 * What the answer must hold whatever was observed: the kind's own description of `size`, independent of the hook. A
 * PodSet that has pods named `<parent>-<ordinal>` (made before `-pod-`) keeps naming them so.
 */
function wanted(
  name: string,
  parentName: string,
  size: number,
  children: KubeObject[],
  legacy: boolean,
): string | undefined {
  const of = (kind: string) => children.filter((c) => c.kind === kind);
  if (name === 'podset') {
    const names = of('Pod').map((p) => p.metadata.name);
    const expected = Array.from({ length: size }, (_, i) => (legacy ? `${parentName}-${i}` : `${parentName}-pod-${i}`));
    return JSON.stringify(names) === JSON.stringify(expected) ? undefined : `pods ${names.length} != ${size}`;
  }
  const workload = of(name === 'memcached' ? 'Deployment' : 'StatefulSet');
  if (workload.length !== 1) return `${workload.length} workloads`;
  const replicas = (workload[0]!['spec'] as { replicas?: number }).replicas;
  if (replicas !== size) return `replicas ${replicas} != ${size}`;
  if (of('Service').length < 1) return 'no Service';
  return undefined;
}

/** Whether pods of the older form <name>-<ordinal> are among these. */
function legacyIn(parentName: string, pods: KubeObject[]): boolean {
  return pods.some(
    (p) => /^\d+$/.test(p.metadata.name!.slice(parentName.length + 1)) && p.metadata.name!.startsWith(`${parentName}-`),
  );
}

/** The children with the StatefulSet's record of passwords not yet seen removed (and nothing else). */
function withoutCredentialsRecord(children: KubeObject[]): KubeObject[] {
  return children.map((c) => {
    const annotations = c.metadata.annotations;
    if (c.kind !== 'StatefulSet' || !annotations || !(NEW_CREDENTIALS_ANNOTATION in annotations)) return c;
    const { [NEW_CREDENTIALS_ANNOTATION]: _record, ...rest } = annotations;
    const { annotations: _a, ...metadata } = c.metadata;
    return { ...c, metadata: Object.keys(rest).length ? { ...metadata, annotations: rest } : metadata };
  });
}

/** Feeds PodSet's answers back as OnDelete applies them until it names all its pods; at most one left out each time. */
function podsetRollout(
  parentName: string,
  size: number,
  existing: KubeObject[],
  answer: CompositeSyncResponse,
  keying: 'v1' | 'v2',
): CompositeSyncResponse {
  let pods = existing;
  for (let round = 0; round <= size + 2; round++) {
    // A PodSet with pods named <name>-<ordinal> (from before `-pod-`) keeps that form while it has any
    // (hooks/podset/sync.ts); once the rollout has replaced the last of them, the new names.
    const base = legacyIn(parentName, pods) ? parentName : `${parentName}-pod`;
    const expected = Array.from({ length: size }, (_, i) => `${base}-${i}`);
    const named = new Set(answer.children.map((c) => c.metadata.name));
    const left = expected.filter((n) => !named.has(n));
    // A new PodSet (no pod observed) makes a first batch of FIRST_BATCH, the rest once it is seen (hooks/podset/sync.ts).
    const firstBatch =
      pods.length === 0 && answer.children.filter((c) => c.kind === 'Pod').length === Math.min(size, FIRST_BATCH);
    if (left.length > 1 && !firstBatch)
      throw new Error(`size ${size}, round ${round}: ${left.length} members left out: ${left}`);
    if (left.length === 0) return answer;
    const observed = new Map(pods.map((p) => [p.metadata.name, p]));
    pods = answer.children.map((c) => observed.get(c.metadata.name) ?? asObserved(c, { ...readyPod }));
    const next = request('podset', { size }, { children: objectMap(pods, keying) });
    next.parent.status = answer.status;
    answer = podset(next, FIXED_NOW);
  }
  throw new Error(`size ${size}: still rolling after ${size + 2} rounds`);
}

for (const [kind, name, sync, spec] of kinds) {
  t.test(`${kind}: desired children fed back as observed are a fixed point`, async (t) => {
    const max = name === 'mysqlcluster' ? 9 : 50;
    const result = fc.check(
      fc.property(fc.integer({ min: 0, max }), strayPods, fc.constantFrom('v1', 'v2'), (size, ordinals, keying) => {
        const parentName = request(name, spec(size)).parent.metadata.name!;
        const existing: KubeObject[] = [...new Set(ordinals)].map((i) =>
          asObserved(
            {
              apiVersion: 'v1',
              kind: 'Pod',
              metadata: {
                name: `${parentName}-${i}`,
                namespace: 'default',
                labels: { 'app.kubernetes.io/instance': parentName },
              },
            },
            { phase: 'Running' },
          ),
        );
        let first = sync(
          request(name, spec(size), { children: objectMap(existing, keying as 'v1' | 'v2') }),
          FIXED_NOW,
        );
        // PodSet rolls its own pods: the stray ones (no template hash, not Ready) are replaced one at a time, each
        // answer leaving out at most one member, Metacontroller applying it as OnDelete does (create what is
        // missing, delete what is left out, change nothing in place); the answers reach the fixed point after.
        if (name === 'podset') first = podsetRollout(parentName, size, existing, first, keying as 'v1' | 'v2');
        const problem = wanted(name, parentName, size, first.children, legacyIn(parentName, first.children));
        if (problem) throw new Error(`size ${size}: ${problem}`);
        // Metacontroller applies the answer: the children now exist as asked, and the parent has the status.
        const observed = objectMap(
          first.children.map((c) => asObserved(c)),
          keying as 'v1' | 'v2',
        );
        const second = request(name, spec(size), { children: observed });
        second.parent.status = first.status;
        const again = sync(second, new Date(FIXED_NOW.getTime() + 3_600_000));
        const third = request(name, spec(size), { children: observed });
        third.parent.status = again.status;
        // A minute later: the pods fed back are never Ready, and members made and not Ready for 600 s without
        // progress are past the progress deadline (lib/replicas.ts): a status that changes once, not a loop.
        const steady = sync(third, new Date(FIXED_NOW.getTime() + 3_660_000));
        // A new MySQLCluster's StatefulSet carries a record until the Secret is seen (hooks/mysqlcluster/sync.ts
        // NEW_CREDENTIALS_ANNOTATION): the second answer drops it, and nothing else changes.
        if (JSON.stringify(again.children) !== JSON.stringify(withoutCredentialsRecord(first.children))) return false;
        if (JSON.stringify(steady.children) !== JSON.stringify(again.children)) return false;
        return JSON.stringify(steady.status) === JSON.stringify(again.status);
      }),
      { numRuns: 200 },
    );
    t.notOk(
      result.failed,
      result.failed
        ? `counterexample ${JSON.stringify(result.counterexample)}: ${String(result.errorInstance)}`
        : 'held for 200 random cases',
    );
    t.equal(result.numRuns, 200);
  });
}
