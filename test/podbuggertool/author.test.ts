// A PodBuggerTool acts only as its author could (hooks/podbuggertool/author.ts): the author stamped by the API
// server's admission policy, trusted only on a tool created after the policy was in place, and asked about with a
// SubjectAccessReview for exactly what the tool does. Tenant A (alice) may write PodBuggerTools in tenant B's
// namespace (a careless or shared role) but may not add ephemeral containers there: her tool touches none of
// tenant B's pods, while bob's own tool does.
import t from 'tap';
import {
  AUTHOR_ANNOTATION,
  AUTHOR_CACHE_MS,
  AUTHOR_GRACE_MS,
  AUTHOR_POLICY,
  AUTHOR_RIGHT,
  AuthorCache,
  AuthorCheck,
  authorPolicyObjects,
  MAX_STAMP_CHARS,
  parseStamp,
} from '../../hooks/podbuggertool/author.js';
import { FAILURES_ANNOTATION } from '../../hooks/podbuggertool/match.js';
import { KubeError } from '../../lib/kube.js';
import { ANY, FakeApi, POLICY_CREATED, inject, injectAll, pod, stamp, status, tool } from '../fixtures/pbt.js';

const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');

t.test('the stamp: v1, the user, the UID and the groups, each escaped', async (t) => {
  t.same(parseStamp('v1;alice;u-1;team-a,system:authenticated'), {
    user: 'alice',
    uid: 'u-1',
    groups: ['team-a', 'system:authenticated'],
  });
  t.same(parseStamp('v1;a%3Bb%2Cc%25d;;g%2C1,g%3B2'), { user: 'a;b,c%d', uid: '', groups: ['g,1', 'g;2'] });
  t.same(parseStamp('v1;a%41;;'), { user: 'a%41', uid: '', groups: [] }, 'only what the policy escapes is unescaped');
  t.same(parseStamp(stamp('o;dd,user%', ['x,y'])), { user: 'o;dd,user%', uid: 'uid-o;dd,user%', groups: ['x,y'] });
  // The extra part (userInfo.extra), written by the policy since it sends it on: a key once per value, escaped.
  t.same(parseStamp('v1;alice;u-1;g;'), { user: 'alice', uid: 'u-1', groups: ['g'] }, 'no extra');
  t.same(parseStamp('v1;alice;u-1;g;scopes=a%3D1,scopes=b%2Cc,s%3Bid=x%3By%25'), {
    user: 'alice',
    uid: 'u-1',
    groups: ['g'],
    extra: { scopes: ['a=1', 'b,c'], 's;id': ['x;y%'] },
  });
  t.same(parseStamp('v1;a%3Db;;'), { user: 'a=b', uid: '', groups: [] }, '= is escaped too');
  for (const bad of [
    undefined,
    7,
    '',
    'v1',
    'v2;u;;',
    'v1;u;;;;',
    'v1;;u;',
    'v1;u;',
    'v1;e;u;;;',
    'v1;u;;;x',
    'v1;u;;;=x',
    `v1;${'u'.repeat(MAX_STAMP_CHARS)};;`,
  ])
    t.equal(parseStamp(bad), undefined, JSON.stringify(bad)?.slice(0, 40));
});

