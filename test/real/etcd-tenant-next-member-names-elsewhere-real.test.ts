// Issue 29.1 on two real etcd clusters, with tenant A's cluster running real members of its own: A's member names
// not yet given out (the ordinals a scale-up gives next) resolve to tenant B's members, as a Service or
// EndpointSlice of A's namespace made beforehand would make them. A's own etcd proves itself; what A's new names
// answer is B's. Scaling A up and down must change nothing of B, and A's status must name nothing of B.
import t from 'tap';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { EtcdKubelet, etcdBin } from '../fixtures/etcd-kubelet.js';
import { allReady, status } from '../fixtures/etcd-status.js';

etcdBin();

t.test("a running cluster's next member names resolving to another tenant's etcd change nothing there", async (t) => {
  const b = new EtcdKubelet('w', { size: 3, version: '3.6.9' }, 'tb', { uid: 'uid-tb-w' });
  t.teardown(() => b.shutdown());
  await b.converge('B: size 3', allReady(3));
  for (let i = 0; i < 10; i++) await b.put(`b-key-${i}`, `b-value-${i}`);
  await new Promise((r) => setTimeout(r, 6000));
  const bStatus = status(await b.step());
  const bIds: string[] = bStatus.memberList.map((m: any) => m.id);
  const bMembers = async () =>
    Promise.all(
      b
        .livePods()
        .map(async (p) =>
          (await b.client.memberList([`http://${p}.w.tb.svc:2379`]).catch(() => ({ members: [] }))).members
            .map((m) => `${m.id} ${m.isLearner ? 'learner' : 'voter'} ${m.peerURLs[0]}`)
            .sort(),
        ),
    );
  const before = await bMembers();
  t.equal(before.length, 3);

  const a = new EtcdKubelet('w', { size: 3, version: '3.6.9' }, 'ta', { uid: 'uid-ta-w' });
  t.teardown(() => a.shutdown());
  // A's ordinals 3 and up (not made yet) resolve to B's members.
  for (let i = 3; i < 12; i++) {
    const ip = b.members.get(`w-${i % 3}`)!.ip;
    for (const host of [`w-${i}.w.ta.svc`, `w-${i}.w.ta.svc.cluster.local`]) a.alias(host, ip);
  }
  await a.converge('A: size 3', allReady(3));
  const aIds: string[] = status(await a.step()).memberList.map((m: any) => m.id);
  t.comment(`A ${aIds.join(', ')}; B ${bIds.join(', ')} cluster ${bStatus.clusterID}`);

  const check = async (what: string, res: CompositeSyncResponse) => {
    t.same(await bMembers(), before, `${what}: B's members as they were`);
    const text = JSON.stringify(status(res));
    t.notOk(
      bIds.some((id) => text.includes(id)) || text.includes(bStatus.clusterID),
      `${what}: none of B's member IDs, nor B's cluster ID, in A's status`,
    );
  };
  const reasons = new Set<string>();
  for (const size of [5, 4, 3, 1, 5]) {
    a.setSpec({ size, version: '3.6.9' });
    for (let i = 0; i < 6; i++) {
      const res = await a.step();
      await check(`A size ${size}, sync ${i + 1}`, res);
      for (const c of status(res).conditions ?? []) if (c.status === 'False') reasons.add(`${c.type}/${c.reason}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  t.comment(`A's conditions seen: ${[...reasons].join(', ')}`);
  t.ok(reasons.has('Synced/ForeignMember'), "A's status said a new member's address answered as another cluster");
  for (let i = 0; i < 10; i++) t.equal(await b.get(`b-key-${i}`), `b-value-${i}`);
  const bAfter = status(await b.step());
  t.same(
    bAfter.memberList.map((m: any) => m.id),
    bIds,
  );
  t.equal(bAfter.quorum.ok, true);
});
