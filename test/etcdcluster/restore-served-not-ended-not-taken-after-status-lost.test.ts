// EtcdRestore r dropped the old members and its restored members serve (the cluster records r Restored); a newer
// EtcdRestore r2 waits meanwhile. Before r's own hook reads that record, the EtcdCluster's status is lost (a restore
// of the object from a Kubernetes backup, a status written over by a tool). r2 is then checked, and refused (its key
// does not exist). The cluster runs from r's snapshot: r must not be ended NotTaken, "nothing was restored".
import t from 'tap';
import { restoredServe, restoreObject, restoreStarted, running } from '../fixtures/etcd-loop.js';
import { later, syncAll } from '../fixtures/restore-steps.js';

t.test('a restore whose members serve is not ended NotTaken after the status is lost', async (t) => {
  const loop = await running({ size: 3 });
  await restoreStarted(loop);
  const r = loop.related[0]!;
  const r2 = restoreObject('r2', '2026-07-02T00:00:00Z');
  (r2['spec'] as any).s3.path = 'bucket/ns/other.db';
  loop.related = [r, r2];
  loop.check = 'running';
  loop.now = later(30);
  await syncAll(loop, [r, r2]);
  t.match(loop.s().restore, { name: 'r', phase: 'Restoring' }, 'r restores; r2 waits');
  // r's restored members serve; the cluster records r Restored (r's own hook has not run since).
  restoredServe(loop);
  loop.now = later(60);
  await loop.step();
  t.match(loop.s().restore, { name: 'r', phase: 'Restored' }, 'the cluster runs from r');
  const members = loop.pods();
  // The status is lost; r2's key does not exist.
  loop.status = undefined;
  loop.check = { succeeded: false, reason: 's3://bucket/ns/other.db: NoSuchKey: The specified key does not exist.' };
  for (let i = 0; i < 5; i++) {
    loop.now = later(90 + i * 30);
    await syncAll(loop, [r, r2]);
  }
  t.same(loop.pods(), members, "r's members are kept");
  t.notMatch(
    String((r['status'] as any)?.reason ?? ''),
    /nothing was restored/,
    'r is not said to have restored nothing',
  );
  t.not((r['status'] as any)?.conditions?.[0]?.reason, 'NotTaken', 'r is not ended NotTaken');
});