t.test('the admission policy and its binding: no parameter', async (t) => {
  const [policy, binding, validating, validatingBinding] = authorPolicyObjects() as any[];
  t.equal(authorPolicyObjects().length, 4, 'the mutating policy, the validating policy, and their bindings');
  t.match(policy, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicy',
    metadata: { name: AUTHOR_POLICY },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [
          { apiGroups: ['debug.metaops.dev'], operations: ['CREATE', 'UPDATE'], resources: ['podbuggertools'] },
        ],
      },
    },
  });
  t.notOk('paramKind' in policy.spec, 'a policy with parameters is lost by the API server once made again');
  const variables = Object.fromEntries(policy.spec.variables.map((v: any) => [v.name, v.expression]));
  t.match(variables.stamp, /^'v1;' \+ request\.userInfo\.username/);
  t.match(variables.stamp, /request\.userInfo\.groups/);
  t.equal(
    variables.value,
    "variables.created ? variables.stamp : (variables.stored.startsWith('v1;') ? variables.stored : '')",
    'stamped at a create only; every update puts back the stamp the tool has',
  );
  t.equal(variables.created, "request.operation == 'CREATE'");
  t.match(policy.spec.mutations[0].applyConfiguration.expression, AUTHOR_ANNOTATION);
  t.same(binding.spec, { policyName: AUTHOR_POLICY });
  // The validating policy: the same match, the same stamp (the same CEL), refusing any other, without parameters.
  t.match(validating, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: AUTHOR_POLICY },
    spec: { failurePolicy: 'Fail', matchConstraints: policy.spec.matchConstraints },
  });
  t.notOk('paramKind' in validating.spec, 'no parameter either');
  const checked = Object.fromEntries(validating.spec.variables.map((v: any) => [v.name, v.expression]));
  t.equal(checked.stamp, variables.stamp, 'the stamp computed as the mutating policy writes it');
  t.equal(checked.created, variables.created);
  t.equal(checked.stored, variables.stored);
  // Refused: an update that changes the spec (whoever changed it), a create not stamped as its writer, an update
  // that stores a stamp other than the tool's own (or none).
  t.same(
    validating.spec.validations.map((v: any) => v.expression),
    [
      'variables.created || object.spec == oldObject.spec',
      "variables.created ? variables.same : (variables.written == variables.stored || variables.written == '')",
    ],
  );
  t.same(validatingBinding.spec, { policyName: AUTHOR_POLICY, validationActions: ['Deny'] });
  t.same(AUTHOR_RIGHT, { verb: 'patch', group: '', resource: 'pods', subresource: 'ephemeralcontainers' });
});

