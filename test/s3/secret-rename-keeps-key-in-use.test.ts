// "No silent key churn" (issue 31): an S3 resource whose spec.secretName is changed (`a-credentials` -> `app-creds`,
// say to follow a naming convention, or to hand the Secret to a Helm chart that expects its own name). The new Secret
// is not observed yet, so the sync reads "no Secret" and makes a new access key; in the same sync it deletes the key
// the old Secret holds (planKeys: create, deleteAfter = every existing key, whatever its age). Metacontroller then
// deletes the old Secret and creates the new one. Every workload running with the old Secret's key (environment
// variables read once at start, or the mounted file) loses access to the bucket at that moment, before any of them
// could be moved to the new name; and the key they used was in an observed child of this very resource the whole
// time. A rename is a change of where the credentials are published, not a reason to revoke the ones in use;
// docs/s3.md says "A key is rotated only when its Secret is really gone", and here it is observed.
import t from 'tap';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { s3Sync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap } from '../fixtures/requests.js';
import { S3_DEFAULTS } from '../fixtures/s3.js';

const NS = 'shop';
const parent = (spec: Record<string, unknown>, status?: unknown): ParentObject =>
  ({
    apiVersion: 'systek.no/v1',
    kind: 'S3',
    metadata: { name: 'a', namespace: NS, uid: 'uid-a', generation: status ? 2 : 1 },
    spec: { ...S3_DEFAULTS, bucketName: 'shop-a-bucket', ...spec },
    ...(status ? { status } : {}),
  }) as ParentObject;
/** A sync of resource `a` whose Secret is renamed app-creds, after `status`, observing `children`, at `now`. */
const renamedSync = (aws: FakeAws, status: unknown, children: KubeObject[], now: Date) =>
  s3Sync(
    { controller: {}, parent: parent({ secretName: 'app-creds' }, status), children: objectMap(children) },
    aws,
    now,
  );
const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');
const b64 = (s: unknown) => Buffer.from(String(s), 'base64').toString();

t.test("a changed secretName does not revoke the key the old Secret's readers use", async (t) => {
  const aws = new FakeAws();
  const first = await s3Sync({ controller: {}, parent: parent({}) }, aws, FIXED_NOW);
  t.match(ready(first), { status: 'True' });
  const oldSecret = asObserved(first.children[0] as KubeObject);
  t.equal(oldSecret.metadata.name, 'a-credentials');
  const inUse = b64((oldSecret as any).data.AWS_ACCESS_KEY_ID);
  const user = (first.status as any).iamUser as string;
  const before = (await aws.listAccessKeys(user)).map((k) => k.id);
  t.same(before, [inUse], `IAM has the Secret's key, and only it (${before.join(', ')})`);

  // A day later the user renames the Secret; the old one is still observed (Metacontroller deletes it after this answer).
  const day = new Date(FIXED_NOW.getTime() + 86_400_000);
  aws.calls.length = 0;
  const renamed = await s3Sync(
    {
      controller: {},
      parent: parent({ secretName: 'app-creds' }, first.status),
      children: objectMap([oldSecret]),
      related: {},
    },
    aws,
    day,
  );
  t.equal(renamed.children[0]?.metadata.name, 'app-creds', 'the credentials are answered under the new name');
  t.comment(`AWS calls of the rename's sync: ${JSON.stringify(aws.calls)}`);
  const after = (await aws.listAccessKeys(user)).map((k) => k.id);
  t.same(
    aws.calls.filter((c) => c.startsWith('deleteAccessKey')),
    [],
    'no access key is deleted by the sync that renames the Secret',
  );
  t.ok(
    before.every((id) => after.includes(id)),
    `the key the old Secret's readers use is still valid (${before.join(', ')}; IAM now: ${after.join(', ')})`,
  );
});

t.test('the old key goes only once the old Secret is gone, and the renamed Secret keeps the key', async (t) => {
  const aws = new FakeAws();
  const first = await s3Sync({ controller: {}, parent: parent({}) }, aws, FIXED_NOW);
  const oldSecret = asObserved(first.children[0] as KubeObject);
  const inUse = b64((oldSecret as any).data.AWS_ACCESS_KEY_ID);
  const user = (first.status as any).iamUser as string;
  const day = new Date(FIXED_NOW.getTime() + 86_400_000);
  const renamed = await renamedSync(aws, first.status, [oldSecret], day);
  t.equal(b64((renamed.children[0] as any).data.AWS_ACCESS_KEY_ID), inUse, 'the new Secret carries the key in use');
  t.match(ready(renamed), { status: 'True' });
  t.same(
    (await aws.listAccessKeys(user)).map((k) => k.id),
    [inUse],
    'no key made: nothing to rotate',
  );
  // Metacontroller deletes the old Secret and creates the new one; the next sync sees the new one only.
  aws.calls.length = 0;
  const next = await renamedSync(
    aws,
    renamed.status,
    [asObserved(renamed.children[0] as KubeObject)],
    new Date(day.getTime() + 60_000),
  );
  t.match(ready(next), { status: 'True' });
  t.same(
    aws.calls.filter((c) => /AccessKey/.test(c)),
    [],
    'quiet: no key made or deleted',
  );
});

t.test(
  'an old Secret whose key cannot stand: a new key for the new name, the old key deleted only once the old Secret is gone',
  async (t) => {
    const aws = new FakeAws();
    const first = await s3Sync({ controller: {}, parent: parent({}) }, aws, FIXED_NOW);
    const oldSecret = asObserved(first.children[0] as KubeObject) as any;
    const oldKey = b64(oldSecret.data.AWS_ACCESS_KEY_ID);
    // Its secret key edited away (by hand): the key cannot be copied, but a reader may still hold it.
    delete oldSecret.data.AWS_SECRET_ACCESS_KEY;
    const user = (first.status as any).iamUser as string;
    const day = new Date(FIXED_NOW.getTime() + 86_400_000);
    const renamed = await renamedSync(aws, first.status, [oldSecret], day);
    const newKey = b64((renamed.children[0] as any).data.AWS_ACCESS_KEY_ID);
    t.not(newKey, oldKey, 'a new key for the new Secret');
    t.same((await aws.listAccessKeys(user)).map((k) => k.id).sort(), [oldKey, newKey].sort(), 'the old key stays');
    const later = new Date(day.getTime() + 600_000);
    const stillThere = await renamedSync(
      aws,
      renamed.status,
      [oldSecret, asObserved(renamed.children[0] as KubeObject)],
      later,
    );
    t.match(ready(stillThere), { status: 'True' });
    t.ok(
      (await aws.listAccessKeys(user)).some((k) => k.id === oldKey),
      'while the old Secret is observed, its key is not deleted',
    );
    const gone = await renamedSync(aws, stillThere.status, [asObserved(renamed.children[0] as KubeObject)], later);
    t.match(ready(gone), { status: 'True' });
    t.same(
      (await aws.listAccessKeys(user)).map((k) => k.id),
      [newKey],
      'once it is gone, its key is deleted',
    );
  },
);
