// Available tells the truth, and QuorumLost is not said forever: a cluster of three without
// storage loses one member's pod (its node gone): the hook removes that member and adds its replacement as a
// learner. Before the learner is promoted (it catches up; up to 10 minutes before it is cancelled), a second member's
// pod is lost the same way (a second node of a failing rack or zone). etcd now has two voters, one of them gone for
// good with its emptyDir, and a learner, which does not vote: the quorum can never come back. The hook counts the
// learner as a member ("2 of 3 members down (e-1, e-3)"), says QuorumLost, "no membership change until a quorum is
// back", for as long as one looks, and never names the loss for good nor the way out (an EtcdRestore, or delete and
// recreate), as it does for a majority of voters lost without storage (docs/etcd-failures.md: "A majority of member
// pods ... deleted, no storage | Failed / MajorityLost naming each lost member and how, and the way out").
// Each answer fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { EtcdError } from '../../hooks/etcdcommon/etcd.js';
import { running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test(
  'a voter lost for good while the replacement of another is a learner: MajorityLost, the way out said',
  async (t) => {
    const loop = await running({ size: 3, version: '3.5.0' });
    loop.lose('e-0');
    for (let i = 1; i <= 5 && !loop.etcd.members.some((m) => m.isLearner); i++) {
      loop.now = new Date(FIXED_NOW.getTime() + i * 30_000);
      for (const p of loop.pods()) loop.etcd.up.add(p);
      await loop.step();
    }
    t.same(
      loop.etcd.members.map((m) => (m.isLearner ? 'learner' : m.name)),
      ['e-1', 'e-2', 'learner'],
      'e-0 removed, its replacement e-3 added as a learner',
    );
    // e-1's pod is lost too (no storage: its data with it). Voters e-1 (gone) and e-2: no quorum, for good; the learner
    // e-3 runs and does not vote.
    loop.lose('e-1');
    loop.etcd.listError = new EtcdError('etcdserver: request timed out', 'Unreachable');
    let last: any;
    for (let i = 10; i <= 40; i++) {
      loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
      last = (await loop.step()).status;
    }
    const available = last.conditions.find((c: any) => c.type === 'Available');
    t.comment(`after 30 minutes: phase ${last.phase}, Available ${available.reason}: ${available.message}`);
    t.match(
      available,
      { status: 'False', reason: 'MajorityLost', message: /e-1/ },
      'the loss said for good, naming e-1',
    );
    t.equal(last.phase, 'Failed');
    t.match(
      last.quorum,
      { members: 2, healthy: 1, needed: 2, ok: false, down: ['e-1'] },
      'the learner counted in no quorum',
    );
  },
);
