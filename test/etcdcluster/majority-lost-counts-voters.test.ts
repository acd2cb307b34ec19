// MajorityLost: "a majority of members lost" must count voting members. While a scale-up's
// learner is still catching up, the learner and one voting member are lost (no storage) and the hook cannot reach
// etcd for a moment: two of the three voters remain, quorum comes back by itself, yet the branch that runs without
// etcd's answer counts the learner as a member and says Failed/MajorityLost ("quorum cannot come back; restore from a
// backup"), steering the user to an EtcdRestore that drops the two members holding the data.
import t from 'tap';
import { running, type Loop } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

/** A running cluster of three scaled to four, one sync every ten seconds until the fourth member's pod, e-3, is made. */
async function scaledToFour(): Promise<Loop> {
  const loop = await running({ size: 3 });
  loop.spec = { ...loop.spec, size: 4 };
  for (let i = 0; i < 3 && !loop.pods().includes('e-3'); i++) {
    loop.now = new Date(FIXED_NOW.getTime() + (i + 1) * 10_000);
    await loop.step();
  }
  return loop;
}

/** The learner e-3 starts (gets its name) and has not caught up yet. */
async function learnerStarts(loop: Loop): Promise<void> {
  loop.etcd.up.add('e-3');
  loop.now = new Date(FIXED_NOW.getTime() + 40_000);
  await loop.step();
}

t.test('a learner and one voter lost, etcd silent: not MajorityLost', async (t) => {
  const loop = await scaledToFour();
  t.ok(loop.pods().includes('e-3'), `a fourth member is being added: ${loop.pods()}`);
  // The learner starts (gets its name) but has not caught up yet.
  await learnerStarts(loop);
  const learner = loop.s().memberList.find((m: any) => m.name === 'e-3');
  t.match(learner, { learner: true }, `e-3 is a learner in status: ${JSON.stringify(learner)}`);
  loop.lose('e-3');
  loop.etcd.up.delete('e-1');
  loop.phase.set('e-1', 'Failed');
  loop.etcd.listError = new Error('context deadline exceeded');
  loop.now = new Date(FIXED_NOW.getTime() + 50_000);
  await loop.step();
  const available = loop.s().conditions.find((c: any) => c.type === 'Available');
  t.comment(`${loop.s().phase}/${loop.s().reason}: ${available.message}`);
  t.not(loop.s().reason, 'MajorityLost', 'two of three voting members remain');
});

t.test('a learner and two of three voters lost, etcd silent: MajorityLost, told as 2 of 3', async (t) => {
  const loop = await scaledToFour();
  await learnerStarts(loop);
  loop.lose('e-3', 'e-2');
  loop.etcd.up.delete('e-1');
  loop.phase.set('e-1', 'Failed');
  loop.etcd.listError = new Error('context deadline exceeded');
  loop.now = new Date(FIXED_NOW.getTime() + 50_000);
  await loop.step();
  const available = loop.s().conditions.find((c: any) => c.type === 'Available');
  t.match(loop.s(), { phase: 'Failed', reason: 'MajorityLost' });
  t.match(available.message, /^2 of 3 members lost/);
});
