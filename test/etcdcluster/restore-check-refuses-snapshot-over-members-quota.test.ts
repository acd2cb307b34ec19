// A restore checks before it acts (issue 30.5), the backend quota included. spec.pod.etcdEnv reaches only member pods
// made after it is set: a quota set since the running members were made (ETCD_QUOTA_BACKEND_BYTES 2 MiB) reaches the
// restored members only. Before, a snapshot larger than it passed the check (its etcd starts on an empty directory),
// the live members were dropped, and the restored members refused every write (NOSPACE under their own IDs) while
// the restore said Restored. The check reports the snapshot's size: one at or over the quota the restored members
// run with (etcd's default 2 GiB when none is set) is refused before any member is dropped, saying both numbers; a
// quota not known here (from a Secret) or none (negative) is not compared. Real etcd 3.6.9 + moto:
// test/real/etcd-restore-of-snapshot-over-members-quota-refused-before-members-dropped-real.test.ts.
import t from 'tap';
import { DEFAULT_QUOTA_BACKEND_BYTES, quotaProblem, restoredQuota } from '../../hooks/etcdcluster/restore.js';
import type { EtcdClusterSpec } from '../../hooks/etcdcluster/schema.js';
import { running, restoreObject } from '../fixtures/etcd-loop.js';

const MiB = 1024 ** 2;
const specOf = (o: object) => o as unknown as EtcdClusterSpec;
const withQuota = (value: string) =>
  specOf({ size: 3, pod: { etcdEnv: [{ name: 'ETCD_QUOTA_BACKEND_BYTES', value }] } });

t.test("a snapshot over the restored members' quota: refused by the check, the running members kept", async (t) => {
  const loop = await running({ size: 3 });
  const before = loop.pods();
  // The quota set since the members were made (it reaches no running member), then the restore.
  loop.spec = { ...loop.spec, pod: { etcdEnv: [{ name: 'ETCD_QUOTA_BACKEND_BYTES', value: String(2 * MiB) }] } };
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  loop.check = 'running';
  await loop.step();
  // The check fetched and verified a 4 MiB snapshot.
  loop.check = { succeeded: true, size: 4 * MiB, sha256: 'a'.repeat(64) } as unknown as { succeeded: boolean };
  for (let i = 0; i < 4; i++) await loop.step();
  const restore = loop.s().restore;
  t.match(restore, { phase: 'Failed' }, 'refused');
  t.match(JSON.stringify(loop.s()), /4194304 bytes.*backend quota of 2097152 bytes/, 'both numbers said');
  t.same(
    loop.pods().filter((p) => before.includes(p)),
    before,
    `the running members kept: ${loop.pods().join(', ')}`,
  );
});

t.test('the quota the restored members run with, and the snapshots it refuses', async (t) => {
  t.equal(restoredQuota(specOf({ size: 3 })), DEFAULT_QUOTA_BACKEND_BYTES, "etcd's default: 2 GiB");
  t.equal(restoredQuota(withQuota('0')), DEFAULT_QUOTA_BACKEND_BYTES, '0 is the default');
  t.equal(restoredQuota(withQuota(String(8 * 1024 ** 3))), 8 * 1024 ** 3);
  t.equal(restoredQuota(withQuota('-1')), undefined, 'negative: no quota');
  t.equal(
    restoredQuota(withQuota('8G')),
    undefined,
    'a value not in plain decimal bytes (InvalidSpec: quota.ts quotaSpellingProblem) is not read',
  );
  const fromSecret = {
    size: 3,
    pod: { etcdEnv: [{ name: 'ETCD_QUOTA_BACKEND_BYTES', valueFrom: { secretKeyRef: { name: 's', key: 'q' } } }] },
  } as unknown as EtcdClusterSpec;
  t.equal(restoredQuota(fromSecret), undefined, 'taken from a Secret: refused by the spec checks, not read');
  t.equal(quotaProblem(withQuota(String(2 * MiB)), 2 * MiB - 1), undefined, 'under the quota: restored');
  t.match(quotaProblem(withQuota(String(2 * MiB)), 2 * MiB), /2097152 bytes.*quota of 2097152 bytes/, 'at it');
  t.match(quotaProblem(specOf({ size: 3 }), 3 * 1024 ** 3), /etcd's default/, 'over the default');
  t.equal(quotaProblem(withQuota('-1'), 3 * 1024 ** 3), undefined);
  t.equal(quotaProblem(withQuota(String(2 * MiB)), undefined), undefined, 'no size reported: not compared');
});
