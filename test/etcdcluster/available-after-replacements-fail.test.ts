// `Available` tells the truth about fault tolerance (issue 30.4). A member of three whose etcd keeps exiting (an
// OOM at its memory limit, a bad node) is replaced after the stated limit; its replacements crash too; after 3
// failed additions none is added (ScaleUpFailed) and the cluster runs 2 of the 3 members it asks for, tolerating
// no failure. Available must say so (Degraded, naming the missing member), not "QuorumAvailable, 2 of 2 members
// healthy" as if the cluster were whole. Each answer fed back as the next observed state, two hours of syncs.
import t from 'tap';
import { running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const CRASH = { containerStatuses: [{ name: 'etcd', state: { waiting: { reason: 'CrashLoopBackOff' } } }] };

t.test(
  'a cluster left at 2 of 3 members after its replacements failed: Available says it tolerates no failure',
  async (t) => {
    const loop = await running({ size: 3 });
    for (let minute = 0; minute <= 120; minute++) {
      loop.now = new Date(FIXED_NOW.getTime() + minute * 60_000);
      // e-1 and every member made after it crash at each start.
      for (const name of loop.pods()) {
        if (name === 'e-0' || name === 'e-2') continue;
        loop.etcd.up.delete(name);
        loop.podStatus.set(name, CRASH);
      }
      await loop.step();
    }
    const conditions = loop.s().conditions as any[];
    const available = conditions.find((c) => c.type === 'Available');
    t.comment(`pods ${loop.pods().join(', ')}; ${JSON.stringify(conditions.map((c) => [c.type, c.status, c.reason]))}`);
    t.equal(loop.pods().length, 2, 'two members left (the premise: additions stopped)');
    t.match(
      conditions.find((c) => c.type === 'Scaling'),
      { reason: 'ScaleUpFailed' },
      'the premise: ScaleUpFailed',
    );
    t.equal(available.reason, 'Degraded', `Available is Degraded: ${JSON.stringify(available)}`);
    t.match(
      available.message,
      /0 .*(failure|tolerat)|tolerat.* 0|no (more )?failure/i,
      'and says no failure is tolerated',
    );
  },
);
