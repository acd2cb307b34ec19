// The pin a restore's check makes, and the fetch each restored member makes from it (hooks/etcdcommon/snapshot.ts),
// against a stand-in S3 that records each call: a version where the bucket keeps one (and the members' GET of it
// works); else a server-side copy beside the key, only of the object checked (its ETag), with its own metadata; a
// key written again meanwhile fails the check; a copy refused leaves the sha256 alone to guard the fetch. Real S3
// semantics: test/real/etcd-restore-pin-real.test.ts.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { checkSnapshot, fetchChecked, pinPath } from '../../hooks/etcdcommon/snapshot.js';
import { chunks, copyObject, noSuchKey, sha, snapshot } from '../fixtures/snapshot-s3.js';

type Call = { name: string; input: Record<string, unknown> };
/** A stand-in S3: objects by `bucket/key`, what a version or a copy answers, every call recorded. */
function fakeS3(objects: Record<string, Buffer>, options: { versionId?: string; copy?: unknown } = {}) {
  const calls: Call[] = [];
  const send = async (cmd: { constructor: { name: string }; input: Record<string, unknown> }) => {
    calls.push({ name: cmd.constructor.name, input: cmd.input });
    if (cmd.constructor.name === 'CopyObjectCommand') {
      if ('copy' in options) throw options.copy;
      copyObject(objects, cmd.input);
      return {};
    }
    const body = objects[`${cmd.input['Bucket']}/${cmd.input['Key']}`];
    if (!body) throw noSuchKey();
    return { Body: chunks(body), ETag: '"etag-1"', ...(options.versionId ? { VersionId: options.versionId } : {}) };
  };
  return { s3: { send } as any, calls, objects };
}

const SNAP = snapshot('the data\n');

t.test('pinPath: beside the key, named for the restore, only plain characters of its uid', async (t) => {
  t.equal(pinPath('b/ns/snap.db', 'uid-1'), 'b/ns/snap.db.restore-uid-1');
  t.equal(pinPath('b/k', '../x/y z'), 'b/k.restore-xyz');
  t.equal(pinPath('b/k', 'a'.repeat(100)), `b/k.restore-${'a'.repeat(64)}`);
});

t.test('a bucket that keeps versions: the version is the pin, no copy', async (t) => {
  const { s3, calls } = fakeS3({ 'b/ns/snap.db': SNAP }, { versionId: 'v1' });
  const r = await checkSnapshot(s3, 'b/ns/snap.db', { pinPath: 'b/ns/snap.db.restore-u', env: {} });
  t.same(r, { succeeded: true, size: SNAP.length, sha256: sha(SNAP), versionId: 'v1' });
  // The read, then the request each member will make (a GetObject naming the version), proved with a first byte.
  t.same(calls, [
    { name: 'GetObjectCommand', input: { Bucket: 'b', Key: 'ns/snap.db' } },
    { name: 'GetObjectCommand', input: { Bucket: 'b', Key: 'ns/snap.db', VersionId: 'v1', Range: 'bytes=0-0' } },
  ]);
  // "null" is the version of an object in a bucket that keeps none: a copy then.
  const plain = fakeS3({ 'b/ns/snap.db': SNAP }, { versionId: 'null' });
  const p = await checkSnapshot(plain.s3, 'b/ns/snap.db', { pinPath: 'b/ns/snap.db.restore-u', env: {} });
  t.same(p, { succeeded: true, size: SNAP.length, sha256: sha(SNAP), pinned: true });
  const odd = fakeS3({ 'b/ns/snap.db': SNAP }, { versionId: 'a b' });
  t.match(await checkSnapshot(odd.s3, 'b/ns/snap.db', { pinPath: 'b/ns/snap.db.restore-u', env: {} }), {
    pinned: true,
  });
});

t.test('no version: a copy of the object checked, beside the key, with its own metadata', async (t) => {
  const { s3, calls, objects } = fakeS3({ 'b/ns/a b+c.db': SNAP });
  const r = await checkSnapshot(s3, 'b/ns/a b+c.db', { pinPath: 'b/ns/a b+c.db.restore-u', env: {} });
  t.same(r, { succeeded: true, size: SNAP.length, sha256: sha(SNAP), pinned: true });
  t.same(calls[1], {
    name: 'CopyObjectCommand',
    input: {
      Bucket: 'b',
      Key: 'ns/a b+c.db.restore-u',
      CopySource: 'b/ns/a%20b%2Bc.db',
      CopySourceIfMatch: '"etag-1"',
      MetadataDirective: 'REPLACE',
      Metadata: { 'metaops-restore-of': 'b/ns/a b+c.db' },
    },
  });
  t.ok(objects['b/ns/a b+c.db.restore-u']?.equals(SNAP));
  // No pin path given: nothing copied, nothing said.
  const none = fakeS3({ 'b/k': SNAP });
  t.same(await checkSnapshot(none.s3, 'b/k', { env: {} }), {
    succeeded: true,
    size: SNAP.length,
    sha256: sha(SNAP),
    pinned: false,
  });
  t.equal(none.calls.length, 1);
  // A pin path in another bucket is not used.
  const other = fakeS3({ 'b/k': SNAP });
  t.same(await checkSnapshot(other.s3, 'b/k', { pinPath: 'c/k.restore-u', env: {} }), {
    succeeded: true,
    size: SNAP.length,
    sha256: sha(SNAP),
    pinned: false,
    pinReason: 'the pin path is not in its bucket',
  });
  t.equal(other.calls.length, 1);
  t.same(await checkSnapshot(other.s3, 'b/k', { pinPath: 'nokey', env: {} }), {
    succeeded: true,
    size: SNAP.length,
    sha256: sha(SNAP),
    pinned: false,
    pinReason: 'the pin path is not in its bucket',
  });
});

