// "Every kind visible in kubectl describe" (issue 31): what an S3 resource cannot do is told as a Warning Event, as
// each AWS failure and SecretNameTaken are (hooks/s3/index.ts S3_EVENTS). Two Ready=False reasons the hook answers are
// not in that list, so `kubectl describe s3` shows no Event for them, only a condition:
// - TooManyBuckets: a rename past MAX_BUCKETS buckets is refused before anything is made (the user must act: delete
//   retained buckets, or set the name back); it stays so at every resync;
// - OwnershipUnconfirmed: IAM says the bucket's claim exists (CreatePolicy: EntityAlreadyExists) but does not show it
//   (GetPolicy: NoSuchEntity); it stays so for as long as IAM answers that way (a claim made under another path, an
//   IAM read that lags), and the resource never becomes Ready.
import t from 'tap';
import { AwsError } from '../../hooks/s3/api.js';
import { s3 } from '../../hooks/s3/index.js';
import { MAX_BUCKETS } from '../../hooks/s3/sync.js';
import type { EventSpec } from '../../lib/events.js';
import type { CompositeSyncRequest, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import { FakeAws } from '../fixtures/fake-aws.js';
import { asObserved, objectMap } from '../fixtures/requests.js';

const NOW = new Date('2026-01-02T03:04:05Z');

async function told(req: CompositeSyncRequest, aws: FakeAws | object) {
  const events: EventSpec[] = [];
  const res = await runHook(s3, 'sync', req, {
    now: NOW,
    clients: { aws: async () => aws as never },
    services: { events: () => ({ record: async (_p, e) => void events.push(...e) }) },
  });
  return { res, events };
}

const parent = (bucketName: string, generation: number, status?: unknown): ParentObject =>
  ({
    apiVersion: 'systek.no/v1',
    kind: 'S3',
    metadata: { name: 'data', namespace: 'tenant-a', uid: 'uid-a', generation },
    spec: { bucketName, deletionPolicy: 'Retain' },
    ...(status ? { status: structuredClone(status) } : {}),
  }) as ParentObject;
const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');
const text = (events: EventSpec[]) => events.map((e) => `${e.type} ${e.reason}: ${e.note}`);

t.test('a rename refused as TooManyBuckets is told as a Warning Event', async (t) => {
  const aws = new FakeAws();
  let status: unknown;
  let children: KubeObject[] = [];
  let last: Awaited<ReturnType<typeof told>> | undefined;
  for (let i = 0; i <= MAX_BUCKETS; i++) {
    last = await told(
      {
        controller: {},
        parent: parent(`tenant-a-b${i}`, i + 1, status),
        children: objectMap(children, 'v1', ['Secret.v1']),
      },
      aws,
    );
    status = last.res.status;
    if (last.res.children.length) children = last.res.children.map((c) => asObserved(c));
  }
  t.match(ready(last!.res), { status: 'False', reason: 'TooManyBuckets' }, 'refused');
  t.ok(
    last!.events.some((e) => e.type === 'Warning' && e.reason === 'TooManyBuckets'),
    `a Warning Event says it; told: ${JSON.stringify(text(last!.events))}`,
  );
});

t.test('a claim IAM will not show (OwnershipUnconfirmed) is told as a Warning Event', async (t) => {
  const fake = new FakeAws();
  // IAM: the claim policy exists (CreatePolicy refuses it) but GetPolicy does not show it.
  const aws = new Proxy(fake, {
    get(target, key, receiver) {
      if (key === 'withDeadline' || key === 'withSignal') return () => receiver;
      if (key === 'createPolicy')
        return async (name: string, ...rest: unknown[]) => {
          if (name.startsWith('metaops.bucket.'))
            throw new AwsError('EntityAlreadyExists', `A policy called ${name} already exists.`, 'CreatePolicy');
          return (target.createPolicy as any).call(target, name, ...rest);
        };
      const v = Reflect.get(target, key, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  const res = await told({ controller: {}, parent: parent('tenant-a-claimed', 1), children: {} }, aws);
  t.match(ready(res.res), { status: 'False', reason: 'OwnershipUnconfirmed' }, 'not Ready, and why');
  t.ok(
    res.events.some((e) => e.type === 'Warning' && e.reason === 'OwnershipUnconfirmed'),
    `a Warning Event says it; told: ${JSON.stringify(text(res.events))}`,
  );
});
