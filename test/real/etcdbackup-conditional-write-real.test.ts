// Issue 30.3 on moto (the version e2e/moto.sh installs): a backup's write is conditional (If-None-Match: *), so two
// one-off EtcdBackups on one path at once leave the first object, and only its backup reports succeeded; the store
// itself refuses the second write (412), for a PutObject and for a CompleteMultipartUpload alike. The fast test with
// an in-memory S3: test/etcdbackup/oneoff-same-path-race.test.ts.
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import t from 'tap';
import { PART_SIZE, precondition, runBackup } from '../../hooks/etcdbackup/backup.js';
import { META } from '../../hooks/etcdbackup/lineage.js';
import { fakeGateway } from '../fixtures/fake-s3.js';
import { startMoto, type Moto } from '../fixtures/moto.js';

let moto: Moto;
let s3: S3Client;
t.before(async () => {
  moto = await startMoto();
  s3 = new S3Client({ endpoint: moto.endpoint, region: moto.region, credentials: moto.admin, forcePathStyle: true });
  await s3.send(new CreateBucketCommand({ Bucket: 'backups' }));
});
t.teardown(() => moto?.stop());

const refused = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'written';
  } catch (err) {
    return precondition(err) ? 'precondition' : String(err);
  }
};

t.test('the store refuses a conditional write of a key that exists (PutObject, multipart)', async (t) => {
  await s3.send(new PutObjectCommand({ Bucket: 'backups', Key: 'k', Body: 'first', IfNoneMatch: '*' }));
  t.equal(
    await refused(s3.send(new PutObjectCommand({ Bucket: 'backups', Key: 'k', Body: 'second', IfNoneMatch: '*' }))),
    'precondition',
  );
  const up = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'backups', Key: 'k' }));
  const part = await s3.send(
    new UploadPartCommand({ Bucket: 'backups', Key: 'k', UploadId: up.UploadId!, PartNumber: 1, Body: 'third' }),
  );
  t.equal(
    await refused(
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: 'backups',
          Key: 'k',
          UploadId: up.UploadId!,
          MultipartUpload: { Parts: [{ ETag: part.ETag!, PartNumber: 1 }] },
          IfNoneMatch: '*',
        }),
      ),
    ),
    'precondition',
  );
  const body = await (await s3.send(new GetObjectCommand({ Bucket: 'backups', Key: 'k' }))).Body!.transformToString();
  t.equal(body, 'first', 'the first object stays');
});

// moto checks the condition and then writes, in a threaded server: the same key completed by two multipart uploads
// at once can both pass its check (seen here: both succeeded, the second object replaced the first), where S3
// decides atomically (one 412, or 409 ConditionalRequestConflict while the other is in flight). What moto does
// answer for multipart is the condition against an object that is there: the second completion after the first.
t.test('two one-off backups on one path at once: one succeeds, its object stays (10 races)', async (t) => {
  for (let i = 0; i < 10; i++) {
    const key = `ns/pre-upgrade-${i}.db`;
    const gwA = await fakeGateway(t, { revision: 10, clusterId: '1111111111111111111', snapshot: `a${i}` });
    const gwB = await fakeGateway(t, { revision: 99, clusterId: '2222222222222222222', snapshot: `b${i}` });
    const one = (url: string, uid: string) =>
      runBackup({
        endpoints: [url],
        path: `backups/${key}`,
        periodic: false,
        maxBackups: 0,
        timeoutMs: 20_000,
        s3,
        backup: { uid, name: `ns/${uid}` },
      });
    const [a, b] = await Promise.all([one(gwA.url, 'uid-a'), one(gwB.url, 'uid-b')]);
    const head = await s3.send(new HeadObjectCommand({ Bucket: 'backups', Key: key }));
    const owner = head.Metadata?.[META.uid];
    t.equal([a, b].filter((r) => r.succeeded).length, 1, `race ${i}: only one backup reports succeeded`);
    const winner = a.succeeded ? 'uid-a' : 'uid-b';
    t.equal(owner, winner, `race ${i}: the object is the snapshot of the one that says succeeded`);
    const loser = a.succeeded ? b : a;
    t.match(loser.reason, `already holds a snapshot, written by EtcdBackup ns/${winner}`);
  }
});

t.test('a one-off backup of more than a part on a key written meanwhile: refused at its completion', async (t) => {
  const key = 'ns/big.db';
  const gw = await fakeGateway(t, {
    revision: 10,
    clusterId: '1111111111111111111',
    snapshot: 'a'.repeat(PART_SIZE + 1024),
  });
  // The other backup's object lands while this one uploads its parts (after its check found the key free).
  let landed = false;
  const send = s3.send.bind(s3);
  const racing = Object.create(s3) as S3Client;
  racing.send = (async (cmd: any, ...rest: any[]) => {
    if (!landed && cmd instanceof UploadPartCommand) {
      landed = true;
      await send(
        new PutObjectCommand({
          Bucket: 'backups',
          Key: key,
          Body: 'other',
          Metadata: { [META.uid]: 'uid-b', [META.backup]: 'ns/uid-b' },
        }),
      );
    }
    return send(cmd, ...rest);
  }) as any;
  const r = await runBackup({
    endpoints: [gw.url],
    path: `backups/${key}`,
    periodic: false,
    maxBackups: 0,
    timeoutMs: 20_000,
    s3: racing,
    backup: { uid: 'uid-a', name: 'ns/uid-a' },
  });
  t.ok(landed);
  t.equal(r.succeeded, false);
  t.match(r.reason, 'already holds a snapshot, written by EtcdBackup ns/uid-b');
  const body = await (await s3.send(new GetObjectCommand({ Bucket: 'backups', Key: key }))).Body!.transformToString();
  t.equal(body, 'other', 'the object written first stays');
});