t.test('the key written again between the read and the copy: the check fails', async (t) => {
  const changed = Object.assign(new Error('At least one of the pre-conditions you specified did not hold'), {
    name: 'PreconditionFailed',
  });
  const { s3 } = fakeS3({ 'b/k': SNAP }, { copy: changed });
  t.same(await checkSnapshot(s3, 'b/k', { pinPath: 'b/k.restore-u', env: {} }), {
    succeeded: false,
    size: SNAP.length,
    reason: 's3://b/k was written again while it was checked: check it again once it holds the snapshot to restore',
  });
  const status412 = Object.assign(new Error('unknown'), { name: 'Unknown', $metadata: { httpStatusCode: 412 } });
  t.match(await checkSnapshot(fakeS3({ 'b/k': SNAP }, { copy: status412 }).s3, 'b/k', { pinPath: 'b/k.r', env: {} }), {
    succeeded: false,
    reason: /written again/,
  });
});

t.test('a copy refused (credentials that may only read): passed, the sha256 the only guard, and why', async (t) => {
  const denied = Object.assign(new Error('Access Denied '.repeat(30)), {
    name: 'AccessDenied',
    $metadata: { httpStatusCode: 403 },
  });
  const r = await checkSnapshot(fakeS3({ 'b/k': SNAP }, { copy: denied }).s3, 'b/k', { pinPath: 'b/k.r', env: {} });
  t.match(r, { succeeded: true, sha256: sha(SNAP), pinned: false, pinReason: /^AccessDenied: Access Denied/ });
  t.ok(r.pinReason!.length <= 200, 'its reason bounded');
  t.notOk('versionId' in r);
});

t.test(
  'a copy that fails without an S3 status (a dropped connection, a bare throw): passed unpinned, and why',
  async (t) => {
    const pinned = (copy: unknown) =>
      checkSnapshot(fakeS3({ 'b/k': SNAP }, { copy }).s3, 'b/k', { pinPath: 'b/k.r', env: {} });
    const unpinned = (pinReason: string) => ({
      succeeded: true,
      size: SNAP.length,
      sha256: sha(SNAP),
      pinned: false,
      pinReason,
    });
    t.same(await pinned(new Error('socket hang up')), unpinned('Error: socket hang up'), 'no $metadata');
    t.same(await pinned(null), unpinned('Error: null'), 'null thrown');
    t.same(await pinned(undefined), unpinned('Error: undefined'), 'undefined thrown');
  },
);

t.test('the copy names the key it keeps in at most 1024 characters of metadata', async (t) => {
  const key = `ns/${'k'.repeat(1100)}`;
  const { s3, calls } = fakeS3({ [`b/${key}`]: SNAP });
  t.match(await checkSnapshot(s3, `b/${key}`, { pinPath: `b/${key}.r`, env: {} }), { succeeded: true, pinned: true });
  const metadata = (calls[1]!.input['Metadata'] as Record<string, string>)['metaops-restore-of']!;
  t.equal(metadata, `b/${key}`.slice(0, 1024));
});

t.test('fetchChecked: from the pin, only the bytes checked', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'f-etcd5-fetch-'));
  const later = snapshot('later\n');
  const { s3, calls } = fakeS3({ 'b/k': later, 'b/k.restore-u': SNAP });
  const file = join(dir, 'pinned.db');
  t.equal(
    await fetchChecked(s3, 'b/k', file, { sha256: sha(SNAP), pinnedPath: 'b/k.restore-u', versionId: 'v' }),
    SNAP.length,
  );
  t.ok(readFileSync(file).equals(SNAP));
  t.same(calls[0], { name: 'GetObjectCommand', input: { Bucket: 'b', Key: 'k.restore-u' } }, 'the copy, no version');
  // A version: the key at that version.
  const versioned = fakeS3({ 'b/k': SNAP });
  await fetchChecked(versioned.s3, 'b/k', join(dir, 'v.db'), { sha256: sha(SNAP), versionId: 'v7' });
  t.same(versioned.calls[0]!.input, { Bucket: 'b', Key: 'k', VersionId: 'v7' });
  // The key written again, no version, no copy: refused, no file left.
  const bad = join(dir, 'bad.db');
  await t.rejects(fetchChecked(s3, 'b/k', bad, { sha256: sha(SNAP) }), {
    name: 'SnapshotChanged',
    message: new RegExp(
      `^s3://b/k is not the snapshot its restore checked \\(sha256 ${sha(later).slice(0, 12)}\\.\\.\\., checked ${sha(SNAP).slice(0, 12)}\\.\\.\\.\\)`,
    ),
  });
  t.notOk(existsSync(bad));
  // Without a pin (a record from before pins): the key as it is.
  const loose = join(dir, 'loose.db');
  t.equal(await fetchChecked(s3, 'b/k', loose), later.length);
  t.ok(readFileSync(loose).equals(later));
  await t.rejects(fetchChecked(s3, 'nokey', join(dir, 'x.db')), {
    message: 's3.path "nokey" must be "<bucket>/<key>"',
  });
});
