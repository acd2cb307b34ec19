// An EtcdRestore r restored the cluster, its members serve and take writes; r is deleted as advised. Then the
// EtcdCluster's status is lost and r is made again under its name with its snapshot (a namespace restored from a
// Kubernetes backup: the EtcdCluster without status, the EtcdRestore a new object). The members serving carry r's
// restore (their restore steps, their restore's name), so r was carried out already: a replay would drop them and
// roll the cluster back over every write since.
import t from 'tap';
import { FIXED_NOW } from '../fixtures/requests.js';
import { restoredByR, rMadeAgain, syncAll } from '../fixtures/restore-steps.js';

t.test('an EtcdRestore made again under its name after the cluster status is lost: not replayed', async (t) => {
  const { loop, r } = await restoredByR();
  t.match(r['status'], { succeeded: true }, 'r restored the cluster');
  const members = loop.pods();
  loop.status = undefined;
  const again = rMadeAgain(loop);
  loop.check = { succeeded: true };
  for (let i = 0; i < 4; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + (i + 1) * 60_000);
    await syncAll(loop, [again]);
    t.same(loop.pods(), members, `sync ${i + 1}: the live members are kept`);
    t.notMatch(
      loop.s().restore?.phase ?? '',
      /^(Replacing|Restoring)$/,
      `sync ${i + 1}: the cluster is not rolled back to r's snapshot`,
    );
  }
});
