// The author stamp is trusted only on a tool written after the admission policy and its binding were last changed
// (hooks/podbuggertool/author.ts lastWritten): the newest managedFields time of an entry that is not the status
// subresource. A binding changed since it was made (generation above 1) whose managedFields say not when gives no
// such time: no stamp can be dated after the change, none is trusted, and the refusal says why.
import t from 'tap';
import { AUTHOR_POLICY, AuthorCache, AuthorCheck, lastWritten } from '../../hooks/podbuggertool/author.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { FakeApi, POLICY_CREATED, tool } from '../fixtures/pbt.js';

const check = (api: FakeApi) => new AuthorCheck(api, new AuthorCache(() => Date.parse('2026-01-03T00:00:00Z')));

t.test('a binding past generation 1 with no managedFields time trusts no stamp, and says so', async (t) => {
  const api = new FakeApi();
  const binding = api.stored('MutatingAdmissionPolicyBinding', '', AUTHOR_POLICY);
  binding.metadata = { ...binding.metadata, creationTimestamp: POLICY_CREATED, generation: 3 };
  const verdict = await check(api).verify(tool('a', { label: 'app=web', image: 'busybox' }));
  t.match(verdict, { allowed: false, reason: 'AuthorUnverified', message: /managedFields do not say when/ });
  t.equal(api.reviews.length, 0, 'the stamped user is not asked about');
});

t.test('a change of the status subresource only does not date the binding', async (t) => {
  const api = new FakeApi();
  const binding = api.stored('MutatingAdmissionPolicyBinding', '', AUTHOR_POLICY);
  binding.metadata = {
    ...binding.metadata,
    creationTimestamp: POLICY_CREATED,
    generation: 2,
    managedFields: [{ manager: 'x', operation: 'Update', subresource: 'status', time: '2026-01-01T00:00:00Z' }],
  } as KubeObject['metadata'];
  const verdict = await check(api).verify(tool('a', { label: 'app=web', image: 'busybox' }));
  t.match(verdict, { allowed: false, reason: 'AuthorUnverified', message: /managedFields do not say when/ });
});

t.test('lastWritten: the newest time of an entry not of the status subresource', async (t) => {
  const obj = (metadata: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'X', metadata }) as KubeObject;
  t.equal(
    lastWritten(
      obj({
        generation: 2,
        managedFields: [
          { manager: 'a', time: '2026-01-01T00:00:00Z' },
          { manager: 'b', time: '2026-01-02T00:00:00Z' },
          { manager: 'c', subresource: 'status', time: '2026-01-05T00:00:00Z' },
        ],
      }),
    ),
    Date.parse('2026-01-02T00:00:00Z'),
  );
  t.equal(lastWritten(obj({ generation: 1 })), undefined, 'never changed: its creationTimestamp says when');
  t.equal(lastWritten(obj({})), undefined, 'no generation: as made');
  t.equal(lastWritten(obj({ generation: 2, managedFields: [{ time: 'not a time' }] })), null, 'changed, time unknown');
});
