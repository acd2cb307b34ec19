// The author stamp is trusted only while the admission policy and its binding are at metadata.generation 1 (their
// specs never changed since the API server made them): a change in place may have left tools unstamped for a while,
// and nothing on the object dates it (managedFields are not a change log: a narrowing put back by removing what it
// added leaves only the creation's entry, test/podbuggertool/author-stamp-not-trusted-after-a-narrowing-removed.test.ts).
// A policy or binding past generation 1 trusts no stamp, whatever its managedFields say, and the refusal names it and
// says what to do (delete both and create them again); made again, a tool created after them is trusted again.
// (lastWritten, the newest managedFields time of an entry not of the status subresource, still dates a policy at
// generation 1 whose metadata was written after its creation.)
import t from 'tap';
import { AUTHOR_POLICY, lastWritten } from '../../hooks/podbuggertool/author.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { FakeApi, tool } from '../fixtures/pbt.js';
import { bindingChanged, check, unverified } from '../fixtures/pbt-author.js';

t.test('a binding past generation 1 with no managedFields time trusts no stamp, and says so', async (t) => {
  const api = new FakeApi();
  bindingChanged(api, { generation: 3 });
  await unverified(t, api, 'not trusted, and says so', {
    message:
      /changed in place since it was made \(its MutatingAdmissionPolicyBinding metaops-podbuggertool-author is at generation 3, not 1\)/,
  });
});

t.test('a change of the status subresource only does not date the binding', async (t) => {
  const api = new FakeApi();
  bindingChanged(api, {
    generation: 2,
    managedFields: [{ manager: 'x', operation: 'Update', subresource: 'status', time: '2026-01-01T00:00:00Z' }],
  });
  const verdict = await check(api).verify(tool('a', { label: 'app=web', image: 'busybox' }));
  t.match(verdict, { allowed: false, reason: 'AuthorUnverified', message: /is at generation 2, not 1/ });
});

t.test(
  'a policy changed in place trusts no stamp, though its managedFields date the change before the tool',
  async (t) => {
    const api = new FakeApi();
    // Created 2026-01-01, changed (and put back) by 2026-01-01 at noon: generation 3. The tool was written a day later.
    const policy = api.stored('MutatingAdmissionPolicy', '', AUTHOR_POLICY);
    policy.metadata = {
      ...policy.metadata,
      generation: 3,
      managedFields: [{ manager: 'kubectl-edit', operation: 'Update', time: '2026-01-01T12:00:00Z' }],
    } as KubeObject['metadata'];
    const verdict = await check(api).verify(tool('a', { label: 'app=web', image: 'busybox' }));
    t.match(verdict, { allowed: false, reason: 'AuthorUnverified' }, 'not trusted');
    const message = (verdict as { message: string }).message;
    t.match(message, /its MutatingAdmissionPolicy metaops-podbuggertool-author is at generation 3, not 1/, 'names it');
    t.notMatch(message, /MutatingAdmissionPolicyBinding metaops-podbuggertool-author is at/, 'not the binding');
    t.match(
      message,
      /delete the MutatingAdmissionPolicy and the MutatingAdmissionPolicyBinding metaops-podbuggertool-author and create them again from manifests\/admission\//,
      'says what to do',
    );
    t.equal(api.reviews.length, 0, 'the stamped user is not asked about');
    // Both changed: both named.
    api.stored('MutatingAdmissionPolicyBinding', '', AUTHOR_POLICY).metadata.generation = 2;
    t.match(
      (await check(api).verify(tool('a', { label: 'app=web', image: 'busybox' }))) as { message: string },
      {
        message:
          /its MutatingAdmissionPolicy metaops-podbuggertool-author is at generation 3 and MutatingAdmissionPolicyBinding metaops-podbuggertool-author is at generation 2, not 1/,
      },
      'both named',
    );
  },
);

t.test('a policy or binding without a generation (none the API server stores) trusts no stamp', async (t) => {
  for (const kind of ['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding']) {
    const api = new FakeApi();
    delete api.stored(kind, '', AUTHOR_POLICY).metadata.generation;
    t.match(
      await check(api).verify(tool('a', { label: 'app=web', image: 'busybox' })),
      { allowed: false, reason: 'AuthorUnverified', message: new RegExp(`its ${kind} \\S+ is without a generation`) },
      kind,
    );
  }
});

t.test(
  'deleted and created again (generation 1): a tool written after it is trusted again, one before is not',
  async (t) => {
    const api = new FakeApi();
    // The binding changed in place (generation 3), then deleted and created again on 2026-01-03 at noon.
    api.remove('MutatingAdmissionPolicyBinding', '', AUTHOR_POLICY);
    api.put({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingAdmissionPolicyBinding',
      metadata: { name: AUTHOR_POLICY, creationTimestamp: '2026-01-03T12:00:00Z', generation: 1 },
      spec: { policyName: AUTHOR_POLICY },
    });
    const before = tool('a', { label: 'app=web', image: 'busybox' });
    t.match(await check(api).verify(before), { allowed: false, message: /was created before the admission policy/ });
    const after = tool('b', { label: 'app=web', image: 'busybox' });
    after.metadata.creationTimestamp = '2026-01-03T12:01:00Z';
    t.same(await check(api).verify(after), { allowed: true, author: 'alice' }, 'written after it was made again');
  },
);

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
