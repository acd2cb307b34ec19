// A restore checks before it acts (issue 30.5: "the snapshot is fetched or at least found (credentials, bucket,
// key, size) before any member is dropped"). With storage, each restored member fetches the snapshot onto its
// claim and restores it beside it there (fetch-snapshot, then restore-snapshot into /var/etcd): a snapshot
// larger than the claims the spec asks for can never be restored. The check learns the size (it reads the
// snapshot whole); a restore that cannot fit must be refused while the running members still hold the data,
// not drop them for members that fail with no space left.
import t from 'tap';
import { running, restoreObject } from '../fixtures/etcd-loop.js';

t.test("a snapshot larger than the members' claims: refused by the check, the running members kept", async (t) => {
  const loop = await running({
    size: 3,
    pod: { persistentVolumeClaimSpec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
  });
  const before = loop.pods();
  t.same(before, ['e-0', 'e-1', 'e-2'], 'three members on 1Gi claims');
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  loop.check = 'running';
  await loop.step();
  // The check fetched and verified a 3 GiB snapshot (intact, its sha256 right).
  loop.check = {
    succeeded: true,
    size: 3 * 1024 ** 3,
    sha256: 'a'.repeat(64),
  } as unknown as { succeeded: boolean };
  for (let i = 0; i < 4; i++) await loop.step();
  t.not(loop.s().restore?.phase, 'Replacing', `not replacing (restore ${JSON.stringify(loop.s().restore)})`);
  t.not(loop.s().restore?.phase, 'Restoring', 'not restoring');
  t.same(
    loop.pods().filter((p) => before.includes(p)),
    before,
    `the running members kept: ${loop.pods().join(', ')}`,
  );
});
