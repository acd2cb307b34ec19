// Issue 29 (low): an S3 resource that names a bucket another tenant's S3 resource owns is told, in its own
// status (and Events), which namespace and resource own it: tenant A learns tenant B's namespace and resource names
// for any bucket name it guesses. Expected: the refusal says the bucket is taken, not by whom.
import t from 'tap';
import { OWNER_TAG, OWNER_UID_TAG } from '../../hooks/s3/api.js';
import { s3Sync } from '../fixtures/hooks.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { s3Request } from '../fixtures/s3.js';
import { runHook } from '../../lib/operator.js';
import { s3 } from '../../hooks/s3/index.js';

/** The in-memory AWS with bucket tenant-b-data, owned by tenant B's S3 resource payroll of team-b-secret-project. */
function withTenantBBucket(): FakeAws {
  const aws = new FakeAws();
  aws.buckets.set('tenant-b-data', {
    region: 'us-east-1',
    tags: new Map([
      [OWNER_TAG, 'team-b-secret-project/payroll'],
      [OWNER_UID_TAG, 'uid-b'],
    ]),
    objects: 1,
  });
  return aws;
}

t.test("a refused bucket name does not name the other tenant's namespace and resource", async (t) => {
  const aws = withTenantBBucket();
  const request = s3Request({ name: 'probe', namespace: 'a', uid: 'uid-a' }, { bucketName: 'tenant-b-data' });
  const res = await s3Sync(request, aws, aws.now);
  const text = JSON.stringify(res.status);
  t.match(text, /BucketAlreadyExists/, 'refused');
  t.notMatch(text, /team-b-secret-project/, "B's namespace is not in A's status");
  t.notMatch(text, /payroll/, "B's resource name is not in A's status");
});

t.test("the operator's log names the owner a refusal does not", async (t) => {
  const aws = withTenantBBucket();
  const lines: Array<[object, string]> = [];
  const logger: any = {
    level: 'info',
    info: (obj: object, msg: string) => lines.push([obj, msg]),
    warn: (obj: object, msg: string) => lines.push([obj, msg]),
    debug() {},
    error() {},
    trace() {},
    fatal() {},
    child: () => logger,
  };
  const request = s3Request({ name: 'probe', namespace: 'a', uid: 'uid-a' }, { bucketName: 'tenant-b-data' });
  await runHook(s3, 'sync', request, { now: aws.now, clients: { aws: async () => aws }, log: logger });
  t.match(lines[0], [
    { refused: 'bucket tenant-b-data', owner: 'team-b-secret-project/payroll', ownerUid: 'uid-b' },
    "S3: refused another resource's object",
  ]);
});
