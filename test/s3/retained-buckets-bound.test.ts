// one S3 resource, renamed again and again with deletionPolicy
// Retain, makes a new bucket at each rename and keeps every old one. The account's bucket quota is shared by every
// tenant (S3: 10,000 general purpose buckets per account by default, 100 on older accounts), and a ResourceQuota on
// s3s counts objects, not renames: one object of one namespace can take every bucket the account may have, and the
// status, which reads back at most 100 names, stops listing the buckets it left behind.
import t from 'tap';
import { OWNER_UID_TAG } from '../../hooks/s3/api.js';
import { MAX_BUCKETS } from '../../hooks/s3/sync.js';
import type { ParentObject } from '../../lib/metacontroller.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { s3Sync as sync } from '../fixtures/hooks.js';
import { asObserved, objectMap } from '../fixtures/requests.js';

t.test('one S3 resource renamed 150 times with Retain: the buckets it leaves are bounded and all listed', async (t) => {
  const aws = new FakeAws();
  let status: Record<string, unknown> | undefined;
  let children: ReturnType<typeof asObserved>[] = [];
  for (let i = 0; i < 150; i++) {
    const parent: ParentObject = {
      apiVersion: 'systek.no/v1',
      kind: 'S3',
      metadata: { name: 'data', namespace: 'tenant-a', uid: 'uid-a', generation: i + 1 },
      spec: { bucketName: `tenant-a-flood-${String(i).padStart(4, '0')}`, deletionPolicy: 'Retain' },
    };
    if (status) parent.status = structuredClone(status);
    const res = await sync(
      { controller: {}, parent, children: objectMap(children, 'v1', ['Secret.v1']) },
      aws,
      new Date('2026-01-02T03:04:05Z'),
    );
    status = res.status ?? undefined;
    children = res.children.map((c) => asObserved(c));
  }
  const mine = [...aws.buckets].filter(([, b]) => b.tags.get(OWNER_UID_TAG) === 'uid-a').map(([name]) => name);
  const listed = new Set([
    ...((status?.['createdBuckets'] as string[] | undefined) ?? []),
    ...((status?.['retainedBuckets'] as string[] | undefined) ?? []),
  ]);
  t.ok(
    mine.length <= 101,
    `one object made at most about a hundred buckets in the shared account (made ${mine.length})`,
  );
  t.same(
    mine.filter((b) => !listed.has(b)).length,
    0,
    `every bucket this resource made and left is in its status (${mine.filter((b) => !listed.has(b)).length} are not)`,
  );
});

/** Renames one resource through `names` (each synced once, its answer fed back as Metacontroller would). */
async function renames(
  aws: FakeAws,
  names: string[],
  deletionPolicy = 'Retain',
  start?: { status: Record<string, unknown> | undefined; observed: ReturnType<typeof asObserved>[] },
) {
  let status = start?.status;
  let children: ReturnType<typeof asObserved>[] = start?.observed ?? [];
  let res;
  for (const [i, bucketName] of names.entries()) {
    const parent: ParentObject = {
      apiVersion: 'systek.no/v1',
      kind: 'S3',
      metadata: { name: 'data', namespace: 'tenant-a', uid: 'uid-a', generation: i + 1 },
      spec: { bucketName, deletionPolicy },
    };
    if (status) parent.status = structuredClone(status);
    res = await sync(
      { controller: {}, parent, children: objectMap(children, 'v1', ['Secret.v1']) },
      aws,
      new Date('2026-01-02T03:04:05Z'),
    );
    status = res.status ?? undefined;
    children = res.children.map((c) => asObserved(c));
  }
  const ready = ((status?.['conditions'] ?? []) as Array<Record<string, unknown>>).find((c) => c['type'] === 'Ready');
  return { status, ready, children: res?.children ?? [], observed: children };
}

const names = (n: number) => Array.from({ length: n }, (_, i) => `tenant-a-b${i}`);

t.test(`a rename past ${MAX_BUCKETS} buckets is refused: Ready=False TooManyBuckets, nothing created`, async (t) => {
  const aws = new FakeAws();
  const first = await renames(aws, names(MAX_BUCKETS));
  t.equal(first.ready?.['status'], 'True', `${MAX_BUCKETS} buckets are allowed`);
  const before = aws.calls.length;
  const { status, ready, children } = await renames(aws, ['tenant-a-one-more'], 'Retain', first);
  t.equal(ready?.['status'], 'False');
  t.equal(ready?.['reason'], 'TooManyBuckets');
  t.match(String(ready?.['message']), /tenant-a-one-more/, 'names the bucket it will not create');
  t.match(String(ready?.['message']), /Delete the retained buckets you no longer need/, 'says what to do');
  t.same(aws.calls.slice(before), [], 'no AWS change at all (no bucket, no record of intent)');
  t.notOk(aws.buckets.has('tenant-a-one-more'));
  t.same(status?.['createdBuckets'], [`tenant-a-b${MAX_BUCKETS - 1}`], 'the current bucket stays');
  t.equal((status?.['retainedBuckets'] as string[]).length, MAX_BUCKETS - 1, 'every retained bucket listed');
  t.same(
    children.map((c) => c.metadata?.name),
    ['data-credentials'],
    'the credentials Secret stays (the workload keeps its current bucket)',
  );
});

t.test(
  'a retained bucket deleted in AWS frees its place; renaming back to a retained bucket creates none',
  async (t) => {
    const aws = new FakeAws();
    const first = await renames(aws, names(MAX_BUCKETS));
    const back = await renames(aws, ['tenant-a-b0'], 'Retain', first);
    t.equal(back.ready?.['status'], 'True', 'back to a bucket it has: allowed at the limit');
    t.equal(aws.calls.filter((c) => c.startsWith('createBucket')).length, MAX_BUCKETS, 'no bucket created for it');
    aws.buckets.delete('tenant-a-b3');
    const next = await renames(aws, ['tenant-a-new'], 'Retain', back);
    t.equal(next.ready?.['status'], 'True', `Ready (${next.ready?.['reason']}: ${next.ready?.['message']})`);
    t.ok(aws.buckets.has('tenant-a-new'));
    t.notOk(
      (next.status?.['retainedBuckets'] as string[]).includes('tenant-a-b3'),
      'the deleted one is no longer listed',
    );
  },
);

t.test('with deletionPolicy Delete, old buckets that are not empty count too', async (t) => {
  const aws = new FakeAws();
  let state: Awaited<ReturnType<typeof renames>> | undefined;
  for (const name of names(MAX_BUCKETS + 5)) {
    state = await renames(aws, [name], 'Delete', state);
    const b = aws.buckets.get(name);
    if (b) b.objects = 1; // a workload wrote to it: a rename cannot delete it without forceDelete
  }
  t.ok(aws.buckets.size <= MAX_BUCKETS, `at most ${MAX_BUCKETS} buckets (${aws.buckets.size})`);
  const status = state?.status;
  t.equal(state?.ready?.['reason'], 'TooManyBuckets');
  const listed = new Set([
    ...((status?.['createdBuckets'] as string[] | undefined) ?? []),
    ...((status?.['retainedBuckets'] as string[] | undefined) ?? []),
  ]);
  t.same(
    [...aws.buckets.keys()].filter((b) => !listed.has(b)),
    [],
    'every bucket listed',
  );
});
