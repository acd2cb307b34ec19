// The mutating author policy runs before the mutating webhooks and is never reinvoked: a webhook after it may rewrite
// the stamp. The ValidatingAdmissionPolicy metaops ships beside it (and its binding) refuses a tool stored with a stamp
// that is not its writer's; a stamp is trusted only while it is in place too, as shipped (its defaults written out),
// never changed since it was made (generation 1), and on a tool created after it. Otherwise every tool is
// AuthorUnverified, the refusal names the validating object at fault, and nothing is asked of the authorizer.
import t from 'tap';
import { AUTHOR_GRACE_MS, AUTHOR_POLICY } from '../../hooks/podbuggertool/author.js';
import { FakeApi, TOOL_CREATED } from '../fixtures/pbt.js';
import { check, stampedTool, unverified, validatingOf, vbindingOf } from '../fixtures/pbt-author.js';

const stamped = stampedTool();
const REMEDY =
  /delete the ValidatingAdmissionPolicy and the ValidatingAdmissionPolicyBinding metaops-podbuggertool-author and create them again/;

t.test('all four in place as shipped, as the API server stores them: trusted', async (t) => {
  const api = new FakeApi();
  t.ok(validatingOf(api) && vbindingOf(api), 'the fake API server holds both validating objects');
  t.same(await check(api).verify(stamped), { allowed: true, author: 'alice' });
  // The API server's defaults written out (matchPolicy, selectors, scope): the same policy.
  const mc = validatingOf(api).spec.matchConstraints;
  Object.assign(mc, { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} });
  mc.resourceRules[0].scope = '*';
  vbindingOf(api).spec.matchResources = { namespaceSelector: {}, objectSelector: {}, matchPolicy: 'Equivalent' };
  t.same(await check(api).verify(stamped), { allowed: true, author: 'alice' }, 'defaults written out');
});

t.test('the validating policy or its binding missing: AuthorUnverified, naming it, no review', async (t) => {
  for (const [why, change, named] of [
    [
      'no validating policy',
      (a: FakeApi) => a.remove('ValidatingAdmissionPolicy', '', AUTHOR_POLICY),
      /not installed in full \(no ValidatingAdmissionPolicy metaops-podbuggertool-author;/,
    ],
    [
      'no validating binding',
      (a: FakeApi) => a.remove('ValidatingAdmissionPolicyBinding', '', AUTHOR_POLICY),
      /not installed in full \(no ValidatingAdmissionPolicyBinding metaops-podbuggertool-author;/,
    ],
    [
      'the validating binding bound to another policy',
      (a: FakeApi) => (vbindingOf(a).spec.policyName = 'other'),
      /the ValidatingAdmissionPolicyBinding metaops-podbuggertool-author bound to another policy/,
    ],
    [
      'the validating policy without a time',
      (a: FakeApi) => delete validatingOf(a).metadata.creationTimestamp,
      /the ValidatingAdmissionPolicy metaops-podbuggertool-author without a creationTimestamp/,
    ],
  ] as const) {
    const api = new FakeApi();
    change(api);
    const message = await unverified(t, api, why, { message: named, of: stamped });
    t.notMatch(message, /no MutatingAdmissionPolicy/, `${why}: not the mutating`);
  }
});

t.test('the validating policy or binding not as shipped: AuthorUnverified, naming the field', async (t) => {
  for (const [why, change, field] of [
    [
      'the binding only warning',
      (a: FakeApi) => (vbindingOf(a).spec.validationActions = ['Warn']),
      'validating binding spec.validationActions',
    ],
    [
      'the binding only auditing',
      (a: FakeApi) => (vbindingOf(a).spec.validationActions = ['Audit']),
      'validating binding spec.validationActions',
    ],
    [
      'the binding limited to some namespaces',
      (a: FakeApi) => (vbindingOf(a).spec.matchResources = { namespaceSelector: { matchLabels: { x: 'y' } } }),
      'validating binding spec.matchResources',
    ],
    [
      'the binding given parameters',
      (a: FakeApi) => (vbindingOf(a).spec.paramRef = { name: 'p', parameterNotFoundAction: 'Allow' }),
      'validating binding spec.paramRef',
    ],
    [
      'the policy ignoring its failures',
      (a: FakeApi) => (validatingOf(a).spec.failurePolicy = 'Ignore'),
      'validating policy spec.failurePolicy',
    ],
    [
      'the check made always true',
      (a: FakeApi) => (validatingOf(a).spec.validations[0].expression = 'true'),
      'validating policy spec.validations',
    ],
    [
      'the stamp computed otherwise',
      (a: FakeApi) => (validatingOf(a).spec.variables[2].expression = 'variables.written'),
      'validating policy spec.variables',
    ],
    [
      'the policy with a condition',
      (a: FakeApi) =>
        (validatingOf(a).spec.matchConditions = [{ name: 'n', expression: "object.metadata.name != 'a'" }]),
      'validating policy spec.matchConditions',
    ],
    [
      'the policy limited to creates',
      (a: FakeApi) => (validatingOf(a).spec.matchConstraints.resourceRules[0].operations = ['CREATE']),
      'validating policy spec.matchConstraints',
    ],
  ] as const) {
    const api = new FakeApi();
    change(api);
    const message = await unverified(t, api, why, { message: /is not as metaops ships it/, of: stamped });
    t.match(message, field, `${why}: names ${field}`);
    t.notMatch(message, /\((policy|binding) spec\./, `${why}: names no field of the mutating pair`);
    t.match(message, REMEDY, `${why}: the validating pair to make again`);
    t.notMatch(message, /MutatingAdmissionPolicy and the MutatingAdmissionPolicyBinding/, `${why}: not the mutating`);
  }
});

t.test('the validating policy or binding changed in place since made: AuthorUnverified, naming it', async (t) => {
  for (const kind of ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']) {
    const api = new FakeApi();
    api.stored(kind, '', AUTHOR_POLICY).metadata.generation = 2;
    const message = await unverified(t, api, kind, {
      message: new RegExp(
        `changed in place since it was made \\(its ${kind} metaops-podbuggertool-author is at generation 2, not 1\\)`,
      ),
      of: stamped,
    });
    t.match(message, REMEDY, `${kind}: the validating pair to make again`);
  }
});

t.test('a tool created before the validating policy or its binding (or within the grace): not trusted', async (t) => {
  const created = Date.parse(TOOL_CREATED);
  for (const kind of ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']) {
    for (const [when, trusted] of [
      [created - AUTHOR_GRACE_MS - 1000, true],
      [created - AUTHOR_GRACE_MS, false],
      [created + 1000, false],
    ] as const) {
      const api = new FakeApi();
      api.stored(kind, '', AUTHOR_POLICY).metadata.creationTimestamp = new Date(when).toISOString();
      const verdict = await check(api).verify(stamped);
      if (trusted) t.same(verdict, { allowed: true, author: 'alice' }, `${kind} made long before the tool`);
      else
        t.match(
          verdict,
          { allowed: false, reason: 'AuthorUnverified', message: /was created before the admission policy/ },
          `${kind} made at ${new Date(when).toISOString()}`,
        );
    }
    // Written since (a managedFields time after the tool's creation): the same.
    const api = new FakeApi();
    api.stored(kind, '', AUTHOR_POLICY).metadata.managedFields = [
      { manager: 'kubectl', operation: 'Update', time: '2026-01-02T12:00:00Z' },
    ];
    t.match(await check(api).verify(stamped), { reason: 'AuthorUnverified' }, `${kind} written after the tool`);
  }
});
