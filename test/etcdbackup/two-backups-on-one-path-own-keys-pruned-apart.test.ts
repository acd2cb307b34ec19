// Two EtcdBackups on one path whose Jobs snapshot the same revision in the same second (issue 30.2): the first keeps
// coreos's key (`<key>_v<revision>_<stamp>`), the second writes `<key>_v<revision>_<stamp>-<its UID>`. Each prunes
// only its own snapshots to maxBackups, whichever way the race between listing and writing goes, and a restore reads
// the second's key as written (a periodic key: pinned before the members are dropped).
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import t from 'tap';
import type { BackupResult } from '../../hooks/etcdbackup/backup.js';
import { META, periodicSnapshot } from '../../hooks/etcdbackup/lineage.js';
import { checkSnapshot, fetchChecked, pinPath, prunable } from '../../hooks/etcdcommon/snapshot.js';
import { FakeS3, fakeGateway } from '../fixtures/fake-s3.js';
import { backupAt } from '../fixtures/periodic-backup.js';

const at = (h: number) => new Date(Date.UTC(2026, 0, 1, h, 0, 3));

/** EtcdBackup ns/<uid>'s backup at `when` (backupAt: periodic to bucket/ns/snap, keeping two), through `client`. */
const run = (s3: FakeS3, url: string, uid: string, when: Date, client = s3.client): Promise<BackupResult> =>
  backupAt(s3, url, when, { s3: client, backup: { uid, name: `ns/${uid}` } });

const whose = (s3: FakeS3, uid: string) =>
  s3.keys('bucket', 'ns/').filter((k) => s3.objects.get(`bucket/${k}`)!.metadata[META.uid] === uid);

t.test(
  'each EtcdBackup of a shared path prunes only its own snapshots, the second under keys of its own',
  async (t) => {
    const s3 = new FakeS3();
    const gw = await fakeGateway(t, { revision: 10, clusterId: '1111111111111111111' });
    const prunedBy: Record<string, string[]> = { a: [], b: [] };
    for (let i = 0; i < 4; i++) {
      const a = await run(s3, gw.url, 'uid-a', at(i));
      const b = await run(s3, gw.url, 'uid-b', at(i));
      t.match(a, { succeeded: true, key: `ns/snap_v10_2026-01-01T0${i}-00-03Z` }, `run ${i}: a keeps coreos's key`);
      t.match(b, { succeeded: true, key: `ns/snap_v10_2026-01-01T0${i}-00-03Z-uid-b` }, `run ${i}: b writes its own`);
      prunedBy.a!.push(...(a.pruned ?? []));
      prunedBy.b!.push(...(b.pruned ?? []));
    }
    t.same(whose(s3, 'uid-a'), ['ns/snap_v10_2026-01-01T02-00-03Z', 'ns/snap_v10_2026-01-01T03-00-03Z'], 'a keeps 2');
    t.same(
      whose(s3, 'uid-b'),
      ['ns/snap_v10_2026-01-01T02-00-03Z-uid-b', 'ns/snap_v10_2026-01-01T03-00-03Z-uid-b'],
      'b keeps 2 of its own',
    );
    t.ok(prunedBy.b!.length === 2 && prunedBy.b!.every((k) => k.endsWith('-uid-b')), 'b pruned only its own snapshots');
    t.ok(
      prunedBy.a!.length === 2 && prunedBy.a!.every((k) => !k.endsWith('-uid-b')),
      "a pruned only its own snapshots, never b's",
    );
    t.equal(s3.keys('bucket', 'ns/').length, 4, 'nothing else under the path');
  },
);

