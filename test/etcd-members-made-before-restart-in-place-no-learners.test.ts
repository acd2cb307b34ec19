// Issue 30.1 for the clusters users already run, on etcd before 3.4 (the seeds' generation: etcd-operator's examples
// run 3.2.13). Member pods made before restart in place (restartPolicy Never) are moved to it without storage by a
// remove + add. Before 3.4 there are no learners, and the hook refuses to grow a one-member cluster
// (ScaleUpRefused: "a second member added to a one-member cluster stops it if it never starts"). A two-member
// cluster is moved all the same: one member removed, and the cluster left for good with one member of the two its
// spec asks for, telling the user to upgrade or restore; a change the hook made, not one the user asked for.
// Each answer fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import type { CompositeSyncResponse } from '../lib/metacontroller.js';
import { running } from './fixtures/etcd-loop.js';
import { FIXED_NOW } from './fixtures/requests.js';

const condition = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);

t.test(
  'a two-member cluster on etcd 3.3 made before restart in place is never shrunk to a size the hook will not grow back',
  async (t) => {
    const loop = await running({ size: 2, version: '3.3.25' });
    loop.etcd.clusterVersion = '3.3.0';
    loop.etcd.version = '3.3.25';
    await loop.step();
    // The pods as the version before made them.
    for (const p of loop.children.filter((c) => c.kind === 'Pod')) (p as any).spec.restartPolicy = 'Never';
    for (let s = 0; s < 3 * 3600; s += 60) {
      loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
      for (const p of loop.pods()) loop.etcd.up.add(p); // a new member's pod starts within the minute
      await loop.step();
    }
    t.equal(loop.etcd.members.length, 2, `two members, as the spec asks (calls: ${loop.etcd.calls.join(', ')})`);
    t.equal(loop.pods().length, 2, `two member pods (${loop.pods().join(', ')})`);
    t.notMatch(condition(loop.last, 'Scaling') ?? {}, { reason: 'ScaleUpRefused' }, 'no growth refused');
  },
);
