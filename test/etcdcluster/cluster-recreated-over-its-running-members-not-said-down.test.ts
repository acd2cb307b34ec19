// An EtcdCluster deleted with `--cascade=orphan` (a move between Helm releases or GitOps apps, a field changed that
// a tool can only replace) and applied again under the same name: its member pods (and claims) keep running and
// serving, and Metacontroller adopts them into the new object (same selector labels, no controller left). The new
// object has another UID, so the members' etcd (bootstrapped with the old UID as its cluster token) is not "this
// cluster's" (identity.ts): nothing is read or changed through it (Synced=False ForeignMember), which is safe. But
// Available and Ready say `QuorumLost`, "etcd does not answer: 3 of 3 members down", for as long as it lasts, while
// every member serves its clients: issue 30 asks that Available tell the truth, and a reader told the quorum is
// lost for good restores a backup over a cluster that serves (the restore drops its members).
//
// Must hold: while every adopted member serves, the status does not say the members are down or the quorum lost;
// nothing is removed, added or deleted. Each answer fed back as the next observed state.
import t from 'tap';
import { PVC, running } from '../fixtures/etcd-loop.js';

for (const storage of [false, true])
  t.test(
    `an EtcdCluster recreated over its running members (${storage ? 'with' : 'without'} storage) does not say them down`,
    async (t) => {
      const loop = await running(storage ? { size: 3, pod: { persistentVolumeClaimSpec: PVC } } : { size: 3 });
      // Deleted with --cascade=orphan and applied again: a new UID, no status; the pods (and claims) adopted.
      loop.uid = 'uid-e-applied-again';
      loop.status = undefined;
      for (let i = 0; i < 4; i++) await loop.step();
      t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'every member pod kept');
      t.same(loop.etcd.calls, [], 'no membership change');
      const available = (loop.s().conditions as any[]).find((c) => c.type === 'Available');
      t.notMatch(
        `${available?.reason}: ${available?.message}`,
        /QuorumLost|members down/,
        `every member serves; Available says ${available?.reason}: ${available?.message}`,
      );
      t.equal(available?.status, 'Unknown', 'their quorum is not known to this EtcdCluster');
      t.equal(available?.reason, 'ForeignMember', 'Available says what is true: the members answer as another cluster');
    },
  );
