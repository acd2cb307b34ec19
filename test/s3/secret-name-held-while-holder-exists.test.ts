// Issue 31, item 2: two S3 resources naming one `secretName`. The second is held (SecretNameTaken) while the first's
// Secret exists. But the Secret is deleted now and then (by hand, "delete the Secret to get a new key", a namespace
// clean-up, a backup restore): the name is free for a moment, and both resources answer it. Metacontroller creates
// whichever comes first and swallows the other's AlreadyExists (v4 common/manage_children.go). When the second wins,
// the first resource's workloads read the second's bucket and keys: the very harm item 2 describes, and the first
// (the legitimate holder) is then the one held. The second resource knew, from its own status, that another S3
// resource holds that name: a Secret that vanished for a moment is no reason to make a key and take it.
import t from 'tap';
import type { CompositeSyncResponse, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { s3Sync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap } from '../fixtures/requests.js';
import { s3 } from '../../hooks/s3/index.js';

const NS = 'shop';
const ready = (res: CompositeSyncResponse) => (res.status as any).conditions.find((c: any) => c.type === 'Ready');
const parent = (name: string, status?: unknown): ParentObject =>
  ({
    apiVersion: 'systek.no/v1',
    kind: 'S3',
    // S3 first made an hour before S3 second.
    metadata: {
      name,
      namespace: NS,
      uid: `uid-${name}`,
      generation: 1,
      creationTimestamp: name === 'first' ? '2020-01-01T00:00:00Z' : '2020-01-01T01:00:00Z',
    },
    spec: { bucketName: `bucket-${name}`, secretName: 'shared' },
    ...(status ? { status } : {}),
  }) as ParentObject;

t.test(
  'a resource held because another S3 resource holds its secretName does not take the name when the Secret is deleted',
  async (t) => {
    const aws = new FakeAws();
    const first = await s3Sync({ controller: {}, parent: parent('first') }, aws, FIXED_NOW);
    t.match(ready(first), { status: 'True' }, 'the first resource is Ready with Secret shared');
    const observed = asObserved(first.children[0]!);
    const secret = {
      ...observed,
      metadata: {
        ...observed.metadata,
        ownerReferences: [
          { apiVersion: 'systek.no/v1', kind: 'S3', name: 'first', uid: 'uid-first', controller: true },
        ],
      },
    } as KubeObject;
    // The second resource, held for a while: it knows who holds the name.
    let status: unknown;
    for (let i = 0; i < 2; i++) {
      const res = await s3Sync(
        { controller: {}, parent: parent('second', status), children: {}, related: objectMap([secret]) },
        aws,
        FIXED_NOW,
      );
      status = res.status;
      t.match(ready(res), { reason: 'SecretNameTaken' }, `sync ${i}: held`);
    }
    // Secret `shared` is deleted. The second resource's next sync (its related Secret gone; S3 first, which its
    // customize asks for by name once its status records it as the holder, still there):
    const after = await s3Sync(
      { controller: {}, parent: parent('second', status), children: {}, related: objectMap([parent('first')]) },
      aws,
      new Date(FIXED_NOW.getTime() + 1000),
    );
    t.notOk(
      after.children.some((c) => c.kind === 'Secret' && c.metadata.name === 'shared'),
      `the second resource does not answer Secret shared, which S3 first holds (Ready: ${ready(after).reason})`,
    );
    t.notOk(
      [...aws.users.keys()].some((u) => u.includes('second') && aws.keyIds(u).length > 0),
      'no key is made for the second resource',
    );
    t.match(ready(after), { reason: 'SecretNameTaken', message: /S3 first \(uid uid-first\), which still exists/ });
  },
);

/** S3 second, held twice while S3 first holds Secret shared: its status, and first's Secret as observed. */
async function heldSecond(aws: FakeAws) {
  const first = await s3Sync({ controller: {}, parent: parent('first') }, aws, FIXED_NOW);
  const observed = asObserved(first.children[0]!);
  const secret = {
    ...observed,
    metadata: {
      ...observed.metadata,
      ownerReferences: [{ apiVersion: 'systek.no/v1', kind: 'S3', name: 'first', uid: 'uid-first', controller: true }],
    },
  } as KubeObject;
  const res = await s3Sync(
    { controller: {}, parent: parent('second'), children: {}, related: objectMap([secret, parent('first')]) },
    aws,
    FIXED_NOW,
  );
  return { status: res.status, secret };
}

t.test('the held resource records its holder in status.heldBy', async (t) => {
  const { status } = await heldSecond(new FakeAws());
  t.same((status as any).heldBy, [
    {
      child: { apiVersion: 'v1', kind: 'Secret', name: 'shared' },
      holder: { apiVersion: 'systek.no/v1', kind: 'S3', name: 'first', uid: 'uid-first' },
    },
  ]);
});

const later = new Date(FIXED_NOW.getTime() + 1000);
/** S3 first's IAM user, which its finalize deletes last (hooks/s3/sync.ts): gone once S3 first is. */
const firstUser = (aws: FakeAws) => [...aws.users.keys()].find((u) => u.includes('-first-'))!;
const freed: Array<[string, () => KubeObject[], ((aws: FakeAws) => void)?]> = [
  [
    'the holder is gone (deleted: its Secret and its IAM user went with it)',
    () => [],
    (aws) => aws.users.delete(firstUser(aws)),
  ],
  [
    'the holder is being deleted',
    () => [{ ...parent('first'), metadata: { ...parent('first').metadata, deletionTimestamp: 'x' } } as KubeObject],
  ],
  [
    'a new S3 first (another uid) stands in its place',
    // (made again after the held resource: one made before it that names the Secret keeps it, records or not)
    () =>
      [
        {
          ...parent('first'),
          metadata: { ...parent('first').metadata, uid: 'uid-new', creationTimestamp: '2020-01-01T02:00:00Z' },
        },
      ] as KubeObject[],
  ],
  [
    'the holder names another secretName now',
    () => [{ ...parent('first'), spec: { bucketName: 'bucket-first', secretName: 'other' } } as KubeObject],
  ],
];
for (const [what, related, before] of freed) {
  t.test(`the name is taken once ${what}`, async (t) => {
    const aws = new FakeAws();
    const { status } = await heldSecond(aws);
    before?.(aws);
    const res = await s3Sync(
      { controller: {}, parent: parent('second', status), children: {}, related: objectMap(related()) },
      aws,
      later,
    );
    t.match(ready(res), { status: 'True' }, 'Ready');
    t.ok(
      res.children.some((c) => c.kind === 'Secret' && c.metadata.name === 'shared'),
      'Secret shared answered',
    );
    t.notOk((res.status as any).heldBy, 'the holder is forgotten');
  });
}

t.test('a status record naming another kind, or malformed, holds nothing', async (t) => {
  const aws = new FakeAws();
  const status = {
    heldBy: [
      {
        child: { apiVersion: 'v1', kind: 'Secret', name: 'shared' },
        holder: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'first', uid: 'uid-first' },
      },
      { child: 'shared', holder: null },
    ],
  };
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'first', namespace: NS, uid: 'uid-first' },
  };
  const res = await s3Sync(
    { controller: {}, parent: parent('second', status), children: {}, related: objectMap([deployment as KubeObject]) },
    aws,
    later,
  );
  t.match(ready(res), { status: 'True' });
});

