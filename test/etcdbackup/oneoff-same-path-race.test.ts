// Issue 30.3, "several resources sharing one backup path": two one-off EtcdBackups naming the same s3.path run at the
// same time (two pre-upgrade backups, one per team or one per pipeline run). Both find the key free (HeadObject)
// before either write lands; the write is conditional (If-None-Match: *, backup.ts upload), so the first object stays
// and the second backup learns it lost: only one reports succeeded, and the object is its snapshot. The backup
// command against a stand-in etcd gateway and an in-memory S3 that answers conditional writes as S3 does
// (test/fixtures/fake-s3.ts); the same against moto: test/real/etcdbackup-conditional-write-real.test.ts.
import t from 'tap';
import { PART_SIZE, precondition, runBackup, type BackupResult } from '../../hooks/etcdbackup/backup.js';
import { META } from '../../hooks/etcdbackup/lineage.js';
import { FakeS3, fakeGateway, intactSnapshot } from '../fixtures/fake-s3.js';

const KEY = 'bucket/ns/pre-upgrade.db';
const one = (s3: FakeS3, url: string, uid: string, periodic = false) =>
  runBackup({
    endpoints: [url],
    path: KEY,
    periodic,
    maxBackups: 0,
    timeoutMs: 5000,
    s3: s3.client,
    now: () => new Date('2026-01-01T00:00:00Z'),
    backup: { uid, name: `ns/${uid}` },
  });

function oneWinner(
  t: { equal: (...a: any[]) => unknown; match: (...a: any[]) => unknown },
  results: Array<[BackupResult, string]>,
  stored: { metadata: Record<string, string> },
) {
  const winners = results.filter(([r]) => r.succeeded);
  t.equal(winners.length, 1, 'only one backup reports the snapshot as its own');
  for (const [r, uid] of results)
    if (r.succeeded) t.equal(stored.metadata[META.uid], uid, `${uid} says succeeded: the object is its snapshot`);
    else
      t.match(
        r.reason,
        /already (holds a snapshot, written by EtcdBackup ns\/uid-|exists: a backup never overwrites)/,
        `${uid}: says it lost, and to whom`,
      );
}

t.test('two one-off backups on one path at once: one succeeds, the other never overwrites it', async (t) => {
  const s3 = new FakeS3();
  const gwA = await fakeGateway(t, { revision: 10, clusterId: '1111111111111111111', snapshot: 'snapshot-of-a' });
  const gwB = await fakeGateway(t, { revision: 99, clusterId: '2222222222222222222', snapshot: 'snapshot-of-b' });
  const [a, b] = await Promise.all([one(s3, gwA.url, 'uid-a'), one(s3, gwB.url, 'uid-b')]);
  const stored = s3.objects.get(KEY)!;
  t.comment(
    `a: ${JSON.stringify({ succeeded: a.succeeded, rev: a.etcdRevision })}; b: ${JSON.stringify({ succeeded: b.succeeded, rev: b.etcdRevision })}; stored: written by ${stored.metadata[META.uid]}, revision ${stored.metadata[META.revision]}`,
  );
  oneWinner(
    t,
    [
      [a, 'uid-a'],
      [b, 'uid-b'],
    ],
    stored,
  );
  const winner = a.succeeded ? 'snapshot-of-a' : 'snapshot-of-b';
  t.same(stored.body, intactSnapshot(winner), 'the body is the winner snapshot, whole (its sha256 too)');
  t.ok(
    s3.calls.filter((c) => c.startsWith('PutObject')).length === 2,
    'both wrote, conditionally: the second was refused by the store',
  );
});

