// Real etcd (3.5.21), run by the test kubelet from the member pods' specs: a cluster created with 3 members and
// scaled down to 1 keeps the etcd cluster ID of its bootstrap (etcd never changes it). Its EtcdCluster status is then
// lost (an object restored from a backup of Kubernetes objects): the hook looks for its own cluster ID only among
// bootstraps of ordinals up to the highest it sees (e-0 alone), takes its own healthy etcd for another cluster's
// (ForeignMember) and reports QuorumLost for as long as the cluster lives, nothing managed again.
// The fast twin: test/etcdcluster/scaled-down-status-lost-knows-its-etcd.test.ts.
import t from 'tap';
import { call } from '../../lib/http.js';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { EtcdKubelet, etcdBin } from '../fixtures/etcd-kubelet.js';
import { condition, status } from '../fixtures/etcd-status.js';

etcdBin();

const settled = (size: number) => (res: CompositeSyncResponse) => {
  const s = status(res);
  return (
    s.members.ready.length === size && s.members.unready.length === 0 && condition(res, 'Scaling')?.status === 'False'
  );
};

t.test('real etcd: a cluster scaled down from 3 to 1, its status lost, is still taken as itself', async (t) => {
  const k = new EtcdKubelet('shrunk', { size: 3, version: '3.5.21' });
  t.teardown(() => k.shutdown());
  await k.converge('size 3', settled(3));
  await k.put('precious', 'data');
  const id = k.status!['clusterID'];
  // Leadership moved to shrunk-0, so that the scale-down (which keeps the leader) leaves shrunk-0: the outcome does
  // not depend on which member etcd elected.
  const list = (k.status!['memberList'] as any[]) ?? [];
  const leader = list.find((m) => m.leader)!.name;
  const target = list.find((m) => m.name === 'shrunk-0')!.id;
  if (leader !== 'shrunk-0') {
    const res = await call(new URL(k.endpoint(leader) + '/v3/maintenance/transfer-leadership'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ targetID: target }),
      timeoutMs: 5000,
      timeoutError: () => new Error('timed out'),
    });
    t.equal(res.status, 200, `leadership moved from ${leader} to shrunk-0: ${res.body}`);
  }
  await k.converge('leader shrunk-0', (res) => status(res).memberList.find((m: any) => m.leader)?.name === 'shrunk-0');
  k.setSpec({ ...k.spec, size: 1 });
  await k.converge('size 1', settled(1));
  t.equal(await k.get('precious'), 'data');
  t.comment('left: ' + k.livePods().join(','));
  t.equal(k.status!['clusterID'], id, 'the same etcd cluster ID after the scale-down');
  // The status is lost; the pod and etcd are as they were.
  k.status = undefined;
  let res!: CompositeSyncResponse;
  for (let i = 0; i < 3; i++) {
    res = await k.step();
    await new Promise((r) => setTimeout(r, 300));
  }
  t.equal(await k.get('precious'), 'data', 'etcd serves, every key there');
  t.match(condition(res, 'Available'), { status: 'True' }, 'the healthy cluster is reported available');
  t.notMatch(
    condition(res, 'Synced') ?? {},
    { reason: 'ForeignMember' },
    'its own member is not taken for another cluster',
  );
  t.equal(status(res).clusterID, id, 'its cluster ID recognised');
});