t.test('verify: a stamp of the policy in force, and an author the API server allows', async (t) => {
  const check = (api: FakeApi, cache = new AuthorCache()) => new AuthorCheck(api, cache);
  const stamped = tool('a', { label: 'app=web', image: 'busybox' }, 'team-b', 'alice');
  const api = new FakeApi();
  api.allow = (user, ns) => user === 'alice' && ns === 'team-b';
  t.same(await check(api).verify(stamped), { allowed: true, author: 'alice' });
  t.same(api.reviews, [
    {
      user: 'alice',
      groups: ['system:authenticated'],
      attributes: {
        namespace: 'team-b',
        verb: 'patch',
        group: '',
        resource: 'pods',
        subresource: 'ephemeralcontainers',
      },
    },
  ]);
  api.allow = () => false;
  t.same(await check(api).verify(stamped), {
    allowed: false,
    reason: 'AuthorNotAllowed',
    message:
      'its author alice may not patch pods/ephemeralcontainers in namespace team-b (asked of the API server now, with the groups system:authenticated stamped when the tool was created), and a tool does nothing its author could not do; nothing more is injected',
  });
  // No stamp, or one that is not the policy's: unverified, and the API server is not even asked about the author.
  for (const annotations of [undefined, {}, { [AUTHOR_ANNOTATION]: 'admin' }, { [AUTHOR_ANNOTATION]: '' }]) {
    const api2 = new FakeApi();
    const unstamped = { ...stamped, metadata: { ...stamped.metadata, annotations } };
    t.match(await check(api2).verify(unstamped), {
      allowed: false,
      reason: 'AuthorUnverified',
      message: /no author stamp/,
    });
    t.equal(api2.reviews.length, 0);
  }
  // A tool created before the policy and its binding were in place, or within the grace after: its stamp may be its
  // writer's.
  const at = (ms: number) => new Date(Date.parse(POLICY_CREATED) + ms).toISOString();
  for (const [created, trusted] of [
    ['2025-12-31T00:00:00Z', false],
    [POLICY_CREATED, false],
    [at(AUTHOR_GRACE_MS), false],
    [at(AUTHOR_GRACE_MS + 1000), true],
    ['not a time', false],
    [undefined, false],
  ] as const) {
    const api4 = new FakeApi();
    const aged = { ...stamped, metadata: { ...stamped.metadata, creationTimestamp: created } };
    const verdict = await check(api4).verify(aged);
    if (trusted) t.same(verdict, { allowed: true, author: 'alice' }, String(created));
    else
      t.match(
        verdict,
        {
          allowed: false,
          reason: 'AuthorUnverified',
          message: /was created before the admission policy .* was in place \(or within 10 s of it\)/,
        },
        String(created),
      );
  }
  // The later of the two counts: a binding made again after the policy.
  const rebound = new FakeApi();
  rebound.stored('MutatingAdmissionPolicyBinding', '', AUTHOR_POLICY).metadata.creationTimestamp =
    '2026-01-03T00:00:00Z';
  t.match(await check(rebound).verify(stamped), { reason: 'AuthorUnverified' }, 'a binding newer than the tool');
  const repoliced = new FakeApi();
  repoliced.stored('MutatingAdmissionPolicy', '', AUTHOR_POLICY).metadata.creationTimestamp = '2026-01-03T00:00:00Z';
  t.match(await check(repoliced).verify(stamped), { reason: 'AuthorUnverified' }, 'a policy newer than the tool');
  // The policy or its binding missing, bound otherwise, or without a time: no stamp can be trusted.
  for (const [why, change] of [
    ['no policy', (a: FakeApi) => a.remove('MutatingAdmissionPolicy', '', AUTHOR_POLICY)],
    ['no binding', (a: FakeApi) => a.remove('MutatingAdmissionPolicyBinding', '', AUTHOR_POLICY)],
    [
      'bound to another policy',
      (a: FakeApi) => (a.stored('MutatingAdmissionPolicyBinding', '', AUTHOR_POLICY).spec.policyName = 'other'),
    ],
    [
      'a binding without a spec',
      (a: FakeApi) => delete a.stored('MutatingAdmissionPolicyBinding', '', AUTHOR_POLICY).spec,
    ],
    [
      'a policy without a time',
      (a: FakeApi) => delete a.stored('MutatingAdmissionPolicy', '', AUTHOR_POLICY).metadata.creationTimestamp,
    ],
    [
      'a binding without a time',
      (a: FakeApi) => delete a.stored('MutatingAdmissionPolicyBinding', '', AUTHOR_POLICY).metadata.creationTimestamp,
    ],
  ] as const) {
    const api3 = new FakeApi();
    change(api3);
    t.match(
      await check(api3).verify(stamped),
      { allowed: false, reason: 'AuthorUnverified', message: /is not installed/ },
      why,
    );
    t.equal(api3.reviews.length, 0, `${why}: no review`);
  }
  // A failure of the API server is the caller's to report, not a verdict.
  const down = new FakeApi();
  down.failReview = new KubeError(503, 'unavailable', 'ServiceUnavailable');
  await t.rejects(check(down).verify(stamped), { reason: 'ServiceUnavailable' } as unknown as Error);
  const review = new FakeApi();
  review.create = async () => ({ apiVersion: 'v1', kind: 'x', metadata: { name: 'x' }, status: { allowed: 'true' } });
  t.match(await check(review).verify(stamped), { allowed: false }, 'only allowed: true allows');
  // A tool without a namespace is in "default".
  const bare = new FakeApi();
  await check(bare).verify({ ...stamped, metadata: { ...stamped.metadata, namespace: undefined } });
  t.equal(bare.reviews[0]!.attributes['namespace'], 'default');
});

