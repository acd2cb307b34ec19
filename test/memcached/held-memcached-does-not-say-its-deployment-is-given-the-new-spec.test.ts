// A running Memcached held for a child name another owner holds (here its NetworkPolicy `<name>-memcached`, an admin's,
// met on upgrading to a metaops that answers the policy) changes nothing: its Deployment is answered as observed. Its
// status must then not say the change is under way: scaled from 2 to 3 while held, Progressing must not be
// True/Updating "Deployment cache is given the new spec" (nothing gives it), nor Available count against a size
// nothing is scaling to, with no end: it stays so for as long as the name is held.
import t from 'tap';
import { condition, heldForItsPolicy } from '../fixtures/held-parents.js';

t.test('a held Memcached scaled up does not say its Deployment is given the new spec', async (t) => {
  const res = heldForItsPolicy({ size: 2 }, { size: 3 }, { replicas: 2, readyReplicas: 2, updatedReplicas: 2 });
  t.match(condition(res, 'Ready'), { status: 'False', reason: 'NetworkPolicyNameTaken' }, 'held');
  const deploy = res.children.find((c) => c.kind === 'Deployment') as any;
  t.equal(deploy.spec.replicas, 2, 'the Deployment is kept as observed (2 replicas)');
  t.notMatch(
    condition(res, 'Progressing'),
    { status: 'True', message: /is given the new spec/ },
    `Progressing: ${JSON.stringify(condition(res, 'Progressing'))}`,
  );
});
