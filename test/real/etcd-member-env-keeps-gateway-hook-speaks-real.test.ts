// Real etcd 3.6.9, run by the test kubelet from the member pods' specs (spec.pod.etcdEnv reaches etcd's environment).
// The hooks speak to members only through etcd's HTTP/JSON gateway on the client port (hooks/etcdcommon/etcd.ts:
// member list, add, remove, health, version; the backup's snapshot). etcd's `--enable-grpc-gateway` is on by
// default and the hook's command does not set it, so spec.pod.etcdEnv ETCD_ENABLE_GRPC_GATEWAY=false (a hardening
// knob: gRPC clients such as Kubernetes need no gateway) is accepted: the members start and serve their gRPC clients,
// every call of the hook is answered 404, and the cluster is never seen as members: no member list, no replacement of
// a lost member, no upgrade, no backup, for good.
//
// Must hold: a spec whose etcdEnv takes away what the hook speaks to the members with is refused (InvalidSpec, no
// member made), or the cluster it makes is seen and run as any other: its members listed and Ready.
import t from 'tap';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { EtcdKubelet, etcdBin } from '../fixtures/etcd-kubelet.js';

etcdBin();

const status = (res: CompositeSyncResponse) => res.status as any;
const ready = (res: CompositeSyncResponse) => status(res).conditions.find((c: any) => c.type === 'Ready');

t.test('etcdEnv ETCD_ENABLE_GRPC_GATEWAY=false: refused, or the members are seen and run', async (t) => {
  const k = new EtcdKubelet('gwoff', {
    size: 3,
    version: '3.6.9',
    pod: { etcdEnv: [{ name: 'ETCD_ENABLE_GRPC_GATEWAY', value: 'false' }] },
  });
  t.teardown(() => k.shutdown());
  let res = await k.step();
  if (ready(res)?.reason === 'InvalidSpec') {
    t.same(
      res.children.filter((c) => c.kind === 'Pod'),
      [],
      'refused, no member made',
    );
    return;
  }
  const start = Date.now();
  while (Date.now() - start < 60_000) {
    res = await k.step();
    if (status(res).members?.ready?.length === 3) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  t.comment(
    `after ${((Date.now() - start) / 1000).toFixed(0)} s: pods ${k.livePods().join(', ')}, etcd restarts ${k
      .livePods()
      .map((p) => `${p}=${k.restartCount(p)}`)
      .join(' ')} (their etcd runs)`,
  );
  t.comment(`status ${JSON.stringify({ phase: status(res).phase, members: status(res).members, ready: ready(res) })}`);
  t.equal(status(res).members?.ready?.length, 3, 'three members seen serving');
  t.equal(status(res).memberList?.length, 3, 'and listed');
});
