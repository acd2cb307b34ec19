// A MySQLCluster whose StatefulSet was made before podManagementPolicy Parallel (OrderedReady, docs/mysqlcluster.md)
// makes its members one at a time: member k+1 only once member k is Ready, and none while a member is being deleted.
// Scaled 2 -> 3 while member 1's pod is stuck Terminating (its node lost), member 2 is never asked for; past the
// progress deadline the status must name the stuck member and not blame a creation nobody tried ("creating the others
// fails (Pod Security admission, a quota ...)"). With Parallel the missing member was asked for: its creation may be
// blamed beside the stuck one.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { runningMember, scaledUpPastTheDeadline } from '../fixtures/mysql-scale-up.js';
import { FIXED_NOW } from '../fixtures/requests.js';

/** Member `i`: Ready, or (`stuck`) not Ready and being deleted. */
function member(i: number, stsUid: string, stuck: boolean): KubeObject {
  const pod = runningMember(i, stsUid, stuck);
  if (stuck) pod.metadata.deletionTimestamp = FIXED_NOW.toISOString();
  return pod;
}

// Members 0 and 1 made (the StatefulSet counts the pod being deleted), member 1 stuck Terminating.
const scaledUp = (ordered: boolean) =>
  scaledUpPastTheDeadline({ from: 2, ordered, pods: (uid) => [member(0, uid, false), member(1, uid, true)] });

t.test(
  'scaled 2 -> 3 (OrderedReady) behind member 1 stuck Terminating: the stuck member is named, no creation blamed',
  async (t) => {
    const said = scaledUp(true);
    const p = said('Progressing');
    t.match(p, { status: 'False', reason: 'ProgressDeadlineExceeded' }, 'past the deadline');
    t.notMatch(
      p.message,
      /creating the others fails|Pod Security admission|a quota/,
      `no creation blamed: ${p.message}`,
    );
    t.match(p.message, /my-mysql-mysql-1[^;]*being deleted/, 'names the stuck member');
  },
);

t.test('scaled 2 -> 3 (Parallel) behind member 1 stuck Terminating: the missing member was asked for', async (t) => {
  const said = scaledUp(false);
  const p = said('Progressing');
  t.match(p, { status: 'False', reason: 'ProgressDeadlineExceeded' }, 'past the deadline');
  t.match(p.message, /my-mysql-mysql-1[^;]*being deleted/, 'names the stuck member');
  t.match(p.message, /creating the others fails/, 'the missing member was asked for: its creation may be blamed');
});
