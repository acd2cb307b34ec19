// The S3 hook calls AWS with the operator's credentials, and every call about a bucket goes to the bucket's region:
// spec.region, a hint the tenant writes (the CRD's pattern `^[a-z]{2}(-[a-z]+)+-[0-9]+$` takes any region of any
// AWS partition). The SDK maps a region to its partition's endpoint, so a spec.region of another partition than the
// operator's account makes the hook server send its signed requests (the operator's access key ID in the
// Authorization header, the bucket names, the operator's identity) to that partition's hosts: `cn-north-1` to
// `<bucket>.s3.cn-north-1.amazonaws.com.cn` (AWS China, run by other companies), `us-iso-east-1` to `...c2s.ic.gov`,
// `eu-isoe-west-1` to `...cloud.adc-e.uk`. No bucket of the operator's account can be there, so these calls are never
// needed; yet the shipped NetworkPolicy lets port 443 out to any address, on the grounds that "what the server dials
// on them is ... AWS at its regional endpoints (a region the CRD allows only in AWS's shape)". A tenant who may only
// create custom resources (issue 29) so chooses where the operator's signed requests go, and how long they take to
// fail (a host that does not answer holds the sync its whole budget).
//
// Must hold: every AWS call an S3 resource makes goes to the operator's own partition (a spec.region of another
// partition refused before any call).
import t from 'tap';
import dns from 'node:dns';
import { SdkAwsApi } from '../../hooks/s3/aws.js';
import { s3Sync } from '../fixtures/hooks.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { s3Request } from '../fixtures/s3.js';

const FOREIGN = ['cn-north-1', 'us-iso-east-1', 'eu-isoe-west-1'];

t.test("the hook asks for the bucket only in regions of the operator's partition (aws)", async (t) => {
  for (const region of FOREIGN) {
    const aws = new FakeAws();
    const request = s3Request(
      { name: 'data', namespace: 'team-a', uid: 'uid-a' },
      { bucketName: 'tenant-a-data', region },
    );
    const res = await s3Sync(request, aws, aws.now);
    const reasons = ((res.status as any)?.conditions ?? []).map((c: any) => `${c.type}=${c.reason}`).join(' ');
    const asked = [
      ...aws.hints.filter((h): h is string => !!h),
      ...aws.calls.filter((c) => c.startsWith('createBucket')),
    ];
    t.same(
      asked.filter((a) => a.includes(region)),
      [],
      `spec.region ${region}: no call addresses it (${reasons}; asked: ${asked.join(', ')})`,
    );
  }
});

t.test("the SDK client dials only hosts of the operator's partition", async (t) => {
  const looked: string[] = [];
  const original = dns.lookup;
  (dns as any).lookup = (host: string, _o: unknown, cb?: (...a: unknown[]) => void) => {
    looked.push(host);
    const callback = (typeof _o === 'function' ? _o : cb) as (...a: unknown[]) => void;
    process.nextTick(() => callback(Object.assign(new Error(`not looked up: ${host}`), { code: 'ENOTFOUND' })));
  };
  t.teardown(() => void ((dns as any).lookup = original));
  const api = new SdkAwsApi({
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIAOPERATOREXAMPLE1', secretAccessKey: 'operator-secret' },
    requestTimeoutMs: 1000,
  });
  // A region of the operator's own partition is dialled (the lookups are seen), then the foreign ones are refused.
  await api.findBucket('tenant-a-data', 'us-west-2').catch(() => undefined);
  t.ok(looked.length > 0, `hosts looked up in the operator's partition: ${[...new Set(looked)].join(', ')}`);
  for (const region of FOREIGN) {
    const err = await api.findBucket('tenant-b-data', region).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.match(err, { code: 'InvalidRegion' }, `${region}: refused before any call`);
  }
  const outside = [...new Set(looked)].filter((h) => !h.endsWith('.amazonaws.com'));
  t.notOk(
    looked.some((h) => h.includes('tenant-b-data')),
    'nothing looked up for the foreign regions',
  );
  t.same(outside, [], "no host outside the operator's partition (amazonaws.com) is dialled");
});
