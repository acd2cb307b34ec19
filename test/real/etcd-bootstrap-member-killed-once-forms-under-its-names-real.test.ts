// Real etcd 3.6.9, run by the test kubelet from the member pods' specs. A new cluster's three members start together;
// two of them are slow to come up (their images still pulling, their nodes busy), and meanwhile the first one's etcd
// is killed once (an OOM kill, a container-runtime restart). The kubelet restarts it in place after its back-off
// (restartPolicy Always), and the three would form the cluster. The hook sees the one exit during the back-off and
// starts the bootstrap over under new names (the three pods deleted), counting a failed start of the spec (three of
// which stop the cluster: BootstrapFailed), though nothing failed but one kill.
//
// Must hold: the cluster forms under its first three names, no failed start recorded.
import t from 'tap';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { EtcdKubelet, etcdBin } from '../fixtures/etcd-kubelet.js';

etcdBin();
const status = (res: CompositeSyncResponse) => res.status as any;

t.test('a bootstrap member killed once while its peers start forms the cluster under its name', async (t) => {
  const k = new EtcdKubelet('bootkill', { size: 3, version: '3.6.9' });
  t.teardown(() => k.shutdown());
  await k.step();
  const first = k.livePods().sort();
  t.same(first, ['bootkill-0', 'bootkill-1', 'bootkill-2'], 'the bootstrap starts');
  // Two peers are not up yet; the first member's etcd is killed once.
  await k.stop('bootkill-1');
  await k.stop('bootkill-2');
  await k.crash('bootkill-0');
  const res = await k.step();
  t.notOk(
    status(res).bootstrapFailed,
    `no failed start counted for one kill: ${JSON.stringify(status(res).bootstrapFailed)}`,
  );
  // The peers come up.
  k.restart('bootkill-1');
  k.restart('bootkill-2');
  await k.converge('formed', (r) => status(r).phase === 'Running' || status(r).reason === 'BootstrapFailed', 60_000);
  t.same(k.livePods().sort(), first, 'the cluster formed under its first names');
  t.notOk(status(await k.step()).bootstrapFailed, 'no failed start recorded');
});
