// Issue 30.5: a restore checks before it acts. A new EtcdRestore first gets a check pod that fetches its snapshot with
// the restore's own S3 access and verifies it as etcd will; the cluster runs meanwhile. Only a passed check drops the
// old members; a failed one (or one that never finishes) ends the restore succeeded: false with the reason, the
// cluster untouched. Once members are dropped, Restoring has a deadline that ends in RestoreFailed naming why the
// pods wait. Each answer fed back as the next observed state; on real etcd and moto: etcd-restore-real.test.ts.
import { createHash } from 'node:crypto';
import t from 'tap';
import { checkSnapshot, credentialsProblem, verifyStream } from '../../hooks/etcdcommon/snapshot.js';
import {
  RESTORE_CHECK_SECONDS,
  RESTORE_SECONDS,
  checkVerdict,
  restoreCheckPod,
  restoreOverdue,
  waitingReason,
} from '../../hooks/etcdcluster/restore.js';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import {
  restoredMembersWait,
  restoreHook,
  restoreObject,
  restoreStarted,
  running,
  type Loop,
} from '../fixtures/etcd-loop.js';
import { etcdParent, etcdSnapshot, etcdSpec } from '../fixtures/etcd.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const condition = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);
const later = (seconds: number) => new Date(FIXED_NOW.getTime() + seconds * 1000);

for (const [what, reason] of [
  ['a missing Secret', 'the awsSecret aws was not found in this namespace, or it has no credentials file'],
  ['a wrong key', 's3://bucket/snap.db: NoSuchKey: The specified key does not exist.'],
  ['a wrong bucket', 's3://bucket/snap.db: NoSuchBucket: The specified bucket does not exist'],
] as const) {
  t.test(
    `a restore whose check fails (${what}): succeeded: false with the reason, the cluster untouched`,
    async (t) => {
      const loop = await running({ size: 3 });
      const r = restoreObject('r', '2026-07-01T00:00:00Z');
      loop.related = [r];
      loop.check = 'running';
      const first = await loop.step();
      t.match(loop.s().restore, { uid: 'uid-r', phase: 'Checking', since: '2026-01-02T03:04:05Z' });
      t.match(condition(first, 'Restore'), { status: 'True', reason: 'CheckingSnapshot' });
      t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the members kept while the check runs');
      t.ok(loop.checkPod(), 'the check pod answered');
      t.match(condition(first, 'Available'), { status: 'True' });
      restoreHook(loop, r);
      t.notOk('succeeded' in (r['status'] as any), 'the EtcdRestore waits');
      loop.check = { succeeded: false, reason };
      for (let i = 0; i < 4; i++) {
        const res = await loop.step();
        t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], `sync ${i + 1}: every member kept`);
        t.equal(loop.s().phase, 'Running');
        t.match(loop.s().restore, { uid: 'uid-r', phase: 'Failed', untouched: true, reason });
        t.match(condition(res, 'Restore'), { status: 'False', reason: 'RestoreRefused', message: /as it was$/ });
        t.match(condition(res, 'Available'), { status: 'True', reason: 'QuorumAvailable' });
        t.notOk(loop.checkPod(), 'the check pod goes');
        restoreHook(loop, r);
      }
      t.same(loop.etcd.calls, [], 'no membership change');
      t.match(r['status'], { succeeded: false, reason: `the snapshot could not be restored: ${reason}` });
      t.equal(res(loop).resyncAfterSeconds, undefined, 'at rest');
      // The same EtcdRestore never acts again; a new one (the cause fixed) is checked, then acts.
      loop.check = { succeeded: true };
      const again = restoreObject('r2', '2026-07-02T00:00:00Z');
      loop.related = [r, again];
      await loop.step();
      t.match(loop.s().restore, { name: 'r2', phase: 'Checking' });
      t.same(loop.pods(), ['e-0', 'e-1', 'e-2']);
      await loop.step();
      t.match(loop.s().restore, { name: 'r2', phase: 'Replacing' });
      t.same(loop.pods(), [], 'only a passed check drops the old members');
    },
  );
}

