// Issue 30.4: a member given back the last good version after a failed upgrade, that keeps exiting there too, is
// replaced once it has failed there for 10 minutes, its clock never starting before the failure
// (status.upgradeFailed.since). The hook's clock ran an hour ahead in the syncs that saw the upgraded member exit and
// failed the upgrade (a replica on a node whose clock was off, stepped right by NTP since): `since` lies an hour in
// the future of the next syncs. A time recorded ahead of now reads as now (docs/etcdcluster.md): the member is
// replaced about 10 minutes after the failure, not once the wall clock has caught up with the record (the cluster at
// 2 of 3 meanwhile, one failure from losing quorum).
import t from 'tap';
import { CRASHING, running, upgradeFirst } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

for (const ahead of [0, 3600]) {
  t.test(`a failure recorded by a clock ${ahead} s ahead: the rolled-back member is replaced in time`, async (t) => {
    const loop = await running({ size: 3 });
    const up = await upgradeFirst(loop);
    const moved = up.moved!;
    let i = up.i;
    t.ok(moved, `a member is upgraded in place: ${moved}`);
    const id = loop.etcd.members.find((m) => m.name === moved)?.id;
    // Its etcd exits on 3.5.1, and again on 3.5.0 once given it back.
    loop.etcd.up.delete(moved);
    loop.podStatus.set(moved, CRASHING);
    let failedAt: number | undefined;
    let removedAt: number | undefined;
    for (let k = 0; k < 150 && removedAt === undefined; k++, i++) {
      // The clock runs ahead until the failure is recorded, then is right.
      const failed = loop.s().upgradeFailed?.member === moved;
      loop.now = new Date(FIXED_NOW.getTime() + i * 60_000 + (failed ? 0 : ahead * 1000));
      await loop.step();
      if (loop.s().upgradeFailed?.member === moved) failedAt ??= k;
      for (const p of loop.pods()) if (!['e-0', 'e-1', 'e-2'].includes(p)) loop.etcd.up.add(p);
      if (loop.etcd.calls.includes(`remove ${id}`)) removedAt = k;
    }
    t.comment(`failed at minute ${failedAt} (since ${loop.s().upgradeFailed?.since}), removed at ${removedAt}`);
    t.ok(failedAt !== undefined, 'the upgrade failed on it');
    t.ok(
      removedAt !== undefined && failedAt !== undefined && removedAt - failedAt <= 20,
      'replaced within 20 minutes of the failure',
    );
  });
}
