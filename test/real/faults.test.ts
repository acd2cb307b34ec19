// Dependency faults injected in front of the real S3/IAM server: a proxy before moto that can throttle (S3's
// SlowDown, IAM's Throttling) or drop every connection after N requests (the server stopped mid-sync). The hook
// must answer in time, say what failed, back off, and delete nothing.
import t from 'tap';
import { SdkAwsApi } from '../../hooks/s3/aws.js';
import { s3Finalize as finalize, s3Sync as sync } from '../fixtures/hooks.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { motoProxy, startMoto, type Moto, type MotoProxy } from '../fixtures/moto.js';
import { asObserved, objectMap } from '../fixtures/requests.js';

type Mode = { kind: 'pass' } | { kind: 'throttle' } | { kind: 'dropAfter'; remaining: number };

let moto: Moto;
let proxy: MotoProxy;
let mode: Mode = { kind: 'pass' };
let aws: SdkAwsApi;

t.before(async () => {
  moto = await startMoto();
  proxy = await motoProxy(moto, (req, res, body, forward) => {
    if (mode.kind === 'dropAfter' && mode.remaining-- <= 0) {
      req.socket.destroy();
      return;
    }
    if (mode.kind === 'throttle') {
      const iam = body.toString().includes('Action=');
      res.writeHead(iam ? 400 : 503, { 'content-type': 'text/xml' });
      res.end(
        iam
          ? '<ErrorResponse><Error><Type>Sender</Type><Code>Throttling</Code><Message>Rate exceeded</Message></Error><RequestId>1</RequestId></ErrorResponse>'
          : '<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><RequestId>1</RequestId></Error>',
      );
      return;
    }
    forward();
  });
  aws = new SdkAwsApi({
    endpoint: proxy.endpoint,
    region: moto.region,
    credentials: moto.admin,
    requestTimeoutMs: 2000,
  });
});
t.teardown(async () => {
  proxy?.close();
  await moto?.stop();
});

const parent = (status?: Record<string, unknown>): any => ({
  apiVersion: 'systek.no/v1',
  kind: 'S3',
  metadata: { name: 'faulty', namespace: 'default', uid: 'uid-faulty', generation: 1 },
  spec: { bucketName: 'metaops-faulty', deletionPolicy: 'Delete' },
  ...(status ? { status } : {}),
});
const cond = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);

t.test('throttling, a server that stops mid-sync, and recovery: nothing deleted, no key rotated', async (t) => {
  mode = { kind: 'pass' };
  const first = await sync({ controller: {}, parent: parent() }, aws.withDeadline(7000), new Date());
  t.match(cond(first, 'Ready'), { status: 'True' });
  const secret = first.children as KubeObject[];
  const observed = () =>
    objectMap(
      secret.map((c) => asObserved(c)),
      'v1',
      ['Secret.v1'],
    );

  mode = { kind: 'throttle' };
  let started = Date.now();
  const throttled = await sync(
    { controller: {}, parent: parent(first.status!), children: observed() },
    aws.withDeadline(7000),
    new Date(),
  );
  t.ok(Date.now() - started < 9000, 'answered within the deadline');
  t.match(cond(throttled, 'Ready'), { status: 'False', reason: 'Throttled', message: /SlowDown|Throttling/ });
  t.equal(throttled.resyncAfterSeconds, 60, 'a longer back-off when throttled');
  t.same(
    throttled.children.map((c) => c.metadata.name),
    ['faulty-credentials'],
    'the Secret is kept',
  );

  mode = { kind: 'dropAfter', remaining: 3 };
  started = Date.now();
  const dropped = await sync(
    { controller: {}, parent: parent(first.status!), children: observed() },
    aws.withDeadline(7000),
    new Date(),
  );
  t.ok(Date.now() - started < 9000, 'answered within the deadline');
  t.match(cond(dropped, 'Ready'), { status: 'False', reason: 'Unreachable' });
  t.equal(dropped.resyncAfterSeconds, 30);
  t.same(
    dropped.children.map((c) => c.metadata.name),
    ['faulty-credentials'],
  );

  mode = { kind: 'pass' };
  const back = await sync(
    { controller: {}, parent: parent(first.status!), children: observed() },
    aws.withDeadline(7000),
    new Date(),
  );
  t.match(cond(back, 'Ready'), { status: 'True' });
  t.same(back.children, first.children, 'the same key: faults never rotated it');

  // Finalize while the server is down: not finalized, and it says why.
  mode = { kind: 'dropAfter', remaining: 0 };
  const held = await finalize(
    { controller: {}, parent: parent(back.status!), children: observed() },
    aws.withDeadline(7000),
    new Date(),
  );
  t.equal(held.finalized, false);
  t.match((held.status as any).conditions[0], { type: 'Finalized', status: 'False', reason: 'Unreachable' });
  t.same(
    held.children.map((c) => c.metadata.name),
    ['faulty-credentials'],
    'nothing given up while AWS cannot confirm',
  );
  mode = { kind: 'pass' };
  const done = await finalize(
    { controller: {}, parent: parent(back.status!), children: observed() },
    aws.withDeadline(7000),
    new Date(),
  );
  t.equal(done.finalized, true);
});
