// Issue 31, item 2: two S3 resources naming one `secretName`. The second is held (SecretNameTaken) while the first's
// Secret exists. But the Secret is deleted now and then (by hand, "delete the Secret to get a new key", a namespace
// clean-up, a backup restore): the name is free for a moment, and both resources answer it. Metacontroller creates
// whichever comes first and swallows the other's AlreadyExists (v4 common/manage_children.go). When the second wins,
// the first resource's workloads read the second's bucket and keys: the very harm item 2 describes, and the first
// (the legitimate holder) is then the one held. The second resource knew, from its own status, that another S3
// resource holds that name: a Secret that vanished for a moment is no reason to make a key and take it.
import t from 'tap';
import type { CompositeSyncResponse, KubeObject, ParentObject } from '../lib/metacontroller.js';
import { FakeAws } from './fixtures/fake-aws.js';
import { s3Sync } from './fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap } from './fixtures/requests.js';

const NS = 'shop';
const ready = (res: CompositeSyncResponse) => (res.status as any).conditions.find((c: any) => c.type === 'Ready');
const parent = (name: string, status?: unknown): ParentObject =>
  ({
    apiVersion: 'systek.no/v1',
    kind: 'S3',
    metadata: { name, namespace: NS, uid: `uid-${name}`, generation: 1 },
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
    // Secret `shared` is deleted. The second resource's next sync (its related Secret gone):
    const after = await s3Sync(
      { controller: {}, parent: parent('second', status), children: {}, related: {} },
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
  },
);
