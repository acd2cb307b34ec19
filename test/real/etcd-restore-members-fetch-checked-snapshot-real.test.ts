// A restore checks before it acts (issue 30.5), and what it checked is what it restores. The check pod fetches and
// verifies the object at the EtcdRestore's key; then each restored member fetches that key again, on its own, in
// its own init step (minutes apart: pods scheduled on different nodes, images pulled at different speeds). A key
// that is written again meanwhile (a "latest.db" a script or another tool refreshes every hour, the S3 path being
// shared with something else) gives each member whatever the key holds at its own moment: the check passed on one
// snapshot and the members restore another, or members restore different snapshots into one cluster (the same
// token and member IDs, different data: reads answer differently by member). Real S3 semantics (moto); the hook's
// own check pod and member pods' commands, run as the kubelet would run them (main/cli.ts).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { cliOnMoto } from '../fixtures/cli-on-moto.js';
import { running, restoreObject } from '../fixtures/etcd-loop.js';

/** A snapshot as etcd writes one: its bytes, then the sha256 of them. */
const snapshot = (text: string) => {
  const body = Buffer.from(text.repeat(64));
  return Buffer.concat([body, createHash('sha256').update(body).digest()]);
};

t.test(
  'the restored members fetch the snapshot the check verified, though the key is written again while they fetch',
  async (t) => {
    const { s3, dir, run: runArgs } = await cliOnMoto(t, 'metaops-restore-pin');
    const checked = snapshot('the data as it was when the restore was asked for\n');
    await s3.send(new PutObjectCommand({ Bucket: 'bucket', Key: 'ns/snap.db', Body: checked }));

    const loop = await running({ size: 3 });
    loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
    loop.check = 'running';
    await loop.step();
    const check = (loop.checkPod() as any).spec.containers[0];
    const verdict = await runArgs(check, join(dir, 'check'));
    t.equal(verdict.code, 0, 'the check passes on the snapshot at the key');
    loop.check = verdict.result;
    await loop.step();
    t.match(loop.s().restore, { phase: 'Replacing' }, 'the old members are dropped');

    let members: any[] = [];
    for (let i = 0; i < 4 && members.length === 0; i++) {
      await loop.step();
      members = loop.children.filter(
        (c: any) => c.kind === 'Pod' && (c.spec.initContainers ?? []).some((x: any) => x.name === 'fetch-snapshot'),
      );
    }
    t.equal(members.length, 3, 'the restored members are made');
    const fetched: Buffer[] = [];
    for (const [i, m] of members.entries()) {
      // The key is written again (a refreshed "latest", another tool sharing the path) after the check, while the
      // members fetch: the first has fetched, the two others have not yet.
      if (i === 1) {
        await s3.send(
          new PutObjectCommand({ Bucket: 'bucket', Key: 'ns/snap.db', Body: snapshot('data written an hour later\n') }),
        );
      }
      const volume = join(dir, m.metadata.name);
      const fetch = m.spec.initContainers.find((x: any) => x.name === 'fetch-snapshot');
      const got = await runArgs(fetch, volume);
      const file = join(volume, 'snapshot.db');
      if (got.code === 0) fetched.push(readFileSync(file));
      const same = got.code === 0 && readFileSync(file).equals(checked);
      t.ok(same, `${m.metadata.name} restores the snapshot its restore checked (exit ${got.code})`);
    }
    t.ok(
      fetched.every((f) => f.equals(fetched[0]!)),
      'the members of one restored cluster never start from different snapshots',
    );
  },
);
