// A MySQLCluster's StatefulSet made before podManagementPolicy Parallel (docs/mysqlcluster.md) makes its members one at
// a time (OrderedReady): member k+1 is not even asked for until member k is Ready, and a new replica is Ready only once it has cloned the primary's data. A clone of a large
// database takes longer than PROGRESS_DEADLINE_SECONDS (600 s: ~60 GB at 100 MB/s), and a new member that crash-loops
// is never Ready. In both cases the next member's creation was never tried, yet past the deadline the status says
// Ready=False and Progressing=False ProgressDeadlineExceeded "creating the others fails (Pod Security admission, a
// quota, an object too large); kubectl get events and Metacontroller's log say why": no event and no log says
// anything of the kind. The member the StatefulSet waits for (my-mysql-mysql-1, not Ready) is never named. With
// Parallel (every cluster made since), the missing member was asked for: its creation may be blamed, and the member
// not Ready is named beside it.
import t from 'tap';
import { runningMember, scaledUpPastTheDeadline } from '../fixtures/mysql-scale-up.js';

// The StatefulSet as its controller reports it: members 0 and 1 made, 1 Ready; member 2 waits (OrderedReady). Member
// 1 is cloning: its server up and its replication sidecar not Ready (copying the primary).
const scaledUp = (ordered: boolean) =>
  scaledUpPastTheDeadline({
    from: 1,
    ordered,
    pods: (uid) => [runningMember(0, uid, false), runningMember(1, uid, true, true)],
  });

t.test(
  'scaled 1 -> 3 (OrderedReady), member 1 cloning for 15 minutes: member 2 never asked for, and not blamed',
  async (t) => {
    const said = scaledUp(true);
    for (const type of ['Ready', 'Progressing'])
      t.notMatch(
        said(type).message,
        /creating the others fails|Pod Security admission|a quota/,
        `${type} does not blame the creation of a member never asked for: ${said(type).reason}: ${said(type).message}`,
      );
    t.match(
      `${said('Progressing').message} ${said('Ready').message}`,
      /my-mysql-mysql-1/,
      'names the member the StatefulSet waits for',
    );
  },
);

t.test('scaled 1 -> 3 (Parallel), member 1 cloning for 15 minutes: the member not Ready is named', async (t) => {
  const said = scaledUp(false);
  t.match(said('Progressing'), { status: 'False', reason: 'ProgressDeadlineExceeded' }, 'past the deadline');
  t.match(said('Progressing').message, /my-mysql-mysql-1 is not Ready/, 'names the member not Ready');
});
