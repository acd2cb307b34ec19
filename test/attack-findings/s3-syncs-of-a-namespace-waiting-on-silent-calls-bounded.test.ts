// Attack (issue 29, tenant A against tenant B): docs/operating.md gives EtcdCluster syncs a share per namespace (at
// most 2 of a namespace's syncs wait on its members at once, the rest answered 429 at once: TENANT_MAX_SYNCS), so that
// Metacontroller's five workers of a kind, which every namespace shares, are never all held by one tenant's slow
// dependency. It gives S3 none: "The S3 hook's calls go only to the operator's AWS endpoint ..., each within its
// deadline (4 s, 7 s a sync): a tenant cannot make them slow or silent, so it has no share counted in calls." But the
// tenant picks the region its bucket calls go to (`spec.region`: any region of the operator's partition), and the
// hardening docs/operating.md recommends, `networkPolicy.egress.https=restricted` with `awsCidrs` naming the VPC
// endpoints of the operator's region, drops every connection to another region's endpoint: its calls are silent until
// their deadline (a SYN that is never answered: 2 s to connect, 4 s a call). Tenant A's S3 resources naming such a
// region each hold a worker ~4 s (the bucket is looked up before the namespace's bucket bound is counted, so resources
// past the bound do too), again every 30 s (Unreachable): about 38 of them keep all five of Metacontroller's S3
// workers busy, and tenant B's S3 syncs wait behind them in Metacontroller's queue.
//
// Stand-in: the in-memory AWS, whose calls about buckets in the dropped region never answer until the test lets them
// go (the deadline). Metacontroller's five workers call the hook with five of A's resources at once.
//
// Must hold: as for EtcdCluster, at most two syncs of one namespace wait on AWS at once; the others are answered at
// once (told to retry), leaving Metacontroller's workers to other namespaces.
import t from 'tap';
import { AwsError, type AwsApi } from '../../hooks/s3/api.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { NamespaceResource } from '../fixtures/s3-namespace.js';

/** A region of the operator's partition whose endpoints the server's egress policy drops. */
const DROPPED = 'ap-south-2';
/** Metacontroller's workers per controller. */
const WORKERS = 5;
/** EtcdCluster's share of syncs of one namespace that may wait on a dependency at once (TENANT_MAX_SYNCS). */
const SHARE = 2;

/** The fake, its calls about buckets in DROPPED held until `release` (then failing as a call past its deadline). */
function droppedRegion(fake: FakeAws) {
  let pending = 0;
  const waiters: Array<() => void> = [];
  const aws: AwsApi = new Proxy(fake, {
    get(target, prop, receiver) {
      if (prop === 'withDeadline') return () => aws;
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (prop === 'findBucket' && args[1] === DROPPED) {
          pending++;
          await new Promise<void>((resolve) => waiters.push(resolve));
          pending--;
          throw new AwsError('TimeoutError', 'no answer within 4000 ms', 'GetBucketTagging');
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { aws, pending: () => pending, release: () => waiters.splice(0).forEach((w) => w()) };
}

const settle = async () => {
  for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
};

t.test("a namespace's S3 syncs waiting on silent AWS calls hold at most its share of workers", async (t) => {
  const fake = new FakeAws();
  const dropped = droppedRegion(fake);
  const a = Array.from(
    { length: WORKERS },
    (_, i) =>
      new NamespaceResource(
        fake,
        'tenant-a',
        `r${i}`,
        { bucketName: `tenant-a-r${i}`, region: DROPPED },
        {},
        dropped.aws,
      ),
  );
  const syncs = a.map((r) => r.sync());
  let answered = 0;
  for (const s of syncs) void s.then(() => answered++);
  await settle();
  const waiting = dropped.pending();
  const answeredBefore = answered;
  dropped.release();
  await Promise.all(syncs);
  t.comment(
    `${waiting} of tenant A's ${WORKERS} syncs waited on a silent call; ${answeredBefore} were answered before the calls' deadline`,
  );
  t.ok(
    waiting <= SHARE,
    `at most ${SHARE} of one namespace's syncs wait on AWS at once (${waiting} of ${WORKERS} did: every worker A's)`,
  );
});
