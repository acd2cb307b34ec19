// Issue 29.1 on two real etcd clusters: tenant A's EtcdCluster cannot remove, add or read tenant B's members through
// the hook, whatever A's spec says and wherever A's member names resolve. B's cluster `x` (namespace b) runs three
// real members; A's cluster `x` (namespace a, the same name) has pods that are API objects only, and A's member
// names resolve to B's members, as a DNS name that resolves anywhere (spec.pod.clusterDomain) or a Service or
// EndpointSlice of A's namespace pointing at B's pods would make them.
import t from 'tap';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { EtcdKubelet, etcdBin } from '../fixtures/etcd-kubelet.js';
import { allReady, status } from '../fixtures/etcd-status.js';

etcdBin();

t.test("tenant A's EtcdCluster cannot remove, add or read tenant B's members (two real etcd clusters)", async (t) => {
  const b = new EtcdKubelet('x', { size: 3, version: '3.6.9' }, 'b', { uid: 'uid-b-x' });
  t.teardown(() => b.shutdown());
  await b.converge('B: size 3', allReady(3));
  for (let i = 0; i < 20; i++) await b.put(`b-key-${i}`, `b-value-${i}`);
  // etcd refuses membership changes until every member has been connected for 5 s (its strict reconfig check):
  // past that, a change that reached B would be made.
  await new Promise((r) => setTimeout(r, 6000));
  const bStatus = status(await b.step());
  const bIds: string[] = bStatus.memberList.map((m: any) => m.id);
  // B's membership as each of B's members reports it (a member removed would still report its old view).
  const bMembers = async () =>
    Promise.all(
      b
        .livePods()
        .map(async (p) =>
          (await b.client.memberList([`http://${p}.x.b.svc:2379`]).catch(() => ({ members: [] }))).members
            .map((m) => `${m.id} ${m.isLearner ? 'learner' : 'voter'} ${m.peerURLs[0]}`)
            .sort(),
        ),
    );
  const before = await bMembers();
  t.equal(before.length, 3);
  t.ok(
    before.every((list) => list.length === 3),
    'every member of B lists three voters',
  );
  t.comment(`B's members ${bIds.join(', ')}, cluster ${bStatus.clusterID}`);

  const a = new EtcdKubelet('x', { size: 3, version: '3.6.9' }, 'a', { uid: 'uid-a-x', run: false });
  // Every name A's members could be dialled at resolves to B's members.
  for (let i = 0; i < 12; i++) {
    const ip = b.members.get(`x-${i % 3}`)!.ip;
    for (const host of [`x-${i}.x.a.svc`, `x-${i}.x.a.svc.cluster.local`, `x-${i}.x.a.svc.wild.test`])
      a.alias(host, ip);
  }
  const check = async (what: string, res: CompositeSyncResponse) => {
    t.same(await bMembers(), before, `${what}: B's members as they were (none removed, no learner added)`);
    const text = JSON.stringify(status(res));
    t.notOk(
      bIds.some((id) => text.includes(id)) || text.includes(bStatus.clusterID),
      `${what}: none of B's member IDs, nor B's cluster ID, in A's status`,
    );
  };
  // 1. The attack: a domain that resolves anywhere, and A's sizes that would remove and add members.
  for (const size of [3, 1, 5]) {
    a.setSpec({ size, version: '3.6.9', pod: { clusterDomain: 'wild.test' } });
    for (let i = 0; i < 4; i++) {
      const res = await a.step();
      await check(`clusterDomain wild.test, size ${size}, sync ${i + 1}`, res);
    }
  }
  const refused = status(await a.step()).conditions.find((c: any) => c.type === 'Synced');
  t.match(refused, { status: 'False', reason: 'ClusterDomainNotAllowed' });
  // 2. A's own in-cluster names, pointed at B's members (the server's domain is dialled: they resolve to B).
  for (const size of [3, 1, 5]) {
    a.setSpec({ size, version: '3.6.9' });
    for (let i = 0; i < 4; i++) {
      const res = await a.step();
      await check(`A's own names, size ${size}, sync ${i + 1}`, res);
    }
  }
  const last = status(await a.step());
  t.match(
    last.conditions.find((c: any) => c.type === 'Synced'),
    { status: 'False', reason: 'ForeignMember' },
    "A's status says its addresses answered as another cluster",
  );
  t.notOk(last.leader, 'no leader reported');
  // B is whole: every key there, and B's own hook sees its cluster unchanged.
  for (let i = 0; i < 20; i++) t.equal(await b.get(`b-key-${i}`), `b-value-${i}`);
  const bAfter = status(await b.step());
  t.same(
    bAfter.memberList.map((m: any) => m.id),
    bIds,
  );
  t.equal(bAfter.quorum.ok, true);
});
