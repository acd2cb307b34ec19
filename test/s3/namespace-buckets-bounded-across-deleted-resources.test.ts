// Every S3 resource's bucket is made in the operator's one AWS account, whose bucket quota every tenant shares (S3:
// 10,000 general purpose buckets per account by default, 100 on older accounts). The default deletionPolicy, Retain,
// leaves the bucket in the account when the resource is deleted, and it is no longer listed by anything: the bound of
// MAX_BUCKETS per resource (retained-buckets-bound.test.ts) and a ResourceQuota on s3s both count live objects only.
// A tenant who may keep one S3 resource at a time can create, delete and create again, each time with a new bucket
// name, and fill the account's quota: tenant B's next S3 then gets TooManyBuckets from AWS. Every bucket a namespace's
// S3 resources make is counted in the namespace's ledger (hooks/s3/ledger.ts) until it is gone, retained or not.
import t from 'tap';
import { OWNER_TAG } from '../../hooks/s3/api.js';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { s3Finalize as finalize, s3Sync as sync } from '../fixtures/hooks.js';
import { s3Request } from '../fixtures/s3.js';

const NOW = new Date('2026-01-02T03:04:05Z');
const CYCLES = 150;

t.test(
  `one S3 resource at a time, deleted and created again ${CYCLES} times with Retain: the buckets the namespace leaves in the shared account are bounded`,
  async (t) => {
    const aws = new FakeAws();
    for (let i = 0; i < CYCLES; i++) {
      const meta = { name: 'data', namespace: 'tenant-a', uid: `uid-a-${i}` };
      const spec = { bucketName: `tenant-a-left-${String(i).padStart(4, '0')}`, deletionPolicy: 'Retain' };
      let res: CompositeSyncResponse = await sync(s3Request(meta, spec), aws, NOW);
      // The tenant deletes the resource; Metacontroller calls finalize until it answers finalized.
      for (let j = 0; j < 3 && !res.finalized; j++)
        res = await finalize(
          s3Request(meta, spec, { status: res.status ?? undefined, children: res.children }),
          aws,
          NOW,
        );
      if (!res.finalized) {
        t.fail(`resource ${i} was not finalized`);
        return;
      }
    }
    const left = [...aws.buckets].filter(([, b]) => (b.tags.get(OWNER_TAG) ?? '').startsWith('tenant-a/'));
    t.ok(
      left.length <= 101,
      `namespace tenant-a, never holding more than one S3 resource, left at most about a hundred buckets in the account every tenant shares (left ${left.length}, none listed by any object)`,
    );
  },
);
