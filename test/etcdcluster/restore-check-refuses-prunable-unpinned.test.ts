// A restore checks before it acts, and what it checked must still be there when the restored members fetch it,
// after the live members were dropped (issue 30.5). A periodic EtcdBackup prunes its lineage to maxBackups; the
// snapshots an unfinished restore names are spared, but only by Jobs made once the restore exists (--spare is fixed
// in a Job's template). So a snapshot with a periodic backup's name is restored only once the check has kept it: a
// version of a bucket that keeps them, or its own copy beside the key. When neither can be had (read-only
// credentials on a bucket without versions) the check refuses, saying how to let it keep one, and the live cluster
// is untouched. Any other key (a one-off backup's, a copy made by hand) is never pruned: it passes unpinned as
// before, the sha256 guarding the fetch.
import { createHash } from 'node:crypto';
import t from 'tap';
import { periodicKey } from '../../hooks/etcdbackup/backup.js';
import { periodicSnapshot } from '../../hooks/etcdbackup/lineage.js';
import { checkSnapshot, pinPath, prunable } from '../../hooks/etcdcommon/snapshot.js';

const body = Buffer.from('the data\n'.repeat(20));
const SNAP = Buffer.concat([body, createHash('sha256').update(body).digest()]);
const denied = () =>
  Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });

/** A stand-in S3 holding `key`: a version when given one, a copy refused when told (a copy made is kept, to be read back). */
function s3Of(key: string, o: { versionId?: string; copy?: 'denied' } = {}) {
  const calls: string[] = [];
  const copies = new Set<string>();
  const send = async (cmd: { constructor: { name: string }; input: Record<string, unknown> }) => {
    calls.push(`${cmd.constructor.name} ${String(cmd.input['Key'])}`);
    if (cmd.constructor.name === 'CopyObjectCommand') {
      if (o.copy) throw denied();
      copies.add(String(cmd.input['Key']));
      return {};
    }
    if (copies.has(String(cmd.input['Key']))) return { Body: [SNAP], ETag: '"e"' };
    if (cmd.input['Key'] !== key) throw Object.assign(new Error('no such key'), { name: 'NoSuchKey' });
    return { Body: [SNAP], ETag: '"e"', ...(o.versionId ? { VersionId: o.versionId } : {}) };
  };
  return { s3: { send } as any, calls };
}

const KEY = periodicKey('ns/snap', 42, new Date(Date.UTC(2026, 0, 1, 3)));
const PATH = `bucket/${KEY}`;

t.test('a periodic snapshot that cannot be kept is refused, saying how to let the check keep it', async (t) => {
  const { s3, calls } = s3Of(KEY, { copy: 'denied' });
  const pin = pinPath(PATH, 'uid-r');
  const r = await checkSnapshot(s3, PATH, { pinPath: pin, env: {} });
  t.equal(r.succeeded, false, 'not restored: a backup Job made before the restore may prune the key meanwhile');
  t.match(r.reason, /periodic EtcdBackup may prune/);
  t.match(r.reason, /turn on versioning for bucket bucket/, 'versioning named');
  t.match(r.reason, `s3:PutObject on s3://${pin}`, 'the copy it needs the right to write named');
  t.match(r.reason, /AccessDenied/, 'and what S3 said of the copy');
  t.ok(r.reason!.indexOf('versioning') < 200, 'the ways out within the 200 characters the status keeps');
  t.same(calls, [`GetObjectCommand ${KEY}`, `CopyObjectCommand ${KEY}.restore-uid-r`], 'nothing else asked');
});

t.test('a periodic snapshot the check keeps passes: its copy, or its version', async (t) => {
  const copied = await checkSnapshot(s3Of(KEY).s3, PATH, { pinPath: pinPath(PATH, 'uid-r'), env: {} });
  t.match(copied, { succeeded: true, pinned: true });
  const versioned = await checkSnapshot(s3Of(KEY, { versionId: 'v7', copy: 'denied' }).s3, PATH, {
    pinPath: pinPath(PATH, 'uid-r'),
    env: {},
  });
  t.match(versioned, { succeeded: true, versionId: 'v7' }, 'a bucket that keeps versions: no copy needed');
  t.same(
    await checkSnapshot(s3Of(KEY).s3, PATH, { env: {} }),
    {
      succeeded: false,
      size: SNAP.length,
      reason:
        'not restored: a periodic EtcdBackup may prune this snapshot during the restore and no copy could be kept; ' +
        "turn on versioning for bucket bucket, or allow the restore's credentials s3:PutObject on a copy beside the key",
    },
    'no pin path given (nothing kept): refused too, naming the copy it would need the right to write',
  );
});

t.test('any other key passes unpinned as before: no backup prunes it', async (t) => {
  for (const key of ['ns/snap.db', `${KEY}.old`, 'ns/snap_v42', `${KEY}/x`]) {
    const r = await checkSnapshot(s3Of(key, { copy: 'denied' }).s3, `bucket/${key}`, {
      pinPath: pinPath(`bucket/${key}`, 'uid-r'),
      env: {},
    });
    t.match(r, { succeeded: true, pinned: false, pinReason: /AccessDenied/ }, key);
  }
});

t.test("prunable names exactly the keys a backup's pruning reads as its snapshots", async (t) => {
  const at = new Date(Date.UTC(2026, 10, 26, 23, 59, 59));
  for (const base of ['ns/snap', 'ns/a/b', 'ns/x_v1_2026-01-01T00-00-00Z']) {
    const key = periodicKey(base, 7, at);
    t.ok(periodicSnapshot(base, key), `${key}: a periodic snapshot of ${base}`);
    t.ok(prunable(key), `${key}: prunable`);
    t.notOk(prunable(`${key}.restore-u`), 'its restore copy is not');
    t.notOk(periodicSnapshot(base, `${key}.restore-u`), 'nor pruned as a snapshot');
  }
  t.notOk(prunable('ns/snap'), 'a one-off key');
});