t.test('the key taken between the listing and the write: the second EtcdBackup writes its own key', async (t) => {
  const s3 = new FakeS3();
  const gw = await fakeGateway(t, { revision: 10, clusterId: '1111111111111111111' });
  // B lists the path, then A's Job writes the same key before B's conditional write.
  let raced = false;
  const racing = {
    send: async (cmd: any) => {
      const out = await s3.client.send(cmd);
      if (!raced && cmd.constructor.name === 'ListObjectsV2Command') {
        raced = true;
        t.match(await run(s3, gw.url, 'uid-a', at(0)), { succeeded: true });
      }
      return out;
    },
  };
  const b = await run(s3, gw.url, 'uid-b', at(0), racing);
  t.match(b, { succeeded: true, key: 'ns/snap_v10_2026-01-01T00-00-03Z-uid-b' }, `b written (${b.reason ?? ''})`);
  t.same(whose(s3, 'uid-a'), ['ns/snap_v10_2026-01-01T00-00-03Z'], "a's snapshot is kept as a wrote it");
  t.same(whose(s3, 'uid-b'), ['ns/snap_v10_2026-01-01T00-00-03Z-uid-b']);
});

t.test('the same EtcdBackup run twice in one second writes no second copy under another key', async (t) => {
  const s3 = new FakeS3();
  const gw = await fakeGateway(t, { revision: 10, clusterId: '1111111111111111111' });
  t.match(await run(s3, gw.url, 'uid-a', at(0)), { succeeded: true });
  t.match(await run(s3, gw.url, 'uid-a', at(0)), { succeeded: false, reason: /already exists/ });
  t.equal(s3.keys('bucket', 'ns/').length, 1);
});

t.test("a restore of the second EtcdBackup's key reads it as written, and pins it as a periodic key", async (t) => {
  const s3 = new FakeS3();
  const gw = await fakeGateway(t, { revision: 10, clusterId: '1111111111111111111' });
  await run(s3, gw.url, 'uid-a', at(0));
  const b = await run(s3, gw.url, 'uid-b', at(0));
  const key = b.key!;
  t.ok(periodicSnapshot('ns/snap', key), 'a periodic snapshot of the path (found and pruned by its lineage)');
  t.match(periodicSnapshot('ns/snap', key), { revision: 10, stamp: '2026-01-01T00-00-03Z' });
  t.equal(prunable(key), true, 'pruning may delete it: a restore keeps a copy first');
  const path = `bucket/${key}`;
  const copy = pinPath(path, 'uid-restore');
  t.equal(prunable(copy.slice('bucket/'.length)), false, "the restore's copy is outside the periodic pattern");
  t.notOk(periodicSnapshot('ns/snap', copy.slice('bucket/'.length)), 'and is no snapshot of the path');
  // B's snapshot holds an intact etcd snapshot (the stand-in gateway's bytes are none), its metadata kept.
  const body = Buffer.from('the data of b'.repeat(40));
  const snapshot = Buffer.concat([body, createHash('sha256').update(body).digest()]);
  s3.put('bucket', key, snapshot as unknown as string, s3.objects.get(path)!.metadata);
  // S3 as the SDK answers a GET (the body a stream), and a server-side copy served (the restore's pin).
  const streaming = {
    send: async (cmd: any) => {
      if (cmd.constructor.name === 'CopyObjectCommand') {
        const i = cmd.input;
        const from = s3.objects.get(decodeURIComponent(i.CopySource))!;
        s3.put(i.Bucket, i.Key, from.body as unknown as string, i.Metadata);
        return {};
      }
      const out: any = await s3.client.send(cmd);
      return cmd.constructor.name === 'GetObjectCommand' ? { ...out, Body: Readable.from([out.Body]) } : out;
    },
  };
  const check = await checkSnapshot(streaming as any, path, { pinPath: copy });
  t.match(check, { succeeded: true }, `checked (${check.reason ?? ''})`);
  const file = join(mkdtempSync(join(tmpdir(), 'metaops-fetch-')), 'snapshot.db');
  await fetchChecked(streaming as any, path, file, check);
  t.same(readFileSync(file), snapshot, "the restored members fetch b's bytes");
});
