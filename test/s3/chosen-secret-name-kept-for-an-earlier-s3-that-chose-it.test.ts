// S3 resources `b` and `c` both name `spec.secretName: app-credentials` (two teams' manifests following one
// convention, applied together). `b` is made first; neither has made the Secret yet (an S3 sync answers it only after
// its IAM user, bucket and key are made: seconds of AWS calls, or as long as it waits on AWS). No name shape says
// which S3 resource chose a name, so a parent whose status records no sync of its generation (new, its spec changed,
// its status lost) asks customize for every S3 resource of its namespace (lib/holders.ts holderRules): `c` sees `b`,
// made before it and wanting the name, and is SecretNameTaken naming b (lib/ownership.ts keptByEarlier), makes nothing
// in AWS and answers no Secret; `b` makes it (issue 31: "the first parent keeps working, the second says why not").
// Once a sync of the generation is recorded, customize asks only for the holders status.heldBy records, by name.
import t from 'tap';
import '../../main/operators.js';
import { s3 } from '../../hooks/s3/index.js';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { NS, relatedFor, rulesOf } from '../fixtures/held-names.js';
import { s3Sync } from '../fixtures/hooks.js';
import { EVERY_CHOOSER_SECONDS } from '../../lib/holders.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { S3_DEFAULTS } from '../fixtures/s3.js';

const s3Parent = (name: string, made: string, secretName = 'app-credentials'): ParentObject =>
  ({
    apiVersion: 'systek.no/v1',
    kind: 'S3',
    metadata: { name, namespace: NS, uid: `uid-s3-${name}`, generation: 1, creationTimestamp: made },
    spec: { ...S3_DEFAULTS, bucketName: `shop-${name}-bucket`, secretName },
  }) as ParentObject;
// Made minutes ago: customize asks for every S3 resource in a parent's first syncs only (EVERY_CHOOSER_SECONDS).
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');
const everyS3 = (rules: ReturnType<typeof rulesOf>) => rules.some((r) => r.resource === 's3s' && !r.names);

t.test('a later S3 resource does not take a Secret name an earlier one chose and has not made yet', async (t) => {
  const b = s3Parent('b', minutesAgo(2));
  const c = s3Parent('c', minutesAgo(1));
  const other = s3Parent('other', minutesAgo(3), 'other-secret');
  const namespace = [b, other] as unknown as KubeObject[];
  t.ok(everyS3(rulesOf(s3, c)), 'c, not synced yet, asks for every S3 resource of its namespace');
  const aws = new FakeAws();
  const res = await s3Sync(
    { controller: {}, parent: c, children: {}, related: relatedFor(rulesOf(s3, c), namespace) },
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
  t.match(ready(res).message, /Secret app-credentials belongs to S3 b .*made before this S3/, 'naming S3 b');

  // Its sync recorded: customize asks for the holder it recorded, by name, and no longer for every S3 resource.
  const held = { ...c, status: res.status } as ParentObject;
  const rules = rulesOf(s3, held);
  t.notOk(everyS3(rules), 'c, synced, no longer asks for every S3 resource of its namespace');
  t.ok(
    rules.some((r) => r.resource === 's3s' && (r.names ?? []).includes('b')),
    'c asks for S3 b, the holder its status records',
  );
  const again = await s3Sync(
    { controller: {}, parent: held, children: {}, related: relatedFor(rules, namespace) },
    aws,
    FIXED_NOW,
  );
  t.match(ready(again), { status: 'False', reason: 'SecretNameTaken' }, 'c stays held while b wants the name');

  // b, made first, is not kept from the name by c, made after it: it makes the Secret.
  const awsB = new FakeAws();
  const resB = await s3Sync(
    {
      controller: {},
      parent: b,
      children: {},
      related: relatedFor(rulesOf(s3, b), [c, other] as unknown as KubeObject[]),
    },
    awsB,
    FIXED_NOW,
  );
  t.ok(
    resB.children.some((x) => x.kind === 'Secret' && x.metadata.name === 'app-credentials'),
    'b, made first, answers Secret app-credentials',
  );
  t.notOk(everyS3(rulesOf(s3, { ...b, status: resB.status } as ParentObject)), 'b, synced, asks for no S3 at large');
});

t.test('customize asks for every S3 resource only in the first syncs of a parent that chose a name', async (t) => {
  const c = s3Parent('c', minutesAgo(1));
  t.ok(everyS3(rulesOf(s3, c)), 'new, made a minute ago, chose app-credentials: every S3 resource');
  const old = s3Parent('c', new Date(Date.now() - EVERY_CHOOSER_SECONDS * 1000 - 60_000).toISOString());
  t.notOk(
    everyS3(rulesOf(s3, old)),
    'made longer ago than EVERY_CHOOSER_SECONDS and never synced (its requests too large, say): none at large',
  );
  const res = await s3Sync({ controller: {}, parent: c, children: {}, related: {} }, new FakeAws(), FIXED_NOW);
  t.notOk(everyS3(rulesOf(s3, { ...c, status: res.status } as ParentObject)), 'synced at its generation: none');
  const lost = { ...c, status: {} } as ParentObject;
  t.ok(everyS3(rulesOf(s3, lost)), 'its status lost (a restore) in its first minutes: every S3 resource again');
  const byDefault = { ...c, spec: { ...c.spec, secretName: undefined } } as ParentObject;
  delete (byDefault.spec as Record<string, unknown>)['secretName'];
  t.notOk(
    everyS3(rulesOf(s3, byDefault)),
    'an S3 resource with its default Secret name (c-credentials) asks for none at large: one that names it later asks for it by shape',
  );
});
