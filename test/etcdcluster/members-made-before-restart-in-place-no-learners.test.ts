// Issue 30.1 for the clusters users already run, on etcd before 3.4 (the seeds' generation: etcd-operator's examples
// run 3.2.13). Member pods made before restart in place (restartPolicy Never) are moved to it without storage by a
// remove + add. Before 3.4 there are no learners, and the hook refuses to grow a one-member cluster
// (ScaleUpRefused: "a second member added to a one-member cluster stops it if it never starts"). A two-member
// cluster is moved all the same: one member removed, and the cluster left for good with one member of the two its
// spec asks for, telling the user to upgrade or restore; a change the hook made, not one the user asked for.
// Each answer fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

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

/** A cluster of `size` on etcd `version` whose pods the version before made (restartPolicy Never), run `hours`. */
async function madeBefore(size: number, version: string, hours: number) {
  const loop = await running({ size, version: version.startsWith('3.3') ? '3.3.25' : '3.4.30' });
  loop.etcd.clusterVersion = version;
  loop.etcd.version = version;
  await loop.step();
  for (const p of loop.children.filter((c) => c.kind === 'Pod')) (p as any).spec.restartPolicy = 'Never';
  for (let s = 0; s < hours * 3600; s += 60) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
    for (const p of loop.pods()) loop.etcd.up.add(p);
    await loop.step();
  }
  const policies = loop.children
    .filter((c) => c.kind === 'Pod')
    .map((p: any) => `${p.metadata.name}: ${p.spec.restartPolicy}`);
  return { loop, policies };
}

t.test(
  'on etcd 3.3 a three-member cluster made before restart in place is moved, never below two voters',
  async (t) => {
    const { loop, policies } = await madeBefore(3, '3.3.0', 6);
    t.notOk(
      policies.some((p) => p.endsWith('Never')),
      `every member restarts in place (${policies.join(', ')})`,
    );
    t.equal(loop.etcd.members.length, 3, 'three members, as the spec asks');
    t.notMatch(condition(loop.last, 'Scaling') ?? {}, { reason: 'ScaleUpRefused' }, 'no growth refused');
  },
);

t.test('a two-member cluster left on restartPolicy Never says so, and is moved once it runs etcd 3.4', async (t) => {
  const { loop, policies } = await madeBefore(2, '3.3.0', 1);
  t.ok(
    policies.every((p) => p.endsWith('Never')),
    `kept as they are (${policies.join(', ')})`,
  );
  t.same(loop.etcd.calls, [], 'no membership change');
  t.match(
    condition(loop.last, 'Recovering'),
    { status: 'False', message: /made before restart in place \(restartPolicy Never\)/ },
    'the status says why they stay',
  );
  // Upgraded to 3.4 (learners): the move goes on, and the cluster keeps its two members.
  loop.etcd.clusterVersion = '3.4.0';
  for (let s = 3600; s < 4 * 3600; s += 60) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
    for (const p of loop.pods()) loop.etcd.up.add(p);
    await loop.step();
  }
  const after = loop.children.filter((c) => c.kind === 'Pod').map((p: any) => p.spec.restartPolicy);
  t.same(after, ['Always', 'Always'], 'moved on 3.4');
  t.equal(loop.etcd.members.length, 2);
  t.notMatch(condition(loop.last, 'Recovering') ?? {}, { message: /restartPolicy Never/ }, 'nothing left to say');
});
