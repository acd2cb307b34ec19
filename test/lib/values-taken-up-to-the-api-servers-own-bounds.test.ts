// What metaops copies into children is refused only where the API server would refuse it, and taken up to its bounds,
// both ends included: a user or group ID from 0 to 2147483647 (math.MaxInt32: lib/values.ts podSecurityContextProblem),
// a preferred scheduling term's weight from 1 to 100 (affinityProblem), a Service name (a parent's name and its
// suffix) of 63 characters at most (lib/names.ts dns1035Problem). A bound moved by one would refuse a spec the
// cluster takes, or pass one it refuses (every sync then fails when Metacontroller applies the child).
import t from 'tap';
import { dns1035Problem } from '../../lib/names.js';
import { affinityProblem, podSecurityContextProblem } from '../../lib/values.js';

const MAX_ID = 2147483647;

t.test('user and group IDs taken from 0 to 2147483647, both ends included', async (t) => {
  for (const id of ['runAsUser', 'runAsGroup', 'fsGroup']) {
    for (const v of [0, 1, MAX_ID])
      t.equal(podSecurityContextProblem('spec.pod', { [id]: v }), undefined, `${id} ${v}`);
    for (const v of [-1, MAX_ID + 1])
      t.match(
        podSecurityContextProblem('spec.pod', { [id]: v }),
        `must be an integer from 0 to ${MAX_ID}`,
        `${id} ${v}`,
      );
  }
  t.equal(podSecurityContextProblem('spec.pod', { supplementalGroups: [0, MAX_ID] }), undefined, 'supplementalGroups');
  t.match(podSecurityContextProblem('spec.pod', { supplementalGroups: [MAX_ID + 1] }), `from 0 to ${MAX_ID}`);
});

t.test("a preferred node term's weight taken from 1 to 100, both ends included", async (t) => {
  const affinity = (weight: unknown) => ({
    nodeAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        { weight, preference: { matchExpressions: [{ key: 'disktype', operator: 'In', values: ['ssd'] }] } },
      ],
    },
  });
  for (const w of [1, 50, 100]) t.equal(affinityProblem('spec.affinity', affinity(w)), undefined, `weight ${w}`);
  for (const w of [0, 101, -1, 1.5])
    t.match(affinityProblem('spec.affinity', affinity(w)), 'must be an integer from 1 to 100', `weight ${w}`);
});

t.test('a Service name of 63 characters taken, of 64 refused', async (t) => {
  t.equal(dns1035Problem('a'.repeat(53), '-memcached'), undefined, '53 + 10 characters');
  t.match(dns1035Problem('a'.repeat(54), '-memcached'), 'must be at most 63 characters', '54 + 10 characters');
  t.equal(dns1035Problem('a'.repeat(63)), undefined, '63 characters, no suffix');
  t.match(dns1035Problem('a'.repeat(64)), 'is too long');
});
