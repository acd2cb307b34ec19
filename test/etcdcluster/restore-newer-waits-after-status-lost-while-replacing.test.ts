// One restore at a time past its point of no return (plan/restore-queue.ts), the EtcdCluster's status lost while the
// running restore is between dropping the old members and starting the restored ones (Replacing). EtcdRestore r's
// snapshot passed its check and the old members were dropped on it; a newer EtcdRestore r2 is made (a retry, a
// second operator) as the status is lost (a restore of the object from a Kubernetes backup, a
// status written over by a tool): no restored member exists yet to find r again from, but r's own status says it was
// past its point of no return (Ready: Replacing). r2's snapshot key is wrong, so its check refuses it. r dropped the
// cluster's data: it must not end NotTaken ("nothing was restored"), and the cluster must not be left with no member
// while r's checked snapshot is there to restore from.
import t from 'tap';
import { answeredPod, type Loop, restoreObject, running } from '../fixtures/etcd-loop.js';
import { later, syncAll } from '../fixtures/restore-steps.js';

const fetchedFrom = (loop: Loop, name: string): string | undefined => {
  const steps = ((answeredPod(loop, name)?.['spec'] as any)?.initContainers ?? []) as any[];
  const args: unknown[] = steps.find((c) => c.name === 'fetch-snapshot')?.args ?? [];
  const at = args.indexOf('--s3-path');
  return at >= 0 ? String(args[at + 1]) : undefined;
};

t.test(
  'status lost while a restore replaces the members: a newer refused EtcdRestore ends nothing of it',
  async (t) => {
    const loop = await running({ size: 3 });
    const r = restoreObject('r', '2026-07-01T00:00:00Z');
    loop.related = [r];
    await syncAll(loop, [r]); // Checking
    await syncAll(loop, [r]); // Replacing: the old members dropped
    t.match(loop.s().restore, { name: 'r', phase: 'Replacing' }, "r's check passed, the old members are dropped");
    t.same(loop.pods(), [], 'no member pod is left');
    t.match((r['status'] as any)?.conditions, [{ reason: 'Replacing' }], 'r says it replaces the cluster');
    loop.etcd.members = [];
    loop.etcd.up.clear();
    const r2 = restoreObject('r2', '2026-07-02T00:00:00Z');
    (r2['spec'] as any).s3.path = 'bucket/ns/other.db';
    loop.related = [r, r2];
    // The status is lost; r2's key does not exist.
    loop.status = undefined;
    loop.check = { succeeded: false, reason: 's3://bucket/ns/other.db: NoSuchKey: The specified key does not exist.' };
    let restored: string[] = [];
    for (let i = 0; i < 8; i++) {
      loop.now = later(60 + i * 30);
      // r's snapshot is there: a check of it passes.
      if (loop.s()?.restore?.name === 'r') loop.check = { succeeded: true };
      await syncAll(loop, [r, r2]);
      restored = loop.pods().filter((p) => fetchedFrom(loop, p) === 'bucket/ns/snap.db');
    }
    t.notMatch(
      String((r['status'] as any)?.reason ?? ''),
      /nothing was restored/,
      'r, which dropped the old members, is not said to have restored nothing',
    );
    t.not((r['status'] as any)?.conditions?.[0]?.reason, 'NotTaken', 'r is not ended NotTaken');
    t.equal(
      restored.length,
      3,
      `the members restored from r's snapshot start (${loop.pods().join(',') || 'no member pod'})`,
    );
  },
);
