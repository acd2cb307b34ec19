// Member pods carry no ServiceAccount token from now on (automountServiceAccountToken: false, issue 29), but a pod's
// spec cannot change in place: members made by an earlier metaops (with the token) must be answered as they were
// made, never rolled or refused for it; only new members go without the token.
import t from 'tap';
import { scaledFromMembersMadeBefore } from '../fixtures/etcd.js';

t.test('running members made with a token are answered as made; a new member carries none', async (t) => {
  const { made, answered, added } = scaledFromMembersMadeBefore((p) => delete p.spec.automountServiceAccountToken);
  for (const i of [0, 1, 2]) {
    const { status: _s, ...expected } = made(i) as any;
    t.same(answered.get(`e-${i}`)?.['spec'], expected.spec, `e-${i}: its pod spec as it was made (no roll)`);
  }
  t.ok(added, 'a member is added');
  t.equal((added!['spec'] as any).automountServiceAccountToken, false, 'the new one carries no token');
});