function res(loop: Loop): CompositeSyncResponse {
  return loop.last;
}

t.test('a check that does not finish within the limit fails, naming why its pod waits', async (t) => {
  const loop = await running({ size: 3 });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  loop.podStatus.set('e-restore-check', {
    phase: 'Pending',
    containerStatuses: [{ name: 'check', state: { waiting: { reason: 'ImagePullBackOff' } } }],
  });
  await loop.step();
  loop.now = later(RESTORE_CHECK_SECONDS - 1); // (times are kept to the second)
  await loop.step();
  t.equal(loop.s().restore.phase, 'Checking', 'not before the limit');
  loop.now = later(RESTORE_CHECK_SECONDS + 1);
  const over = await loop.step();
  t.match(loop.s().restore, {
    phase: 'Failed',
    untouched: true,
    reason: 'the snapshot check did not finish within 10 minutes (check: ImagePullBackOff)',
  });
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2']);
  t.match(condition(over, 'Restore'), { reason: 'RestoreRefused' });
  // Its pod never created (admission refused it): the same.
  const refused = await running({ size: 3 });
  refused.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  await refused.step();
  refused.children = refused.children.filter((c) => c.metadata.name !== 'e-restore-check');
  refused.now = later(RESTORE_CHECK_SECONDS + 1);
  await refused.step();
  t.match(refused.s().restore, { phase: 'Failed', reason: /within 10 minutes \(its pod was not created\)/ });
});

t.test('the EtcdRestore deleted while its snapshot is checked: nothing dropped, the record failed', async (t) => {
  const loop = await running({ size: 3 });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  loop.check = 'running';
  await loop.step();
  loop.related = [];
  loop.check = { succeeded: true }; // even a check that passed meanwhile
  for (let i = 0; i < 3; i++) {
    await loop.step();
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2']);
    t.match(loop.s().restore, {
      phase: 'Failed',
      untouched: true,
      reason: 'the EtcdRestore was deleted before its snapshot was checked',
    });
  }
});

t.test('a check pod of another restore, or for another path, proves nothing: replaced', async (t) => {
  const loop = await running({ size: 3 });
  const r = restoreObject('r', '2026-07-01T00:00:00Z');
  loop.related = [r];
  await loop.step();
  // The EtcdRestore's path edited after its check pod was made: the pod's verdict is about the old path.
  (r['spec'] as any).s3.path = 'bucket/ns/other.db';
  await loop.step();
  t.equal(loop.s().restore.phase, 'Checking', 'not taken as passed');
  t.notOk(loop.checkPod(), 'the stale check pod dropped');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2']);
  await loop.step();
  t.match(loop.checkPod(), {
    spec: { containers: [{ args: ['etcd-restore-check', '--s3-path', 'bucket/ns/other.db'] }] },
  });
  await loop.step();
  t.equal(loop.s().restore.phase, 'Replacing', 'the new check passed');
});

t.test('paused: a check that passed does not drop the members until the cluster is resumed', async (t) => {
  const loop = await running({ size: 3 });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  await loop.step();
  loop.spec = { ...loop.spec, paused: true };
  for (let i = 0; i < 2; i++) {
    await loop.step();
    t.equal(loop.s().restore.phase, 'Checking');
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2']);
  }
  loop.spec = { ...loop.spec, paused: false };
  await loop.step();
  t.equal(loop.s().restore.phase, 'Replacing');
});

