// The pods no egress policy of the namespace selects are answered with up to MAX_COMPLEMENT_SELECTORS (4) complement
// policies, one selector each: a namespace policy whose podSelector holds 4 requirements the parent's pods' labels
// leave open has a complement of exactly 4 selectors, answered; one of 5 is more than that, and is doubt (a reason).
import t from 'tap';
import { egressComplement, MAX_COMPLEMENT_SELECTORS } from '../../lib/network-policy.js';

function policy(name: string, keys: string[]) {
  return {
    name,
    policy: {
      metadata: { name },
      spec: { policyTypes: ['Egress'], podSelector: { matchLabels: Object.fromEntries(keys.map((k) => [k, 'on'])) } },
    },
  };
}

const fixed = { app: 'podset' };

t.test('the bound is 4 selectors', async (t) => {
  t.equal(MAX_COMPLEMENT_SELECTORS, 4);
});

t.test('one policy of 4 open requirements: a complement of exactly 4 selectors, answered', async (t) => {
  const terms = egressComplement([policy('four', ['a', 'b', 'c', 'd'])], fixed);
  t.same(terms, [
    [{ key: 'a', operator: 'NotIn', values: ['on'] }],
    [{ key: 'b', operator: 'NotIn', values: ['on'] }],
    [{ key: 'c', operator: 'NotIn', values: ['on'] }],
    [{ key: 'd', operator: 'NotIn', values: ['on'] }],
  ]);
});

t.test('two policies of 2 open requirements each: their product of exactly 4 selectors, answered', async (t) => {
  const terms = egressComplement([policy('ab', ['a', 'b']), policy('cd', ['c', 'd'])], fixed);
  t.ok(Array.isArray(terms), String(terms));
  t.equal((terms as unknown[]).length, 4);
});

t.test('one policy of 5 open requirements: more than 4 selectors, said as the reason', async (t) => {
  t.match(
    egressComplement([policy('five', ['a', 'b', 'c', 'd', 'e'])], fixed),
    /^the pods no egress policy of the namespace selects take more than 4 selectors$/,
  );
});
