// The author stamp is trusted only while the admission policy and its binding are what metaops ships
// (authorPolicyObjects, the manifests' and the chart's source): as the API server stores them (its defaults written
// out) they are; narrowed or changed in any field that decides which tools are stamped, or with what, they are not,
// and the refusal names the fields.
import t from 'tap';
import { FakeApi } from '../fixtures/pbt.js';
import { bindingOf, check, policyOf, stampedTool, unverified } from '../fixtures/pbt-author.js';

const stamped = stampedTool();

t.test('the policy and binding as the API server stores them (its defaults written out) are trusted', async (t) => {
  const api = new FakeApi();
  // What kube-apiserver v1.36 stores for manifests/admission/podbuggertool-author.yaml.
  const mc = policyOf(api).spec.matchConstraints;
  Object.assign(mc, { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} });
  mc.resourceRules[0].scope = '*';
  t.same(await check(api).verify(stamped), { allowed: true, author: 'alice' }, 'defaults written out');
  // A binding whose matchResources selects everything (no selector, no rule) narrows nothing.
  bindingOf(api).spec.matchResources = { namespaceSelector: {}, objectSelector: {}, matchPolicy: 'Equivalent' };
  t.same(await check(api).verify(stamped), { allowed: true, author: 'alice' }, 'an empty matchResources');
});

t.test('a policy or binding narrowed or changed is not trusted, and the refusal names what differs', async (t) => {
  for (const [why, change, field] of [
    [
      'the binding limited to some objects',
      (a: FakeApi) => (bindingOf(a).spec.matchResources = { objectSelector: { matchLabels: { x: 'y' } } }),
      'binding spec.matchResources',
    ],
    [
      'the binding excluding podbuggertools',
      (a: FakeApi) =>
        (bindingOf(a).spec.matchResources = {
          excludeResourceRules: [
            { apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['podbuggertools'] },
          ],
        }),
      'binding spec.matchResources',
    ],
    [
      'the binding given parameters',
      (a: FakeApi) => (bindingOf(a).spec.paramRef = { name: 'p', parameterNotFoundAction: 'Allow' }),
      'binding spec.paramRef',
    ],
    [
      'the policy limited to some namespaces',
      (a: FakeApi) => (policyOf(a).spec.matchConstraints.namespaceSelector = { matchLabels: { stamped: 'true' } }),
      'policy spec.matchConstraints',
    ],
    [
      'the policy limited to some names',
      (a: FakeApi) => (policyOf(a).spec.matchConstraints.resourceRules[0].resourceNames = ['a']),
      'policy spec.matchConstraints',
    ],
    [
      'the policy with a condition',
      (a: FakeApi) =>
        (policyOf(a).spec.matchConditions = [{ name: 'some', expression: "object.metadata.name != 'a'" }]),
      'policy spec.matchConditions',
    ],
    [
      'the policy ignoring its failures',
      (a: FakeApi) => (policyOf(a).spec.failurePolicy = 'Ignore'),
      'policy spec.failurePolicy',
    ],
    [
      'the stamp written otherwise',
      (a: FakeApi) => (policyOf(a).spec.variables[2].expression = "'v1;alice;uid-alice;system:authenticated'"),
      'policy spec.variables',
    ],
    ['the mutation removed', (a: FakeApi) => (policyOf(a).spec.mutations = []), 'policy spec.mutations'],
  ] as const) {
    const api = new FakeApi();
    change(api);
    const message = await unverified(t, api, why, { message: /is not as metaops ships it/, of: stamped });
    t.match(message, field, `${why}: names ${field}`);
  }
});