// Metacontroller keeps a customize answer for the parent's generation (v4.17: up to 20 minutes), and the status is no
// part of the generation: the answer asked for before the holder was recorded names no holder. The sync then sees
// neither the Secret nor its holder, and cannot tell "gone" from "not asked for": it asks AWS for the holder's user.
t.test(
  'a recorded holder the related objects do not show (customize asked before it was recorded) holds while its IAM user exists',
  async (t) => {
    const aws = new FakeAws();
    const { status } = await heldSecond(aws);
    aws.calls.length = 0;
    const res = await s3Sync(
      { controller: {}, parent: parent('second', status), children: {}, related: {} },
      aws,
      later,
    );
    t.match(ready(res), {
      status: 'False',
      reason: 'SecretNameTaken',
      message: /S3 first \(uid uid-first\), whose IAM user still exists/,
    });
    t.notOk(
      res.children.some((c) => c.kind === 'Secret'),
      'Secret shared is not answered',
    );
    t.same(aws.calls, [], `nothing is made in AWS (${JSON.stringify(aws.calls)})`);
    t.same((res.status as any).heldBy, (status as any).heldBy, 'the holder is still remembered');
  },
);

t.test('an IAM user of that name tagged with another uid holds nothing', async (t) => {
  const aws = new FakeAws();
  const { status } = await heldSecond(aws);
  aws.users.get(firstUser(aws))!.tags.set('metaops.dev/owner-uid', 'uid-someone-else');
  const res = await s3Sync({ controller: {}, parent: parent('second', status), children: {}, related: {} }, aws, later);
  t.match(ready(res), { status: 'True' });
});

t.test('customize asks for the recorded holders by name, and for no S3 resource when none is recorded', async (t) => {
  const rules = (p: ParentObject) =>
    (s3.customize!({ controller: {}, parent: p } as any, {} as any) as any).relatedResources.filter(
      (r: any) => r.resource === 's3s',
    );
  t.same(rules(parent('second')), [], 'not held: no S3 resource asked for');
  const { status } = await heldSecond(new FakeAws());
  t.same(rules(parent('second', status)), [
    { apiVersion: 'systek.no/v1', resource: 's3s', namespace: NS, names: ['first'] },
  ]);
});
