// An EtcdRestore is a one-off request, as a one-off EtcdBackup is. The docs advise deleting an EtcdRestore once done
// (docs/etcd-failures.md, Known limits); a GitOps tool that keeps the manifest (Argo CD self-heal, Flux), or a
// namespace restore by an object-backup tool that skips the existing EtcdCluster, then makes it again under its name:
// the same spec, another UID, a newer creationTimestamp, no status. The cluster's own status still records that this
// restore (its name and snapshot) was carried out and the members have served since. Never destroy on doubt: the
// replay must not drop the live members and roll the cluster back to the snapshot, losing every write made since
// (as a one-off EtcdBackup recreated under its name is refused rather than written over its own snapshot). Each
// answer fed back as the next observed state, the EtcdRestore hook run after every sync, as Metacontroller runs it.
import t from 'tap';
import { later, membersKept, restoredByR, rMadeAgain } from '../fixtures/restore-steps.js';

for (const [when, created] of [
  ['a minute later (GitOps self-heal after the advised delete)', '2026-07-01T00:01:00Z'],
  ['a day later (a namespace restore of the object backups)', '2026-07-02T00:00:00Z'],
] as const) {
  t.test(
    `an EtcdRestore that restored the cluster, deleted and made again under its name ${when}: not replayed`,
    async (t) => {
      const { loop, r } = await restoredByR();
      t.match(r['status'], { succeeded: true }, 'r restored the cluster');
      t.match(loop.s(), { phase: 'Running', restore: { name: 'r', phase: 'Restored' } });
      const members = loop.pods();
      // Writes are made to the restored cluster; r is deleted as advised and made again under its name.
      const again = rMadeAgain(loop, created);
      loop.check = { succeeded: true };
      await membersKept(t, loop, members, [again], {
        at: (i) => later((i + 1) * 60),
        says: 'the cluster is not rolled back to the snapshot r restored',
      });
    },
  );
}
