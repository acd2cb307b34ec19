// MajorityLost, "a majority of members lost with their data": with storage, a member's data
// is its claim. When a majority of members lose both pod and claim (a namespace cleanup, `kubectl delete pvc,pod -l
// etcd_cluster=e`, volumes gone with their zone), their data is gone as surely as an emptyDir's: quorum cannot come
// back. plan.ts's lostForGood returns nothing whenever storage is set: the status says QuorumLost "no membership
// change until a quorum is back", and (worse) while etcd does not answer the two members are made again under their
// old names and IDs (initial-cluster-state existing) on NEW, EMPTY claims: "restarting e-1, e-2 on their volumes".
// Two empty members with their old IDs are a raft majority that can elect a leader with an empty log and overwrite
// the survivor's committed data; plan.ts's own rule ("never restarted empty under its old identity", dataGone) is
// applied only when etcd answers. Each answer fed back as the next observed state.
import t from 'tap';
import { PVC, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test('storage: a majority of members lost with pod and claim is MajorityLost, and none restarts empty', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], 'each member has its claim');
  loop.lose('e-1', 'e-2');
  loop.children = loop.children.filter(
    (c) => !(c.kind === 'PersistentVolumeClaim' && ['e-1', 'e-2'].includes(c.metadata.name!)),
  );
  loop.etcd.listError = new Error('etcdserver: request timed out');
  for (let i = 0; i < 3; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + (i + 1) * 3600_000);
    await loop.step();
  }
  const available = loop.s().conditions.find((c: any) => c.type === 'Available');
  t.comment(`${loop.s().phase}/${loop.s().reason}: ${available.message}; pods ${loop.pods()}, claims ${loop.claims()}`);
  t.match(loop.s(), { phase: 'Failed', reason: 'MajorityLost' }, 'told as a loss for good');
  t.notMatch(available.message, /until (a quorum is back|they return)/, 'not told as transient');
  t.same(loop.pods(), ['e-0'], 'no member restarted empty under its old identity');
});

t.test(
  'storage: one member lost with pod and claim while etcd does not answer is not restarted empty as itself',
  async (t) => {
    const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
    loop.lose('e-1');
    loop.children = loop.children.filter((c) => !(c.kind === 'PersistentVolumeClaim' && c.metadata.name === 'e-1'));
    // etcd does not answer the member list for a moment (a leader election, the hook's network).
    loop.etcd.listError = new Error('etcdserver: leader changed');
    loop.now = new Date(FIXED_NOW.getTime() + 60_000);
    await loop.step();
    const remade = loop.children.find((c) => c.kind === 'Pod' && c.metadata.name === 'e-1') as any;
    const args = JSON.stringify(remade?.spec?.containers?.[0] ?? {});
    t.notOk(
      remade && /initial-cluster-state[= ]existing/.test(args),
      `e-1 is not remade as the existing member on an empty claim (${loop.pods()}, claims ${loop.claims()})`,
    );
  },
);
