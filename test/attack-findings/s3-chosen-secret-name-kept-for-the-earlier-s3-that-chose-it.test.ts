// Attack finding (issue 31, one kind): S3 resources `b` and `c` both name `spec.secretName: app-credentials` (two
// teams' manifests following one convention, applied together). `b` is made first; neither has made the Secret yet
// (an S3 sync answers it only after its IAM user, bucket and key are made: seconds of AWS calls, or as long as it
// waits on AWS). `c`'s customize asks for no S3 resource (a chosen name is asked for only as status.heldBy records
// it, and `c` has none), so `c` never sees that `b`, made before it, wants the name: whichever sync ends first takes
// it. When `c` does, `b`, the first, is SecretNameTaken for good and its workload reads c's bucket with c's keys.
// Unlike test/attack-findings/s3-default-secret-name-kept-for-the-earlier-s3-until-it-makes-it.test.ts, no name shape
// could have the holder asked for by name: a fix has to find the S3 resources of the namespace that chose the name.
// The rule (issue 31): "the first parent keeps working, the second says why not". Expected: `c` held
// SecretNameTaken naming `b`, nothing made in AWS, no Secret answered.
import t from 'tap';
import '../../main/operators.js';
import { s3 } from '../../hooks/s3/index.js';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { NS, relatedFor, rulesOf } from '../fixtures/held-names.js';
import { s3Sync } from '../fixtures/hooks.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { S3_DEFAULTS } from '../fixtures/s3.js';

const s3Parent = (name: string, made: string): ParentObject =>
  ({
    apiVersion: 'systek.no/v1',
    kind: 'S3',
    metadata: { name, namespace: NS, uid: `uid-s3-${name}`, generation: 1, creationTimestamp: made },
    spec: { ...S3_DEFAULTS, bucketName: `shop-${name}-bucket`, secretName: 'app-credentials' },
  }) as ParentObject;
const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');

t.test('a later S3 resource does not take a Secret name an earlier one chose and has not made yet', async (t) => {
  const b = s3Parent('b', '2026-01-02T03:00:00Z');
  const c = s3Parent('c', '2026-01-02T03:01:00Z');
  const aws = new FakeAws();
  const res = await s3Sync(
    { controller: {}, parent: c, children: {}, related: relatedFor(rulesOf(s3, c), [b as unknown as KubeObject]) },
    aws,
    FIXED_NOW,
  );
  t.comment(`c: Ready=${ready(res).status} ${ready(res).reason}; answered ${res.children.map((x) => x.metadata.name)}`);
  t.notOk(
    res.children.some((x) => x.kind === 'Secret' && x.metadata.name === 'app-credentials'),
    'c does not answer Secret app-credentials, which S3 b (made before it) wants',
  );
  t.same(
    aws.calls.filter((x) => /^create/i.test(x)),
    [],
    'c makes no IAM user, bucket, policy or key for a Secret name it cannot keep',
  );
  t.match(ready(res), { status: 'False', reason: 'SecretNameTaken' }, 'c says why: the name is kept for S3 b');
});