t.test('the same with snapshots that take a multipart upload', async (t) => {
  const s3 = new FakeS3();
  const big = (c: string) => c.repeat(PART_SIZE + 1024);
  const gwA = await fakeGateway(t, { revision: 10, clusterId: '1111111111111111111', snapshot: big('a') });
  const gwB = await fakeGateway(t, { revision: 99, clusterId: '2222222222222222222', snapshot: big('b') });
  const [a, b] = await Promise.all([one(s3, gwA.url, 'uid-a'), one(s3, gwB.url, 'uid-b')]);
  const stored = s3.objects.get(KEY)!;
  oneWinner(
    t,
    [
      [a, 'uid-a'],
      [b, 'uid-b'],
    ],
    stored,
  );
  t.equal(stored.body.length, PART_SIZE + 1024 + 32, 'the whole snapshot, and its sha256');
  t.equal(stored.body[0], (a.succeeded ? 'a' : 'b').charCodeAt(0), 'the body is the winner snapshot');
  t.equal(s3.calls.filter((c) => c.startsWith('AbortMultipartUpload')).length, 1, "the loser's upload is aborted");
});

t.test('two runs of the same one-off EtcdBackup at once: both say the one snapshot is theirs', async (t) => {
  const s3 = new FakeS3();
  const gw = await fakeGateway(t, { revision: 10, clusterId: '1111111111111111111', snapshot: 'snap' });
  const [a, b] = await Promise.all([one(s3, gw.url, 'uid-a'), one(s3, gw.url, 'uid-a')]);
  t.ok(a.succeeded && b.succeeded);
  t.equal([a, b].filter((r) => r.alreadyTaken).length, 1, 'one of them found it taken, by itself');
  for (const r of [a, b])
    t.match(r, { etcdRevision: 10, etcdVersion: '3.6.9', clusterId: BigInt('1111111111111111111').toString(16) });
  t.equal(s3.objects.get(KEY)!.metadata[META.uid], 'uid-a');
});

t.test(
  'two periodic backups of one path writing the same key at once: the first object stays, the second gets its own key',
  async (t) => {
    const s3 = new FakeS3();
    const gwA = await fakeGateway(t, { revision: 10, clusterId: '1111111111111111111', snapshot: 'snapshot-of-a' });
    const gwB = await fakeGateway(t, { revision: 10, clusterId: '1111111111111111111', snapshot: 'snapshot-of-b' });
    const [a, b] = await Promise.all([one(s3, gwA.url, 'uid-a', true), one(s3, gwB.url, 'uid-b', true)]);
    const keys = [...s3.objects.keys()].sort();
    t.equal(keys.length, 2, `two keys: ${keys.join(', ')}`);
    t.equal(keys[0], 'bucket/ns/pre-upgrade.db_v10_2026-01-01T00-00-00Z', "coreos's key, written once");
    t.match(keys[1], /^bucket\/ns\/pre-upgrade\.db_v10_2026-01-01T00-00-00Z-uid-[ab]$/, "the other's own key");
    for (const [r, uid, bytes] of [
      [a, 'uid-a', 'snapshot-of-a'],
      [b, 'uid-b', 'snapshot-of-b'],
    ] as const) {
      t.equal(r.succeeded, true, `${uid} succeeded`);
      const stored = s3.objects.get(`bucket/${r.key}`)!;
      t.equal(stored.metadata[META.uid], uid, `${uid}'s key holds its metadata`);
      t.ok(stored.body.toString().startsWith(bytes), `${uid}'s key holds its own snapshot: nothing overwritten`);
    }
  },
);

t.test(
  'a write lost to another: 412 PreconditionFailed or 409 ConditionalRequestConflict, by name or by status',
  async (t) => {
    const err = (name: string, status?: number) =>
      Object.assign(new Error(name), { name, ...(status ? { $metadata: { httpStatusCode: status } } : {}) });
    t.ok(precondition(err('PreconditionFailed')));
    t.ok(precondition(err('ConditionalRequestConflict')));
    t.ok(precondition(err('Unknown', 412)));
    t.ok(precondition(err('Unknown', 409)));
    t.notOk(precondition(err('AccessDenied', 403)));
    t.notOk(precondition(err('NoSuchBucket', 404)));
    t.notOk(precondition(err('InternalError', 500)));
  },
);
