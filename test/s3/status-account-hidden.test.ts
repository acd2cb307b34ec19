// The operator's AWS account ID is not shown to a tenant in an S3 resource's status (status.policyArn).
import t from 'tap';
import { FakeAws } from '../fixtures/fake-aws.js';
import { s3Sync as sync } from '../fixtures/hooks.js';
import { s3Request, TENANT_A } from '../fixtures/s3.js';

const ACCOUNT = /(?<![0-9])[0-9]{12}(?![0-9])/;

t.test("an S3 resource's ready status does not show the operator's AWS account ID", async (t) => {
  const aws = new FakeAws();
  const res = await sync(
    s3Request(TENANT_A, { bucketName: 'tenant-a-data', deletionPolicy: 'Retain' }),
    aws,
    new Date('2026-01-02T03:04:05Z'),
  );
  const text = JSON.stringify(res.status);
  t.match(text, /"Available"/, 'ready');
  t.notMatch(text, ACCOUNT, `no account ID in the status (policyArn: ${String(res.status?.['policyArn'])})`);
});
