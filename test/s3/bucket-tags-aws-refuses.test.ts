// S3 spec.tags is copied into the bucket's tag set (PutBucketTagging). AWS refuses a tag set whose key starts with
// the reserved prefix `aws:`, whose key is longer than 128 characters, or whose key or value holds a character
// outside letters, digits, spaces and `+ - = . _ : / @` (InvalidTag). The CRD bounds only the values' length and the
// number of tags. Such a spec is InvalidSpec naming spec.tags, before any AWS call that creates something: no bucket
// is made that the next call cannot finish (a bucket created, then its settings refused on every sync).
import t from 'tap';
import type { ParentObject } from '../../lib/metacontroller.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { s3Sync as sync } from '../fixtures/hooks.js';
import { objectMap } from '../fixtures/requests.js';

const cases: Array<[string, Record<string, string>]> = [
  ['a key with the reserved aws: prefix', { 'aws:cost-center': 'x' }],
  ['a key longer than 128 characters', { ['k'.repeat(129)]: 'x' }],
  ['a value with a character AWS refuses', { team: 'a*b' }],
  ['a key with a character AWS refuses', { 'team#1': 'x' }],
];

for (const [what, tags] of cases) {
  t.test(`S3 spec.tags with ${what}: InvalidSpec naming spec.tags, no bucket made`, async (t) => {
    const aws = new FakeAws();
    const parent: ParentObject = {
      apiVersion: 'systek.no/v1',
      kind: 'S3',
      metadata: { name: 'data', namespace: 'tenant-a', uid: 'uid-a', generation: 1 },
      spec: { bucketName: 'tenant-a-data', deletionPolicy: 'Retain', tags },
    };
    const res = await sync(
      { controller: {}, parent, children: objectMap([], 'v1', ['Secret.v1']) },
      aws,
      new Date('2026-01-02T03:04:05Z'),
    );
    const ready = ((res.status?.['conditions'] ?? []) as Array<Record<string, unknown>>).find(
      (c) => c['type'] === 'Ready',
    );
    t.equal(ready?.['reason'], 'InvalidSpec', 'Ready=False InvalidSpec');
    t.match(String(ready?.['message']), /spec\.tags/, 'the message names spec.tags');
    t.same(
      aws.calls.filter((c) => /createBucket|createUser|createAccessKey/.test(c)),
      [],
      'no bucket, user or key made for a tag set AWS refuses',
    );
  });
}