t.test('Restoring has a deadline: members that never serve end it RestoreFailed, naming why they wait', async (t) => {
  const loop = await running({ size: 3 });
  await restoreStarted(loop);
  t.match(loop.s().restore, { phase: 'Restoring', since: '2026-01-02T03:04:05Z' });
  restoredMembersWait(loop);
  loop.now = later(RESTORE_SECONDS - 1);
  await loop.step();
  t.equal(loop.s().restore.phase, 'Restoring', 'not before the limit');
  loop.now = later(RESTORE_SECONDS + 1);
  const res = await loop.step();
  t.match(loop.s(), { phase: 'Failed', reason: 'RestoreFailed' });
  t.equal(
    loop.s().restore.reason,
    'the restored members did not serve within 15 minutes (e-3: fetch-snapshot: CreateContainerConfigError; e-4: fetch-snapshot: CreateContainerConfigError; e-5: fetch-snapshot: CreateContainerConfigError)',
  );
  t.match(condition(res, 'Available'), { reason: 'RestoreFailed', message: /did not serve within 15 minutes/ });
});

t.test('a restore step that fails under restartPolicy Always (retried by the kubelet) fails the restore', async (t) => {
  const loop = await running({ size: 3 });
  await restoreStarted(loop);
  const message = JSON.stringify({ succeeded: false, reason: 'AccessDenied: Access Denied' });
  loop.podStatus.set('e-3', {
    phase: 'Pending',
    initContainerStatuses: [
      { name: 'check-dns', state: { terminated: { exitCode: 0 } } },
      {
        name: 'fetch-snapshot',
        state: { waiting: { reason: 'CrashLoopBackOff' } },
        lastState: { terminated: { exitCode: 1, message } },
      },
    ],
  });
  await loop.step();
  t.match(loop.s().restore, { phase: 'Failed', reason: 'fetch-snapshot: AccessDenied: Access Denied' });
  // A DNS wait that timed out is no failed restore step.
  const dns = await running({ size: 3 });
  dns.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  await dns.step();
  await dns.step();
  dns.etcd.members = [];
  dns.etcd.up.clear();
  await dns.step();
  dns.podStatus.set('e-3', {
    phase: 'Pending',
    initContainerStatuses: [
      {
        name: 'check-dns',
        state: { waiting: { reason: 'CrashLoopBackOff' } },
        lastState: { terminated: { exitCode: 1 } },
      },
    ],
  });
  await dns.step();
  t.equal(dns.s().restore.phase, 'Restoring');
});