t.test('answers are remembered for AUTHOR_CACHE_MS: a revoked right stops the tool within that', async (t) => {
  let now = 0;
  const cache = new AuthorCache(() => now);
  const api = new FakeApi();
  const stamped = tool('a', { label: 'app=web', image: 'busybox' }, 'team-b', 'alice');
  const check = new AuthorCheck(api, cache);
  t.equal(AUTHOR_CACHE_MS, 10_000);
  t.match(await check.verify(stamped), { allowed: true });
  const gets = api.gets.length;
  api.allow = () => false;
  now = AUTHOR_CACHE_MS - 1;
  t.match(await check.verify(stamped), { allowed: true }, 'remembered');
  t.equal(api.reviews.length, 1);
  t.equal(api.gets.length, gets + 4, 'the policies and their bindings are read again at every check, never remembered');
  now = AUTHOR_CACHE_MS;
  t.match(await check.verify(stamped), { allowed: false, reason: 'AuthorNotAllowed' }, 'asked again');
  t.equal(api.reviews.length, 2);
  t.ok(api.gets.length > gets);
  // Another namespace, another user, other groups: other answers.
  await check.verify(tool('a', { label: 'x=y', image: 'busybox' }, 'team-a', 'alice'));
  await check.verify(tool('a', { label: 'x=y', image: 'busybox' }, 'team-b', 'bob'));
  t.equal(api.reviews.length, 4);
  // The policy removed: at the next check no stamp is trusted any more, with the author's answer still remembered.
  api.allow = () => true;
  now = 3 * AUTHOR_CACHE_MS;
  t.match(await check.verify(stamped), { allowed: true });
  api.remove('MutatingAdmissionPolicyBinding', '', AUTHOR_POLICY);
  now += 1;
  t.match(await check.verify(stamped), { reason: 'AuthorUnverified' }, 'the binding gone: at once');
  // Made again: its new creationTimestamp counts at once too (the tool, older, is no longer trusted).
  api.put({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicyBinding',
    metadata: { name: AUTHOR_POLICY, creationTimestamp: '2026-01-03T00:00:00Z', generation: 1 },
    spec: { policyName: AUTHOR_POLICY },
  });
  t.match(await check.verify(stamped), { reason: 'AuthorUnverified', message: /was created before/ }, 'made again');
  // At most 1000 answers are kept.
  for (let i = 0; i < 1100; i++) cache.remember(`k${i}`, true);
  t.equal(cache.answers.size, 1000);
  t.notOk(cache.answers.has('k0'));
  t.ok(cache.answers.has('k1099'));
  t.ok(new AuthorCache().fresh(Date.now()), 'the wall clock by default');
});

/** Tenant A (alice) may write PodBuggerTools in both namespaces; she may add ephemeral containers only in hers. */
function tenants(): FakeApi {
  const api = new FakeApi();
  api.allow = (user, ns) => (user === 'alice' && ns === 'team-a') || (user === 'bob' && ns === 'team-b');
  api.put(pod('a-web', { app: 'web' }, {}, 'team-a'));
  api.put(pod('b-web', { app: 'web' }, {}, 'team-b'));
  api.put(pod('b-db', { app: 'db' }, {}, 'team-b'));
  return api;
}

t.test(
  "tenant A's tool in tenant B's namespace injects nothing; B's own tool and A's in her namespace do",
  async (t) => {
    const api = tenants();
    api.put(
      tool(
        'sneak',
        { label: 'app', image: 'busybox', command: ['sh', '-c', 'cat /proc/1/environ'] },
        'team-b',
        'alice',
      ),
    );
    for (let i = 0; i < 3; i++) await injectAll(api, 'team-b');
    t.same(api.ephemeralNames('team-b', 'b-web'), [], "alice's command runs in none of bob's pods");
    t.same(api.ephemeralNames('team-b', 'b-db'), []);
    t.equal(api.patches.length, 0);
    t.equal(
      api.stored('Pod', 'team-b', 'b-web').metadata.annotations,
      undefined,
      'nothing recorded on the pods either',
    );
    const refused = await status(api, ['team-b', 'sneak']);
    t.match(ready(refused), {
      status: 'False',
      reason: 'AuthorNotAllowed',
      message: /alice may not patch pods\/ephemeralcontainers in namespace team-b/,
    });
    // Nor does her tool's status tell her about bob's pods: not their names, not how many her selector picks.
    t.notOk('matched' in refused.status!, 'no count');
    t.notOk(/b-web|b-db/.test(JSON.stringify(refused.status)), 'no pod named');

    // A tool with bob's name written in by hand, from before the policy: the stamp is the API server's, not hers to
    // write (the real policy replaces it at every write since; one made before the policy is not trusted).
    const forged = tool('sneak', { label: 'app', image: 'busybox' }, 'team-b', null);
    forged.metadata.annotations = { [AUTHOR_ANNOTATION]: 'v1;bob;uid-bob;team-b' };
    // Written (by hand) while the policy was not in place: created before it.
    forged.metadata.creationTimestamp = '2025-12-31T00:00:00Z';
    api.put(forged);
    await injectAll(api, 'team-b');
    t.equal(api.patches.length, 0, 'a forged stamp is not trusted');

    // Bob's tool in his namespace, and alice's in hers: injected.
    api.put(tool('mine', { label: 'app=web', image: 'busybox' }, 'team-b', 'bob'));
    api.put(tool('hers', { label: 'app=web', image: 'busybox' }, 'team-a', 'alice'));
    await injectAll(api, 'team-b');
    await injectAll(api, 'team-a');
    t.same(api.ephemeralNames('team-b', 'b-web'), ['debug-mine']);
    t.same(api.ephemeralNames('team-a', 'a-web'), ['debug-hers']);
    t.match(ready(await status(api, ['team-b', 'mine'])), { status: 'True', reason: 'Injected' });
    // Every review asked about exactly the act, in the tool's own namespace; and, for a tool allowed it, whether its
    // status may name the pods: listing them, there.
    for (const r of api.reviews)
      if (r.attributes['verb'] === 'list')
        t.same(r.attributes, { verb: 'list', group: '', resource: 'pods', namespace: 'team-b' }, 'may bob list');
      else
        t.match(r.attributes, {
          verb: 'patch',
          resource: 'pods',
          subresource: 'ephemeralcontainers',
          namespace: /^team-[ab]$/,
        });
    // Bob loses the right: his tool adds nothing to the next pod.
    api.allow = () => false;
    api.put(pod('b-web-2', { app: 'web' }, {}, 'team-b'));
    await injectAll(api, 'team-b');
    t.same(api.ephemeralNames('team-b', 'b-web-2'), []);
  },
);

