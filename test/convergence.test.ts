// The convergence property: a hook's answer, fed back to it as what Metacontroller observed, is a fixed point.
// Once the children it asked for exist, it asks for the same children again and reports the same status.
import fc from 'fast-check';
import t from 'tap';
import { sync as memcached } from '../hooks/memcached/sync.js';
import { sync as mysqlcluster } from '../hooks/mysqlcluster/sync.js';
import { sync as podset } from '../hooks/podset/sync.js';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject } from '../lib/metacontroller.js';
import { asObserved, FIXED_NOW, objectMap, request } from './fixtures/requests.js';

type Sync = (req: CompositeSyncRequest, now: Date) => CompositeSyncResponse;
let n = 0;
const kinds: Array<[string, 'memcached' | 'podset' | 'mysqlcluster', Sync, (size: number) => Record<string, unknown>]> = [
  ['Memcached', 'memcached', memcached, (size) => ({ size })],
  ['PodSet', 'podset', podset, (size) => ({ size })],
  ['MySQLCluster', 'mysqlcluster', (r, now) => mysqlcluster(r, now, () => `pw-${++n}`), (size) => ({ size, version: '8.0' })],
];

/** Random pre-existing children: pods with ordinals beyond or within the size, under the parent's labels. */
const strayPods = fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 8 });

for (const [kind, name, sync, spec] of kinds) {
  t.test(`${kind}: desired children fed back as observed are a fixed point`, async (t) => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 50 }), strayPods, fc.constantFrom('v1', 'v2'), (size, ordinals, keying) => {
        const existing: KubeObject[] = [...new Set(ordinals)].map((i) =>
          asObserved({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `${name}-stray-${i}`, namespace: 'default' } }),
        );
        const first = sync(request(name, spec(size), { children: objectMap(existing, keying as 'v1' | 'v2') }), FIXED_NOW);
        // Metacontroller applies the answer: the children now exist as asked, and the parent has the status.
        const observed = objectMap(first.children.map((c) => asObserved(c)), keying as 'v1' | 'v2');
        const second = request(name, spec(size), { children: observed });
        second.parent.status = first.status;
        const again = sync(second, new Date(FIXED_NOW.getTime() + 3_600_000));
        const third = request(name, spec(size), { children: observed });
        third.parent.status = again.status;
        const steady = sync(third, new Date(FIXED_NOW.getTime() + 7_200_000));
        if (JSON.stringify(again.children) !== JSON.stringify(first.children)) return false;
        if (JSON.stringify(steady.children) !== JSON.stringify(first.children)) return false;
        return JSON.stringify(steady.status) === JSON.stringify(again.status);
      }),
      { numRuns: 200 },
    );
    t.pass('property held for 200 random cases');
  });
}
