// Never destroy on doubt (issues 30.2 and 30.5): a periodic backup never prunes the snapshot an unfinished
// EtcdRestore restores. The hook tells the backup which snapshots to spare by the arguments of the CronJob's Job
// template (sparedSnapshots: --spare), fixed when a Job is made. A backup Job already running when the restore is
// created (a large snapshot uploading for minutes) was made without it. When the restore's check cannot keep its own
// copy of the bytes it verified (read-only restore credentials on a bucket without versions: the copy is refused),
// the restored members fetch the key itself after the live members were dropped. If that Job then prunes the key,
// the members' fetch finds nothing: the live cluster is gone and so is the snapshot it was to come back from.
// Whatever the fix (the check refuses to pass unpinned, the backup re-reads what to spare, a mark beside the key
// that pruning honours), a check that passed must leave bytes the members can still fetch after such a backup.
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import t from 'tap';
import { runBackup } from '../../hooks/etcdbackup/backup.js';
import { checkSnapshot, fetchChecked, pinPath } from '../../hooks/etcdcommon/snapshot.js';
import { FakeS3, fakeGateway } from '../fixtures/fake-s3.js';

const hour = (h: number) => new Date(Date.UTC(2026, 0, 1, h));
const intact = (text: string) => {
  const body = Buffer.from(text.repeat(40));
  return Buffer.concat([body, createHash('sha256').update(body).digest()]);
};

t.test('a snapshot a restore checked is still fetchable after a backup Job made before the restore', async (t) => {
  const s3 = new FakeS3();
  const gw = await fakeGateway(t, { revision: 10, clusterId: '1111111111111111111' });
  const honest = s3.client;
  // S3 as a restore's read-only credentials see it: objects read as streams, a server-side copy refused.
  const readOnly = {
    send: async (cmd: any) => {
      if (cmd.constructor.name === 'CopyObjectCommand')
        throw Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
      const out: any = await honest.send(cmd);
      return cmd.constructor.name === 'GetObjectCommand' ? { ...out, Body: Readable.from([out.Body]) } : out;
    },
  };
  const run = (h: number, max: number) =>
    runBackup({
      endpoints: [gw.url],
      path: 'bucket/ns/snap',
      periodic: true,
      maxBackups: max,
      timeoutMs: 2000,
      s3: s3.client,
      now: () => hour(h),
      backup: { uid: 'uid-a', name: 'ns/a' },
    });
  for (let h = 0; h < 3; h++) t.match(await run(h, 3), { succeeded: true, pruned: [] });
  const keys = s3.keys('bucket', 'ns/');
  t.equal(keys.length, 3, 'three snapshots of one lineage');
  const oldest = keys[0]!;
  // The oldest holds an intact etcd snapshot (the stand-in gateway's bytes are none), its lineage metadata kept.
  const meta = (
    await honest.send({ constructor: { name: 'HeadObjectCommand' }, input: { Bucket: 'bucket', Key: oldest } })
  ).Metadata;
  s3.put('bucket', oldest, intact('the data to come back to') as unknown as string, meta);

  // An EtcdRestore of the oldest snapshot is created; its check passes (the copy refused: nothing pinned).
  const path = `bucket/${oldest}`;
  const check = await checkSnapshot(readOnly as any, path, { pinPath: pinPath(path, 'uid-restore') });
  if (!check.succeeded) {
    // (A fix may refuse here: then nothing was dropped. It must be for want of a copy, not the snapshot.)
    t.match(check.reason, /cop|pin|version/i, `refused for want of bytes it can keep: ${check.reason}`);
    return;
  }
  // The live members are dropped now. The backup Job already running (made before the restore: no --spare) ends.
  t.match(await run(3, 3), { succeeded: true });
  // Each restored member fetches the snapshot its restore checked.
  const file = join(mkdtempSync(join(tmpdir(), 'metaops-fetch-')), 'snapshot.db');
  await t.resolves(
    fetchChecked(readOnly as any, path, file, check),
    'the members fetch the bytes the check verified: not pruned from under the restore',
  );
});