t.test(
  'the check off (METAOPS_DEBUG_AUTHOR_CHECK=off): tools act with the server’s rights, nothing is asked',
  async (t) => {
    const api = tenants();
    api.put(tool('sneak', { label: 'app=web', image: 'busybox' }, 'team-b', null));
    await injectAll(api, 'team-b', { policy: { ...ANY, authorCheck: 'off' } });
    t.same(api.ephemeralNames('team-b', 'b-web'), ['debug-sneak']);
    t.equal(api.reviews.length, 0);
    t.equal(api.gets.filter((g) => g.includes('admission')).length, 0);
  },
);

t.test('the author cannot be asked about: recorded on the pod as a failure, retried', async (t) => {
  const api = tenants();
  api.put(tool('mine', { label: 'app=web', image: 'busybox' }, 'team-b', 'bob'));
  api.failReview = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  const res = await inject(api, ['team-b', 'b-web']);
  t.match(res, {
    attachments: [],
    annotations: { [FAILURES_ANNOTATION]: /^\{"debug-mine":"Unreachable;n=1;at=[0-9]+;k=[0-9a-f]{8}"\}$/ },
    resyncAfterSeconds: 30,
  });
  t.equal(api.patches.length, 0);
});

t.test('the review asked: a SubjectAccessReview with the author UID when stamped, and no status is no', async (t) => {
  const stamped = tool('a', { label: 'app=web', image: 'busybox' }, 'team-b', 'alice');
  const api = new FakeApi();
  const bodies: any[] = [];
  const calls: string[] = [];
  api.create = async (apiVersion: string, resource: string, ns: string, body: any) => {
    calls.push(`${apiVersion} ${resource} ${ns}`);
    bodies.push(structuredClone(body));
    return { ...body };
  };
  t.same(await new AuthorCheck(api, new AuthorCache()).verify(stamped), {
    allowed: false,
    reason: 'AuthorNotAllowed',
    message:
      'its author alice may not patch pods/ephemeralcontainers in namespace team-b (asked of the API server now, with the groups system:authenticated stamped when the tool was created), and a tool does nothing its author could not do; nothing more is injected',
  });
  t.same(calls, ['authorization.k8s.io/v1 subjectaccessreviews '], 'cluster-scoped');
  t.same(bodies[0], {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: {
      user: 'alice',
      uid: 'uid-alice',
      groups: ['system:authenticated'],
      resourceAttributes: { namespace: 'team-b', ...AUTHOR_RIGHT },
    },
  });
  // A stamp without a UID asks without one.
  const noUid = structuredClone(stamped);
  noUid.metadata.annotations![AUTHOR_ANNOTATION] = 'v1;alice;;system:authenticated';
  await new AuthorCheck(api, new AuthorCache()).verify(noUid);
  t.notOk('uid' in bodies[1].spec);
});

