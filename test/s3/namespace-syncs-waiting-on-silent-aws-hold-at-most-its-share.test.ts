// A namespace's S3 hook calls that call AWS at once are bounded (hooks/s3/share.ts S3_TENANT_MAX_SYNCS, 2, as
// EtcdCluster's TENANT_MAX_SYNCS), counted before any call. The tenant picks the region its bucket calls go to
// (spec.region), and the restricted egress docs/operating.md recommends drops every other region's endpoint: such calls
// are silent until their deadline (~4 s). Metacontroller's five workers of a kind are every namespace's; a namespace's
// syncs past its share are answered at once without a call (every observed child and the status kept, Synced=False
// WaitingForNamespaceShare, asked again soon), leaving the workers to other namespaces.
//
// Stand-in: the in-memory AWS, whose calls about buckets in the dropped region never answer until the test lets them
// go (the deadline). Metacontroller's five workers call the hook with five of A's resources at once.
import t from 'tap';
import { AwsError } from '../../hooks/s3/api.js';
import { WAITING_FOR_SHARE } from '../../hooks/s3/share.js';
import { FakeAws, viewOf } from '../fixtures/fake-aws.js';
import { budgeted } from '../fixtures/hooks.js';
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
  const aws = viewOf(fake, async (method, args, call) => {
    if (method === 'findBucket' && args[1] === DROPPED) {
      pending++;
      await new Promise<void>((resolve) => waiters.push(resolve));
      pending--;
      throw new AwsError('TimeoutError', 'no answer within 4000 ms', 'GetBucketTagging');
    }
    return call();
  });
  return { aws, pending: () => pending, release: () => waiters.splice(0).forEach((w) => w()) };
}

const settle = async () => {
  for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
};

t.test("a namespace's S3 syncs waiting on silent AWS calls hold at most its share of workers", async (t) => {
  const fake = new FakeAws();
  budgeted(fake);
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
  // Another namespace's sync, while A's wait: served (its own share).
  const b = new NamespaceResource(fake, 'tenant-b', 'data', { bucketName: 'tenant-b-data' }, {}, dropped.aws);
  await b.sync();
  t.equal(b.ready()['status'], 'True', "tenant B's resource is made while tenant A's syncs wait", { ready: b.ready() });
  t.equal(answeredBefore, WORKERS - SHARE, "A's syncs past its share are answered before the calls' deadline");
  dropped.release();
  const answers = await Promise.all(syncs);
  const told = a.filter((r) => {
    const synced = ((r.status?.['conditions'] as any[]) ?? []).find((c) => c.type === 'Synced');
    return synced?.reason === WAITING_FOR_SHARE;
  });
  t.equal(told.length, WORKERS - SHARE, 'each sync past the share says it waits for its namespace share');
  t.ok(
    answers.every((res, i) => !told.includes(a[i]!) || (res.resyncAfterSeconds ?? Infinity) <= 10),
    'and is asked again soon',
  );
  t.comment(
    `${waiting} of tenant A's ${WORKERS} syncs waited on a silent call; ${answeredBefore} were answered before the calls' deadline`,
  );
  t.ok(
    waiting <= SHARE,
    `at most ${SHARE} of one namespace's syncs wait on AWS at once (${waiting} of ${WORKERS} did: every worker A's)`,
  );
});
