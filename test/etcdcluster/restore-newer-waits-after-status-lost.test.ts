// One restore at a time past its point of no return (plan/restore-queue.ts): EtcdRestore r dropped the old members
// and its restored members start from its snapshot when a newer EtcdRestore r2 is made, which must wait. Then the
// EtcdCluster's status is lost (a restore of the object from a Kubernetes backup, a status written over by a tool):
// the record that r is past its point of no return was only in status. r's restored members (their fetch-snapshot
// step) and r's unfinished EtcdRestore still say so. r2 must still wait: it is not checked, and its check never
// drops r's restored members, the cluster's only data.
import t from 'tap';
import { fetchesSnapshot, later, newerWhileRestoring, syncAll } from '../fixtures/restore-steps.js';

t.test('a newer EtcdRestore still waits for the running restore after the cluster status is lost', async (t) => {
  const { loop, r, r2, restored } = await newerWhileRestoring();
  t.ok(restored.length > 0 && restored.every((p) => fetchesSnapshot(loop, p)), "r's members start from its snapshot");
  const cond = (loop.s().conditions as any[]).find((c) => c.type === 'Restore');
  t.equal(cond?.reason, 'RestoreWaiting', 'r2 waits while r runs');
  // The status is lost.
  loop.status = undefined;
  loop.check = { succeeded: true };
  for (let i = 0; i < 3; i++) {
    loop.now = later(120 + i * 30);
    await syncAll(loop, [r, r2]);
    t.same(loop.pods(), restored, `sync ${i + 1}: r's restored members are not dropped for r2`);
    t.not(loop.s().restore?.name, 'r2', `sync ${i + 1}: r2 is not taken while r's restore runs`);
  }
});

t.test(
  'a newer EtcdRestore refused by its check after the status is lost: r is not said untaken, nor the cluster untouched',
  async (t) => {
    const { loop, r, r2 } = await newerWhileRestoring();
    // The status is lost; r2's snapshot key is wrong.
    loop.status = undefined;
    loop.check = { succeeded: false, reason: 's3://bucket/ns/other.db: NoSuchKey: The specified key does not exist.' };
    for (let i = 0; i < 4; i++) {
      loop.now = later(120 + i * 30);
      await syncAll(loop, [r, r2]);
    }
    const restore = (loop.s().conditions as any[]).find((c) => c.type === 'Restore');
    t.notMatch(restore?.message ?? '', /the cluster is as it was/, 'the cluster is not said to be as it was');
    t.not(loop.s().restore?.untouched, true, 'no record says the cluster was left untouched');
    t.notMatch(
      String((r['status'] as any)?.reason ?? ''),
      /nothing was restored/,
      'r, which dropped the old members, is not said to have restored nothing',
    );
    t.not((r['status'] as any)?.conditions?.[0]?.reason, 'NotTaken', 'r is not ended NotTaken');
  },
);
