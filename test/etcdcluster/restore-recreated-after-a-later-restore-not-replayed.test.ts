// An EtcdRestore r restored the cluster; later another EtcdRestore r2 (another snapshot) restored it again; writes
// were made since. Then r is made again under its name with its snapshot (a namespace restore of the object backups,
// a GitOps tool that keeps every manifest after the advised delete). r was carried out already: a replay would drop
// the live members and roll the cluster back to r's older snapshot, losing r2's data and every write since. That the
// cluster's status names only its last restore (r2) must not make r's replay look like a new request.
import t from 'tap';
import { restoredServe, restoreObject } from '../fixtures/etcd-loop.js';
import { later, restoredByR, rMadeAgain, syncAll } from '../fixtures/restore-steps.js';

t.test('an EtcdRestore made again under its name after a later restore: not replayed', async (t) => {
  const { loop, r } = await restoredByR();
  t.match(r['status'], { succeeded: true }, 'r restored the cluster');
  // r2, from another snapshot, restores it again.
  const r2 = restoreObject('r2', '2026-07-02T00:00:00Z');
  (r2['spec'] as any).s3.path = 'bucket/ns/snap2.db';
  loop.related = [r, r2];
  loop.check = { succeeded: true };
  for (let i = 0; i < 12 && (r2['status'] as any)?.succeeded !== true; i++) {
    loop.now = later(60 + i * 30);
    await syncAll(loop, [r, r2]);
    if (loop.s().restore?.phase === 'Replacing') {
      loop.etcd.members = [];
      loop.etcd.up.clear();
    }
    if (loop.s().restore?.phase === 'Restoring' && loop.pods().length > 0) restoredServe(loop);
  }
  t.match(r2['status'], { succeeded: true }, 'r2 restored the cluster');
  t.match(loop.s(), { restore: { name: 'r2', phase: 'Restored' } });
  const members = loop.pods();
  // r is made again under its name with its snapshot, a day later; the old r and r2 are gone (deleted as advised).
  const again = rMadeAgain(loop, '2026-07-03T00:00:00Z');
  for (let i = 0; i < 4; i++) {
    loop.now = later(3600 + i * 60);
    await syncAll(loop, [again]);
    t.same(loop.pods(), members, `sync ${i + 1}: the live members are kept`);
    t.notMatch(
      loop.s().restore?.phase ?? '',
      /^(Replacing|Restoring)$/,
      `sync ${i + 1}: the cluster is not rolled back to r's snapshot`,
    );
  }
});