t.test('out of time: no call starts, before the policy read or before the review', async (t) => {
  const stamped = tool('a', { label: 'app=web', image: 'busybox' }, 'team-b', 'alice');
  const api = new FakeApi();
  const err = await new AuthorCheck(api, new AuthorCache()).verify(stamped, () => true).catch((e: Error) => e);
  t.equal((err as Error).name, 'OutOfTime');
  t.equal((err as Error).message, 'the work budget was spent before the author could be checked');
  t.same(api.gets, [], 'the policy not read');
  // With the author's answer unknown, neither the policy's read nor the review starts.
  const cache = new AuthorCache();
  await new AuthorCheck(api, cache).verify(tool('b', { label: 'app=web', image: 'busybox' }, 'team-b', 'bob'));
  const reviews = api.reviews.length;
  await t.rejects(
    new AuthorCheck(api, cache).verify(stamped, () => true),
    { name: 'OutOfTime' },
  );
  t.equal(api.reviews.length, reviews, 'no review asked');
});

t.test('a stamp of 256 KiB (all the API server keeps) is read; a longer one is not a stamp', async (t) => {
  const head = 'v1;u;;';
  t.equal(MAX_STAMP_CHARS, 256 * 1024);
  t.match(parseStamp(head + 'g'.repeat(MAX_STAMP_CHARS - head.length)), { user: 'u' });
  t.equal(parseStamp(head + 'g'.repeat(MAX_STAMP_CHARS - head.length + 1)), undefined);
});

t.test('a stamp too long to read, or not of the policy form, is refused for what it is', async (t) => {
  const long = tool('a', { label: 'app=web', image: 'busybox' });
  long.metadata.annotations[AUTHOR_ANNOTATION] = 'v1;u;;' + 'g'.repeat(MAX_STAMP_CHARS);
  const hand = tool('b', { label: 'app=web', image: 'busybox' });
  hand.metadata.annotations[AUTHOR_ANNOTATION] = 'alice';
  const none = tool('c', { label: 'app=web', image: 'busybox' });
  delete none.metadata.annotations[AUTHOR_ANNOTATION];
  const api = new FakeApi().put(long).put(hand).put(none);
  const check = new AuthorCheck(api, new AuthorCache());
  const said = async (name: string) => {
    const v = await check.verify(api.stored('PodBuggerTool', 'dbg', name));
    return v.allowed ? 'allowed' : `${v.reason}: ${v.message}`;
  };
  t.match(
    await said('a'),
    /^AuthorUnverified: .*262150 characters long, longer than the 256 KiB the hook server reads/,
  );
  t.notMatch(await said('a'), /written before the policy/);
  t.match(
    await said('b'),
    /^AuthorUnverified: the tool has no author stamp .*its annotation .* is not of the policy's form/,
  );
  t.match(await said('c'), /^AuthorUnverified: the tool has no author stamp .*written before the policy/);
  t.equal(api.reviews.length, 0, 'nobody asked about');
});

t.test('the answers about an author of many groups are remembered by a hash, not by the groups', async (t) => {
  const groups = Array.from({ length: 3000 }, (_, i) => `cn=team-${i},ou=groups,dc=example,dc=com`);
  const tl = tool('a', { label: 'app=web', image: 'busybox' });
  tl.metadata.annotations[AUTHOR_ANNOTATION] = stamp('alice', groups).replace(/=/g, '%3D');
  const api = new FakeApi().put(tl);
  const cache = new AuthorCache();
  const v = await new AuthorCheck(api, cache).verify(api.stored('PodBuggerTool', 'dbg', 'a'));
  t.equal(v.allowed, true, 'asked about, and allowed');
  t.equal(api.reviews.at(-1)?.groups.length, 3000, 'with every group');
  t.ok(
    [...cache.answers.keys()].every((k) => k.length < 64),
    'the memory holds a hash of the question',
  );
  await new AuthorCheck(api, cache).verify(api.stored('PodBuggerTool', 'dbg', 'a'));
  t.equal(api.reviews.length, 1, 'the answer remembered');
});
