// The author stamp (`debug.metaops.dev/author`) is trusted because the admission policy writes it from the request's
// own user on every create, and on every update that changes the spec, of every PodBuggerTool: "no client can set,
// change or remove it" (docs/podbuggertool.md, Who may debug). The hook server checks that the policy and a binding
// to it exist (and when they were made), but not that they still stamp every tool: a binding narrowed to some
// namespaces (`matchResources.namespaceSelector`, as an administrator rolls a policy out, or keeps it off system
// namespaces), or a policy whose own `matchConstraints` are so narrowed, leaves tools the API server never stamps, and
// their annotation is whatever their writer put there. A tenant who may only write PodBuggerTools in such a namespace
// writes the stamp of a user who may debug it, and the hook server adds the container with its own rights:
// pods/exec by proxy, the very thing the check is for.
import t from 'tap';
import { AUTHOR_POLICY } from '../../hooks/podbuggertool/author.js';
import { FakeApi, inject, pod, statusAndApply, tool } from '../fixtures/pbt.js';

/** Alice may debug namespace dbg; mallory, who writes the tool there with alice's stamp, may not. */
function world(): FakeApi {
  const api = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }, 'dbg', 'alice'))
    .put(pod('web-1', { app: 'web' }));
  api.allow = (user) => user === 'alice';
  return api;
}

const readyOf = (res: { status?: Record<string, unknown> | null }) =>
  (res.status!['conditions'] as any[]).find((c) => c.type === 'Ready');

t.test('a stamp in a namespace the policy binding does not cover is not trusted', async (t) => {
  const api = world();
  // The binding applies to the namespaces labelled stamped=true only: dbg is not one of them, so its tools are
  // written as their writers wrote them.
  const binding = api.stored('MutatingAdmissionPolicyBinding', '', AUTHOR_POLICY);
  binding.spec.matchResources = { namespaceSelector: { matchLabels: { stamped: 'true' } } };
  api.put(binding);
  await inject(api, ['dbg', 'web-1']);
  t.same(api.ephemeralNames('dbg', 'web-1'), [], 'nothing added on a stamp no admission wrote');
  const res = await statusAndApply(api, ['dbg', 'a']);
  t.match(readyOf(res), { status: 'False', reason: 'AuthorUnverified' });
});

t.test('a stamp in a namespace the policy itself does not match is not trusted', async (t) => {
  const api = world();
  // The policy matches the namespaces labelled stamped=true only (its own matchConstraints), as shipped otherwise.
  const policy = api.stored('MutatingAdmissionPolicy', '', AUTHOR_POLICY);
  policy.spec = {
    matchConstraints: {
      namespaceSelector: { matchLabels: { stamped: 'true' } },
      resourceRules: [
        {
          apiGroups: ['debug.metaops.dev'],
          apiVersions: ['*'],
          operations: ['CREATE', 'UPDATE'],
          resources: ['podbuggertools'],
        },
      ],
    },
  };
  api.put(policy);
  await inject(api, ['dbg', 'web-1']);
  t.same(api.ephemeralNames('dbg', 'web-1'), [], 'nothing added on a stamp no admission wrote');
  const res = await statusAndApply(api, ['dbg', 'a']);
  t.match(readyOf(res), { status: 'False', reason: 'AuthorUnverified' });
});
