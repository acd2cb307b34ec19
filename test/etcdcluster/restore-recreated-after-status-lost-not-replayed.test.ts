// An EtcdRestore r restored the cluster, its members serve and take writes; r is deleted as advised. Then the
// EtcdCluster's status is lost and r is made again under its name with its snapshot (a namespace restored from a
// Kubernetes backup: the EtcdCluster without status, the EtcdRestore a new object). The members serving carry r's
// restore (their restore steps, their restore's name), so r was carried out already: a replay would drop them and
// roll the cluster back over every write since.
import t from 'tap';
import { later, membersKept, restoredByR, rMadeAgain } from '../fixtures/restore-steps.js';

t.test('an EtcdRestore made again under its name after the cluster status is lost: not replayed', async (t) => {
  const { loop, r } = await restoredByR();
  t.match(r['status'], { succeeded: true }, 'r restored the cluster');
  const members = loop.pods();
  loop.status = undefined;
  const again = rMadeAgain(loop);
  loop.check = { succeeded: true };
  await membersKept(t, loop, members, [again], {
    at: (i) => later((i + 1) * 60),
    says: "the cluster is not rolled back to r's snapshot",
  });
});
