// A restore checks before it acts (issue 30.5): in a bucket that keeps versions, each restored member fetches the
// checked version by its VersionId, a request of its own (on AWS it needs s3:GetObjectVersion, which s3:GetObject
// does not give). The check makes that request with the restore's credentials before passing: where it works the
// version is the pin; where it does not, the check keeps a copy beside the key (`<key>.restore-<uid>`) and the members
// fetch that, saying so; where neither can be made it refuses, naming s3:GetObjectVersion, before anything is
// dropped. Real S3 semantics (IAM enforced): test/real/etcd-restore-check-read-without-version-permission-real.test.ts.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { checkSnapshot, fetchChecked } from '../../hooks/etcdcommon/snapshot.js';
import { pinOf } from '../../hooks/etcdcluster/restore.js';
import { accessDenied, chunks, copyObject, noSuchKey, sha, snapshot } from '../fixtures/snapshot-s3.js';

const SNAP = snapshot('the data\n');

type Call = { name: string; input: Record<string, unknown> };
/**
 * A bucket that keeps versions (every GET answers VersionId v1): a GET naming a version answers `version` (an error
 * thrown, else served); a copy answers `copy` (an error thrown, else made). Every call recorded.
 */
function versionedS3(objects: Record<string, Buffer>, options: { version?: Error; copy?: Error } = {}) {
  const calls: Call[] = [];
  const send = async (cmd: { constructor: { name: string }; input: Record<string, unknown> }) => {
    const name = cmd.constructor.name;
    calls.push({ name, input: cmd.input });
    if (name === 'GetObjectCommand' && cmd.input['VersionId'] !== undefined && options.version) throw options.version;
    if (name === 'CopyObjectCommand') {
      if (options.copy) throw options.copy;
      copyObject(objects, cmd.input);
      return { VersionId: 'v-copy' };
    }
    const body = objects[`${cmd.input['Bucket']}/${cmd.input['Key']}`];
    if (!body) throw noSuchKey();
    return { Body: chunks(body), ETag: '"etag-1"', VersionId: 'v1' };
  };
  return { s3: { send } as any, calls, objects };
}

const ended = (result: object) =>
  ({
    metadata: { name: 'e-restore-check' },
    status: {
      containerStatuses: [{ name: 'check', state: { terminated: { exitCode: 0, message: JSON.stringify(result) } } }],
    },
  }) as any;

t.test('the version readable by its VersionId with these credentials: the version is the pin, no copy', async (t) => {
  const { s3, calls } = versionedS3({ 'b/ns/snap.db': SNAP });
  const r = await checkSnapshot(s3, 'b/ns/snap.db', { pinPath: 'b/ns/snap.db.restore-u', env: {} });
  t.same(r, { succeeded: true, size: SNAP.length, sha256: sha(SNAP), versionId: 'v1' });
  t.same(calls[1], {
    name: 'GetObjectCommand',
    input: { Bucket: 'b', Key: 'ns/snap.db', VersionId: 'v1', Range: 'bytes=0-0' },
  });
  t.notOk(
    calls.some((c) => c.name === 'CopyObjectCommand'),
    'no copy',
  );
});

t.test(
  'the version not readable by its VersionId: the members fetch a copy of the bytes checked, and why',
  async (t) => {
    const { s3, calls, objects } = versionedS3({ 'b/ns/snap.db': SNAP }, { version: accessDenied() });
    const r = await checkSnapshot(s3, 'b/ns/snap.db', { pinPath: 'b/ns/snap.db.restore-u', env: {} });
    t.match(r, { succeeded: true, size: SNAP.length, sha256: sha(SNAP), pinned: true });
    t.notOk('versionId' in r, 'no version given to the members: they could not fetch it');
    t.match(r.pinReason, /s3:GetObjectVersion/, 'it says why the copy, not the version');
    t.ok(r.pinReason!.length <= 200);
    t.match(calls[2], {
      name: 'CopyObjectCommand',
      input: { Key: 'ns/snap.db.restore-u', CopySource: 'b/ns/snap.db', CopySourceIfMatch: '"etag-1"' },
    });
    t.ok(objects['b/ns/snap.db.restore-u']?.equals(SNAP));
    // What the cluster records from the check's termination message, and the members' fetch with it.
    const pin = pinOf(ended(r), { s3: { path: 'b/ns/snap.db' }, image: 'i' }, 'u');
    t.same(pin, { sha256: sha(SNAP), pinnedPath: 'b/ns/snap.db.restore-u' });
    const file = join(mkdtempSync(join(tmpdir(), 'restore-copy-pin-')), 'snapshot.db');
    t.equal(await fetchChecked(s3, 'b/ns/snap.db', file, pin), SNAP.length);
    t.ok(readFileSync(file).equals(SNAP));
  },
);

t.test('neither the version readable nor a copy allowed: refused, naming s3:GetObjectVersion', async (t) => {
  const { s3 } = versionedS3({ 'b/ns/snap.db': SNAP }, { version: accessDenied(), copy: accessDenied() });
  const r = await checkSnapshot(s3, 'b/ns/snap.db', { pinPath: 'b/ns/snap.db.restore-u', env: {} });
  t.match(r, { succeeded: false, size: SNAP.length });
  t.notOk('sha256' in r, 'no pin to act on');
  // The cluster's status keeps the first 180 characters of a check's reason (restore.ts failureOf).
  t.match(r.reason!.slice(0, 180), /s3:GetObjectVersion/);
  t.match(
    r.reason,
    /allow them s3:GetObjectVersion on s3:\/\/b\/ns\/snap\.db, or s3:PutObject on s3:\/\/b\/ns\/snap\.db\.restore-u/,
  );
  t.match(r.reason, /AccessDenied: Access Denied/);
  // A periodic snapshot's key, a one-off's: the same (the members could fetch neither).
  const periodic = versionedS3(
    { 'b/ns/e_v0000000000000005_2026-07-01-000000': SNAP },
    {
      version: accessDenied(),
      copy: accessDenied(),
    },
  );
  t.match(await checkSnapshot(periodic.s3, 'b/ns/e_v0000000000000005_2026-07-01-000000', { env: {} }), {
    succeeded: false,
    reason: /s3:GetObjectVersion/,
  });
});

t.test('the version not readable and the key written again before the copy: refused as written again', async (t) => {
  const changed = Object.assign(new Error('At least one of the pre-conditions you specified did not hold'), {
    name: 'PreconditionFailed',
  });
  const { s3 } = versionedS3({ 'b/k': SNAP }, { version: accessDenied(), copy: changed });
  t.match(await checkSnapshot(s3, 'b/k', { pinPath: 'b/k.restore-u', env: {} }), {
    succeeded: false,
    reason: /written again while it was checked/,
  });
});
