// A running Memcached held for a child name another owner holds (here its NetworkPolicy `<name>-memcached`, an admin's)
// keeps its Deployment as observed: a spec changed while held (size 3 -> 4) is never given to it. Its Deployment runs
// 3/3 of the spec it was given before, so the counts alone look done; the status must not say Progressing=False
// Complete ("all 3 members are up to date and ready") for a spec nothing gives the Deployment: it says the hold.
import t from 'tap';
import { condition, heldForItsPolicy } from '../fixtures/held-parents.js';

const heldWith = (size: number) =>
  heldForItsPolicy({ size: 3 }, { size }, { replicas: 3, readyReplicas: 3, updatedReplicas: 3, availableReplicas: 3 });

t.test('a held Memcached scaled 3 -> 4 with its Deployment running 3/3 does not say Complete', async (t) => {
  const res = heldWith(4);
  t.match(condition(res, 'Ready'), { status: 'False', reason: 'NetworkPolicyNameTaken' }, 'held');
  const deploy = res.children.find((c) => c.kind === 'Deployment') as any;
  t.equal(deploy.spec.replicas, 3, 'the Deployment is kept as observed (3 replicas)');
  const p = condition(res, 'Progressing');
  t.notMatch(p, { reason: 'Complete' }, `Progressing: ${JSON.stringify(p)}`);
  t.match(p, { status: 'False', reason: 'NetworkPolicyNameTaken' }, 'says the hold');
  t.match(p.message, /spec/, `says the spec is not given: ${p.message}`);
});

t.test('a held Memcached whose spec is what its Deployment runs is not told of a change', async (t) => {
  const res = heldWith(3);
  const p = condition(res, 'Progressing');
  t.notMatch(p.message ?? '', /not given|kept as observed/, `Progressing: ${JSON.stringify(p)}`);
});
