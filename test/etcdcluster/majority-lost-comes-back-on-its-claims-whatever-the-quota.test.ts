// A majority of members lost with storage (two of three pods drained at once) comes back on its claims as itself
// (docs/etcd-failures.md), also when the backend quota in spec.pod.etcdEnv was lowered under the data since the members
// were made. The quota hold (quota.ts holdForQuota: no member pod made with a quota at or under the data, lest it raise
// NOSPACE and the cluster refuse every write) would keep the majority's own pods off their claims: the cluster down,
// reads and writes, until someone edits the quota, while Available says "until they return". Without a quorum every
// write is refused already: the pods made again bring the quorum (and reads) back, and NOSPACE then says what the
// quota does. With the quorum kept (one pod lost) the pod stays held (member-pods-held-while-quota-under-data).
import t from 'tap';
import { PVC, running } from '../fixtures/etcd-loop.js';

t.test('two of three pods lost with storage come back on their claims with a quota under the data', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  const health = loop.etcd.health.bind(loop.etcd);
  loop.etcd.health = async (url: string) => {
    const h = await health(url);
    return h.healthy ? { ...h, dbSize: 1_000_000 } : h;
  };
  loop.spec = {
    ...loop.spec,
    pod: { persistentVolumeClaimSpec: PVC, etcdEnv: [{ name: 'ETCD_QUOTA_BACKEND_BYTES', value: '524288' }] },
  };
  await loop.step();
  loop.lose('e-1', 'e-2');
  for (let i = 0; i < 3; i++) {
    loop.now = new Date(loop.now.getTime() + 10_000);
    await loop.step();
  }
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the two made again on their claims: the quorum can come back');
  t.same(loop.etcd.calls, [], 'no membership change');
});
