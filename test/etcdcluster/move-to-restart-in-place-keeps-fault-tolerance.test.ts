// Issue 30.1 for clusters made before restart in place. Without storage, a member made with restartPolicy Never is
// moved by replacing it; the hook removes it first and adds its replacement after: from the remove until the new
// member is promoted (its snapshot sent, caught up), a three-member cluster runs on two voters that still have
// restartPolicy Never, one failure from losing quorum. One etcd exit there (an OOM kill: the pod Failed, its emptyDir
// gone with it) is then a majority lost for good, on a cluster that tolerated that exit before metaops touched it. With
// learners the replacement can join first (four members tolerate one failure as three do): the move should never
// cost the fault tolerance the cluster had. Each answer fed back as the next observed state.
import t from 'tap';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const condition = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);

t.test('a member moved to restart in place without storage: one etcd exit meanwhile loses no data', async (t) => {
  const loop = await running({ size: 3 });
  // The pods as the version before issue 30 made them.
  for (const p of loop.children.filter((c) => c.kind === 'Pod')) (p as any).spec.restartPolicy = 'Never';
  const before = new Set(loop.pods());
  let res: CompositeSyncResponse | undefined;
  let crashed: string | undefined;
  for (let s = 0; s < 30 && !crashed; s++) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 60_000);
    res = await loop.step();
    // The move has begun once a membership call was made; the new member is still catching up.
    if (loop.etcd.calls.length > 0) {
      // One of the members still on restartPolicy Never exits (an OOM kill): its pod Failed, its emptyDir gone.
      crashed = loop.pods().find((p) => before.has(p) && loop.etcd.members.some((m) => m.name === p))!;
      loop.etcd.up.delete(crashed);
      loop.podStatus.set(crashed, {
        phase: 'Failed',
        containerStatuses: [{ name: 'etcd', state: { terminated: { exitCode: 137, reason: 'OOMKilled' } } }],
      });
    }
  }
  t.ok(crashed, `a member exited during the move (${loop.etcd.calls.join(' ')}): ${crashed}`);
  for (let s = 0; s < 3; s++) res = await loop.step();
  const available = condition(res!, 'Available');
  t.comment(`calls ${loop.etcd.calls.join(' ')}; Available ${JSON.stringify(available)}`);
  t.not(available?.reason, 'MajorityLost', 'one etcd exit during the move is not a majority lost for good');
  t.equal(loop.s().phase, 'Running', 'the cluster keeps running');
});