t.test('the check pod: the restore’s S3 access with its Secret optional, no member labels, restricted', async (t) => {
  const pod = restoreCheckPod(
    etcdParent({}),
    etcdSpec({}),
    { ...etcdSnapshot, s3: { ...etcdSnapshot.s3, endpoint: 'http://minio:9000', forcePathStyle: true } },
    'uid-r',
  ) as any;
  t.equal(pod.metadata.name, 'e-restore-check');
  t.notOk(pod.metadata.labels.etcd_cluster, 'not selected by the Services or the disruption budget');
  t.equal(pod.metadata.annotations['etcd.database.coreos.com/restore-uid'], 'uid-r');
  t.equal(pod.spec.restartPolicy, 'Never');
  const c = pod.spec.containers[0];
  t.same(c.command, ['node', '/app/dist/main/cli.js']);
  t.same(c.args, [
    'etcd-restore-check',
    '--s3-path',
    'bucket/snap.db',
    '--pin-path',
    'bucket/snap.db.restore-uid-r',
    '--s3-endpoint',
    'http://minio:9000',
    '--force-path-style',
    '--aws-dir',
    '/etc/metaops/aws',
    '--aws-secret',
    'aws',
  ]);
  t.equal(c.image, 'metaops:test');
  t.same(pod.spec.volumes, [
    { name: 'aws', secret: { secretName: 'aws', optional: true } },
    // The data directory of its etcd, started as the restored members' will be (etcdStartContainer).
    { name: 'etcd-start-data', emptyDir: {} },
  ]);
  t.same(c.volumeMounts, [{ name: 'aws', mountPath: '/etc/metaops/aws', readOnly: true }]);
  // The Secret's credentials only, as a backup takes them (its keys one by one, no envFrom, no metadata service).
  t.same(c.envFrom, []);
  t.match(c.env, [
    {
      name: 'AWS_ACCESS_KEY_ID',
      valueFrom: { secretKeyRef: { name: 'aws', key: 'AWS_ACCESS_KEY_ID', optional: true } },
    },
  ]);
  t.ok(c.env.some((e: any) => e.name === 'AWS_EC2_METADATA_DISABLED' && e.value === 'true'));
  t.same(c.securityContext, { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
  t.match(pod.spec.securityContext, { runAsNonRoot: true, runAsUser: 10001 });
  const ambient = restoreCheckPod(etcdParent({}), etcdSpec({}), { s3: { path: 'b/k' }, image: 'i' }, 'u') as any;
  t.same(ambient.spec.containers[0].args, ['etcd-restore-check', '--s3-path', 'b/k', '--pin-path', 'b/k.restore-u']);
  t.same(ambient.spec.volumes, [{ name: 'etcd-start-data', emptyDir: {} }]);
});

t.test('checkVerdict, waitingReason and restoreOverdue, field by field', async (t) => {
  const pod = (status: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, status });
  const ended = (terminated: Record<string, unknown>) =>
    pod({
      containerStatuses: [
        { name: 'other', state: {} },
        { name: 'check', state: { terminated } },
      ],
    });
  const since = '2026-01-02T03:04:05Z';
  // Passed once its etcd, started as the restored members' will be, is Ready too (etcdStartContainer).
  t.same(checkVerdict(ended({ exitCode: 0 }), since, FIXED_NOW), { state: 'waiting' });
  const passed = pod({
    containerStatuses: [
      { name: 'check', state: { terminated: { exitCode: 0 } } },
      { name: 'etcd-start', ready: true, state: { running: {} } },
    ],
  });
  t.same(checkVerdict(passed, since, FIXED_NOW), { state: 'passed' });
  t.same(checkVerdict(ended({ exitCode: 1, message: '{"reason":"NoSuchKey"}' }), since, FIXED_NOW), {
    state: 'failed',
    reason: 'NoSuchKey',
  });
  // A check killed under it (no verdict of its own) proved nothing: made again within its deadline, and refused past
  // it naming the exit. One that wrote its verdict before the kill is refused at once.
  t.same(checkVerdict(ended({ exitCode: 137, reason: 'OOMKilled' }), since, FIXED_NOW), { state: 'again' });
  t.same(
    checkVerdict(
      ended({ exitCode: 137, reason: 'OOMKilled' }),
      since,
      new Date(Date.parse(since) + (RESTORE_CHECK_SECONDS + 1) * 1000),
    ),
    { state: 'failed', reason: 'the snapshot check exited with 137 (OOMKilled)' },
  );
  t.same(checkVerdict(ended({ exitCode: 137, message: '{"reason":"AccessDenied"}' }), since, FIXED_NOW), {
    state: 'failed',
    reason: 'AccessDenied',
  });
  t.same(checkVerdict(ended({ exitCode: 2, message: 'not json' }), since, FIXED_NOW), {
    state: 'failed',
    reason: 'the snapshot check exited with 2 (Error)',
  });
  t.same(checkVerdict(ended({ exitCode: 3, message: '{"reason":""}' }), since, FIXED_NOW), {
    state: 'failed',
    reason: 'the snapshot check exited with 3 (Error)',
  });
  const at = new Date(Date.parse(since) + RESTORE_CHECK_SECONDS * 1000);
  t.same(checkVerdict(ended({}), since, at), { state: 'waiting' }, 'at the limit');
  t.match(checkVerdict(ended({}), since, new Date(at.getTime() + 1)), { state: 'failed' }, 'past it');
  t.same(checkVerdict(undefined, since, FIXED_NOW), { state: 'waiting' });
  t.same(checkVerdict(undefined, undefined, later(99999)), { state: 'waiting' }, 'no start: no deadline');
  t.same(checkVerdict(undefined, since, undefined), { state: 'waiting' }, 'no clock: no deadline');
  t.same(checkVerdict(pod({ containerStatuses: 'x' }), since, later(RESTORE_CHECK_SECONDS + 1)), {
    state: 'failed',
    reason: 'the snapshot check did not finish within 10 minutes (not started)',
  });
  t.equal(waitingReason(pod({ phase: 'Pending' })), 'Pending');
  t.equal(waitingReason(pod({})), 'not started');
  t.equal(
    waitingReason(
      pod({
        initContainerStatuses: [null, { name: 'a', state: { waiting: { reason: '' } } }],
        containerStatuses: [{ name: 'b', state: { waiting: { reason: 'X\nY' } } }],
      }),
    ),
    'b: X Y',
  );
  const record = { uid: 'u', name: 'r', phase: 'Restoring' as const, since };
  const limit = new Date(Date.parse(since) + RESTORE_SECONDS * 1000);
  t.equal(restoreOverdue(record, [], limit), undefined, 'at the limit');
  t.ok(restoreOverdue(record, [], new Date(limit.getTime() + 1)), 'past it');
  t.equal(
    restoreOverdue(record, [], later(RESTORE_SECONDS + 1)),
    'the restored members did not serve within 15 minutes (no pod)',
  );
  t.equal(restoreOverdue({ ...record, since: undefined as any }, [], later(99999)), undefined);
  t.equal(restoreOverdue(record, [], undefined), undefined);
  const pods = [1, 2, 3, 4].map((i) => ({ ...pod({ phase: 'Pending' }), metadata: { name: `p${i}` } }));
  t.equal(
    restoreOverdue(record, pods, later(RESTORE_SECONDS + 1)),
    'the restored members did not serve within 15 minutes (p1: Pending; p2: Pending; p3: Pending)',
    'at most three named',
  );
});

/** An etcd snapshot as etcdctl writes one: the data, then the sha256 of the data. */
function snapshot(data: Buffer): Buffer {
  return Buffer.concat([data, createHash('sha256').update(data).digest()]);
}

/** The sha256 of a whole object (hex). */
function sha(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

async function* chunks(data: Buffer, size: number) {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

t.test('verifyStream: the size, and the sha256 at the end, whatever the chunks', async (t) => {
  const data = Buffer.from('x'.repeat(1000) + 'etcd');
  const good = snapshot(data);
  for (const size of [1, 7, 31, 32, 33, 100, 5000]) {
    t.same(
      await verifyStream(chunks(good, size)),
      { size: good.length, intact: true, sha256: sha(good) },
      `chunks of ${size}`,
    );
    const bad = Buffer.from(good);
    bad[10] = bad[10]! ^ 1;
    t.same(
      await verifyStream(chunks(bad, size)),
      { size: good.length, intact: false, sha256: sha(bad) },
      `a flipped byte, chunks of ${size}`,
    );
  }
  t.same(await verifyStream(chunks(Buffer.alloc(0), 1)), { size: 0, intact: false, sha256: sha(Buffer.alloc(0)) });
  const hashOnly = createHash('sha256').update(Buffer.alloc(0)).digest();
  t.same(
    await verifyStream(chunks(hashOnly, 8)),
    { size: 32, intact: false, sha256: sha(hashOnly) },
    'no data at all is no snapshot',
  );
});

t.test('checkSnapshot: credentials, path, the object and its errors', async (t) => {
  const objects: Record<string, Buffer> = { 'bucket/snap.db': snapshot(Buffer.from('data'.repeat(100))) };
  const sent: string[] = [];
  const s3 = {
    send: async (cmd: { input: { Bucket: string; Key: string } }) => {
      sent.push(`${cmd.input.Bucket}/${cmd.input.Key}`);
      if (cmd.input.Bucket === 'nobucket')
        throw Object.assign(new Error('The specified bucket does not exist'), { name: 'NoSuchBucket' });
      const body = objects[`${cmd.input.Bucket}/${cmd.input.Key}`];
      if (!body) throw Object.assign(new Error('The specified key does not exist.'), { name: 'NoSuchKey' });
      return { Body: chunks(body, 64) };
    },
  } as any;
  const env = { AWS_ACCESS_KEY_ID: 'AKID' };
  const whole = sha(objects['bucket/snap.db']!);
  t.same(await checkSnapshot(s3, 'bucket/snap.db', { awsSecret: 'aws', env }), {
    succeeded: true,
    size: 432,
    sha256: whole,
    pinned: false,
  });
  t.same(
    await checkSnapshot(s3, 'bucket/snap.db', { env: {} }),
    { succeeded: true, size: 432, sha256: whole, pinned: false },
    'no Secret named',
  );
  t.same(await checkSnapshot(s3, 'bucket/none.db', { env }), {
    succeeded: false,
    reason: 's3://bucket/none.db: NoSuchKey: The specified key does not exist.',
    error: 'NoSuchKey',
  });
  t.same(await checkSnapshot(s3, 'nobucket/snap.db', { env }), {
    succeeded: false,
    reason: 's3://nobucket/snap.db: NoSuchBucket: The specified bucket does not exist',
    error: 'NoSuchBucket',
  });
  sent.length = 0;
  t.match(await checkSnapshot(s3, 'bucket/snap.db', { awsSecret: 'aws', env: {} }), {
    succeeded: false,
    reason: /^the awsSecret aws was not found in this namespace/,
  });
  t.same(sent, [], 'nothing asked of S3 without the credentials the restore names');
  for (const bad of ['nokey', '/key', 'bucket/', ''])
    t.match(await checkSnapshot(s3, bad, { env }), { succeeded: false, reason: /must be "<bucket>\/<key>"/ }, bad);
  objects['bucket/tiny'] = Buffer.alloc(10);
  t.same(await checkSnapshot(s3, 'bucket/tiny', { env }), {
    succeeded: false,
    size: 10,
    reason: 's3://bucket/tiny has 10 bytes: it is no etcd snapshot',
  });
  objects['bucket/junk'] = Buffer.alloc(1000, 7);
  t.match(await checkSnapshot(s3, 'bucket/junk', { env }), {
    succeeded: false,
    size: 1000,
    reason: /is not an intact etcd snapshot/,
  });
  const thrower = { send: async () => Promise.reject('plain string') } as any;
  t.same(await checkSnapshot(thrower, 'b/k', { env }), {
    succeeded: false,
    reason: 's3://b/k: Error: plain string',
    error: 'Error',
  });
  for (const nothing of [null, undefined]) {
    const bare = { send: async () => Promise.reject(nothing) } as any;
    t.same(
      await checkSnapshot(bare, 'b/k', { env }),
      { succeeded: false, reason: `s3://b/k: Error: ${String(nothing)}`, error: 'Error' },
      `${String(nothing)} thrown`,
    );
  }
  // AWS's words on one line, every run of white space one space, at most 300 characters.
  const wordy = {
    send: async () => Promise.reject(Object.assign(new Error('line one\n\n   line two\t\tend'), { name: 'Odd' })),
  } as any;
  t.same(await checkSnapshot(wordy, 'b/k', { env }), {
    succeeded: false,
    reason: 's3://b/k: Odd: line one line two end',
    error: 'Odd',
  });
  const long = { send: async () => Promise.reject(new Error('x'.repeat(1000))) } as any;
  t.equal(
    (await checkSnapshot(long, 'b/k', { env })).reason,
    `s3://b/k: ${`Error: ${'x'.repeat(1000)}`.slice(0, 300)}`,
  );
  // Exactly the 32 bytes of a hash: no data, no snapshot.
  objects['bucket/hash-only'] = createHash('sha256').update(Buffer.alloc(0)).digest();
  t.same(await checkSnapshot(s3, 'bucket/hash-only', { env }), {
    succeeded: false,
    size: 32,
    reason: 's3://bucket/hash-only has 32 bytes: it is no etcd snapshot',
  });
  t.equal(credentialsProblem(undefined, {}), undefined);
  t.equal(credentialsProblem('aws', { AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials' }) !== undefined, true);
  t.equal(
    credentialsProblem('aws', { AWS_SHARED_CREDENTIALS_FILE: new URL(import.meta.url).pathname }),
    undefined,
    'the file is there',
  );
});

t.test('restore steps run again after the member started keep its data: prepareRestore, placeRestored', async (t) => {
  const { mkdtempSync, mkdirSync, writeFileSync, existsSync, readFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { placeRestored, prepareRestore } = await import('../../hooks/etcdcommon/snapshot.js');
  const root = mkdtempSync(join(tmpdir(), 'h-etcd-restore-steps-'));
  t.teardown(async () => (await import('node:fs')).rmSync(root, { recursive: true, force: true }));
  const file = join(root, 'snapshot.db');
  const restored = join(root, 'restored');
  const data = join(root, 'data');
  // First run: nothing there yet: fetch, restore aside, place.
  mkdirSync(join(restored, 'stale'), { recursive: true });
  t.equal(prepareRestore(file, restored, data), 'fetch');
  t.notOk(existsSync(restored), 'a stale restore directory emptied');
  writeFileSync(file, 'snapshot');
  mkdirSync(join(restored, 'member'), { recursive: true });
  writeFileSync(join(restored, 'member', 'db'), 'restored');
  mkdirSync(data); // an empty data directory left by a crash before the place step
  t.equal(placeRestored(restored, data), 'placed');
  t.equal(readFileSync(join(data, 'member', 'db'), 'utf8'), 'restored');
  t.notOk(existsSync(restored));
  // The member ran and wrote; then its sandbox is recreated and the steps run again.
  writeFileSync(join(data, 'member', 'db'), 'newer than the snapshot');
  t.equal(prepareRestore(file, restored, data), 'kept', 'no fetch: the member has its data and the snapshot is kept');
  mkdirSync(join(restored, 'member'), { recursive: true });
  writeFileSync(join(restored, 'member', 'db'), 'restored again');
  t.equal(placeRestored(restored, data), 'kept');
  t.equal(readFileSync(join(data, 'member', 'db'), 'utf8'), 'newer than the snapshot', 'its data kept');
  t.notOk(existsSync(restored), 'the restore thrown away');
  // The snapshot gone (never kept): fetched again.
  (await import('node:fs')).rmSync(file);
  t.equal(prepareRestore(file, restored, data), 'fetch');
  // Nothing restored and no data: an error, not an empty member.
  const empty = join(root, 'empty');
  t.throws(() => placeRestored(join(root, 'none'), empty), /holds no restored member/);
  t.notOk(existsSync(empty));
  // A restore directory etcdutl left without a member: an error too, the data directory left as it is.
  mkdirSync(join(root, 'partial', 'wal'), { recursive: true });
  mkdirSync(empty);
  t.throws(() => placeRestored(join(root, 'partial'), empty), /holds no restored member/);
  t.ok(existsSync(empty));
  // The data directory is there (its volume) without a member, the snapshot kept: fetched, not kept.
  writeFileSync(file, 'snapshot');
  t.equal(prepareRestore(file, restored, empty), 'fetch', 'an empty data directory holds no member');
  // No data directory at all: the restored member placed there.
  const fresh = join(root, 'fresh');
  mkdirSync(join(restored, 'member'), { recursive: true });
  t.equal(placeRestored(restored, fresh), 'placed');
  t.ok(existsSync(join(fresh, 'member')));
  // The member has its data and the restore directory is gone already (emptied by prepareRestore): kept.
  t.equal(placeRestored(join(root, 'never-made'), fresh), 'kept');
});
