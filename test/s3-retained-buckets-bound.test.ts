// one S3 resource, renamed again and again with deletionPolicy
// Retain, makes a new bucket at each rename and keeps every old one. The account's bucket quota is shared by every
// tenant (S3: 10,000 general purpose buckets per account by default, 100 on older accounts), and a ResourceQuota on
// s3s counts objects, not renames: one object of one namespace can take every bucket the account may have, and the
// status, which reads back at most 100 names, stops listing the buckets it left behind.
import t from 'tap';
import { OWNER_UID_TAG } from '../hooks/s3/api.js';
import type { ParentObject } from '../lib/metacontroller.js';
import { FakeAws } from './fixtures/fake-aws.js';
import { s3Sync as sync } from './fixtures/hooks.js';
import { asObserved, objectMap } from './fixtures/requests.js';

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
