// A Memcached's Deployment leaves its strategy to Kubernetes: RollingUpdate with maxSurge 25% (rounded up). During a
// rollout it may have the replicas, the surge's new pods, and as many old pods still terminating (objects until their
// grace period ends): the pods a sync request may carry, and what decides whether they are asked for. The numbers
// here are counted from that rule by hand, not by the function under test.
import t from 'tap';
import { deployment, podsAtOnce } from '../../hooks/memcached/sync.js';
import { request } from '../fixtures/requests.js';

t.test("the Deployment sets no strategy: Kubernetes' RollingUpdate of 25% surge applies", async (t) => {
  const req = request('memcached', {});
  const spec = { size: 8, image: 'memcached:1.6.38-alpine', port: 11211, progressDeadlineSeconds: 600 };
  const d = deployment({ ...req.parent, spec } as never, spec as never) as unknown as { spec: Record<string, unknown> };
  t.equal(d.spec['strategy'], undefined);
});

for (const [size, surge, expected] of [
  [1, 1, 3],
  [3, 1, 5],
  [4, 1, 6],
  [5, 2, 9],
  [8, 2, 12],
  [9, 3, 15],
  [100, 25, 150],
  [1000, 250, 1500],
] as const) {
  t.test(
    `size ${size}: ${size} replicas, a surge of ${surge} and ${surge} terminating: ${expected} pods at once`,
    async (t) => {
      t.equal(podsAtOnce(size), expected);
    },
  );
}
