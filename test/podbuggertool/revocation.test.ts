// What a revoked right does to a PodBuggerTool (hooks/podbuggertool/author.ts, docs/podbuggertool.md "Who may
// debug"): the SubjectAccessReview asks about the stamped user and groups against the bindings as they are now, so a
// RoleBinding revoked, the user's own or a stamped group's, stops injection into new pods within AUTHOR_CACHE_MS;
// the tool's status says why (Ready=False AuthorNotAllowed) and counts the containers added before, which stay. A
// refusal heard by either hook holds for both, whatever order the two controllers run in; the admission policy's
// state is read at every check.
import t from 'tap';
import {
  AUTHOR_ANNOTATION,
  AUTHOR_CACHE_MS,
  AUTHOR_POLICY,
  AuthorCache,
  authorCacheFor,
} from '../../hooks/podbuggertool/author.js';
import { statusRefusal, toolClients } from '../../hooks/podbuggertool/inject.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import {
  FakeApi,
  inject,
  injectAll,
  injectorRequest,
  pod,
  stamp,
  status,
  statusAndApply,
  tool,
} from '../fixtures/pbt.js';

const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');
/** A resync of the tool, past the 10 s in which a fresh count is held. */
const later = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);

/** RBAC as the fake API server's authorizer: RoleBindings of namespace dbg to users and to groups. */
function rbac() {
  const users = new Set(['carol']);
  const groups = new Set(['team-d']);
  const api = new FakeApi();
  api.allow = (user, ns, gs) => ns === 'dbg' && (users.has(user) || gs.some((g) => groups.has(g)));
  return { api, users, groups };
}

t.test(
  'a revoked user binding and a revoked group binding: no container in new pods past AUTHOR_CACHE_MS, Ready=False says why, those added before stay, and the refused status counts and names no pod',
  async (t) => {
    const { api, users, groups } = rbac();
    let clock = 0;
    const cache = new AuthorCache(() => clock);
    const byUser = tool('by-user', { label: 'app=web', image: 'busybox' }, 'dbg', 'carol');
    const byGroup = tool('by-group', { label: 'app=web', image: 'busybox' }, 'dbg', null);
    byGroup.metadata.annotations = { [AUTHOR_ANNOTATION]: stamp('dave', ['team-d', 'system:authenticated']) };
    api
      .put(byUser)
      .put(byGroup)
      .put(pod('p1', { app: 'web' }));
    for (let i = 0; i < 2; i++) await injectAll(api, 'dbg', { cache });
    t.same(api.ephemeralNames('dbg', 'p1'), ['debug-by-group', 'debug-by-user'], 'both allowed: dave by his group');
    for (const name of ['by-user', 'by-group'])
      t.match(ready(await statusAndApply(api, ['dbg', name], { cache })), { status: 'True', reason: 'Injected' });

    // Both bindings revoked at clock 1000 (the answers above were heard at 0).
    clock = 1000;
    users.delete('carol');
    groups.delete('team-d');
    // The documented gap closes sooner for a new pod: the injector asks about each pod by name (an answer about p1
    // says nothing of p2), so a pod made after the revocation is refused at once, not AUTHOR_CACHE_MS later; the
    // refusal is the author's on the whole namespace (asked again at once), so nothing is recorded on the pod.
    clock = AUTHOR_CACHE_MS - 1;
    api.put(pod('p2', { app: 'web' }));
    for (let i = 0; i < 2; i++) await injectAll(api, 'dbg', { cache });
    t.same(api.ephemeralNames('dbg', 'p2'), [], 'a new pod, asked about by name: refused at once');
    t.equal(api.stored('Pod', 'dbg', 'p2').metadata.annotations, undefined, 'nothing recorded on p2');
    t.ok(
      api.reviews.some((r) => r.attributes['name'] === 'p2'),
      'asked about p2 by name',
    );
    // From AUTHOR_CACHE_MS after the answers on (so within AUTHOR_CACHE_MS of the revocation), nothing more.
    clock = AUTHOR_CACHE_MS;
    api.put(pod('p3', { app: 'web' }));
    const patches = api.patches.length;
    for (let i = 0; i < 2; i++) await injectAll(api, 'dbg', { cache });
    t.same(api.ephemeralNames('dbg', 'p3'), [], 'revoked: nothing added to a new pod');
    t.equal(api.patches.length, patches, 'no PATCH sent');
    t.equal(api.stored('Pod', 'dbg', 'p3').metadata.annotations, undefined, 'nothing recorded on the pod');
    t.same(api.ephemeralNames('dbg', 'p1'), ['debug-by-group', 'debug-by-user'], 'the containers added stay');

    // The tools' status at their resync: refused, saying who and with which groups; no pod counted or named (the
    // author may no longer debug the namespace: the status is not theirs to read pods through).
    const u = await statusAndApply(api, ['dbg', 'by-user'], { cache, now: later(60) });
    t.match(ready(u), {
      status: 'False',
      reason: 'AuthorNotAllowed',
      message:
        /^its author carol may not patch pods\/ephemeralcontainers in namespace dbg \(asked of the API server now, with the groups system:authenticated stamped when the tool was created\).*nothing more is injected\. Any debug-by-user added before stays \(an ephemeral container cannot be removed/,
    });
    for (const field of ['matched', 'injected', 'pending', 'failed', 'failures', 'skips'])
      t.notOk(field in u.status!, `no ${field} in a refused status`);
    t.notOk('resyncAfterSeconds' in u, 'a refused tool waits for its resync');
    const g = await statusAndApply(api, ['dbg', 'by-group'], { cache, now: later(60) });
    t.match(ready(g), {
      status: 'False',
      reason: 'AuthorNotAllowed',
      message:
        /its author dave may not patch .* with the groups team-d, system:authenticated stamped .* Any debug-by-group added before stays/,
    });
    t.notOk('matched' in g.status!, 'nothing counted');

    // Granted again (the group's binding): the injector follows within AUTHOR_CACHE_MS of the tool's next sync.
    groups.add('team-d');
    clock = 3 * AUTHOR_CACHE_MS;
    t.match(ready(await statusAndApply(api, ['dbg', 'by-group'], { cache, now: later(120) })), {
      reason: 'Injecting',
    });
    for (let i = 0; i < 2; i++) await injectAll(api, 'dbg', { cache });
    t.same(api.ephemeralNames('dbg', 'p3'), ['debug-by-group']);
  },
);

t.test(
  "the order of the two controllers: a refusal the tool's sync heard holds for a pod the injector sees first",
  async (t) => {
    // Two replicas of the server: each its own memory. The injector's replica heard "allowed" at 5 s.
    const { api, users } = rbac();
    let clock = 5000;
    const injectorCache = new AuthorCache(() => clock);
    const statusCache = new AuthorCache(() => clock);
    api.put(tool('a', { label: 'app=web', image: 'busybox' }, 'dbg', 'carol')).put(pod('p1', { app: 'web' }));
    await injectAll(api, 'dbg', { cache: injectorCache });
    t.same(api.ephemeralNames('dbg', 'p1'), ['debug-a']);
    // Revoked; the tool's sync (the other replica) asks at 12 s and writes Ready=False.
    users.delete('carol');
    clock = 12_000;
    t.match(ready(await statusAndApply(api, ['dbg', 'a'], { cache: statusCache, now: later(60) })), {
      reason: 'AuthorNotAllowed',
    });
    // A pod created after the refusal, seen by the injector whose answer (from 5 s) is still fresh: nothing added.
    clock = 13_000;
    api.put(pod('p2', { app: 'web' }));
    const reviews = api.reviews.length;
    await injectAll(api, 'dbg', { cache: injectorCache });
    t.same(api.ephemeralNames('dbg', 'p2'), [], "the tool's status refuses it");
    t.equal(api.reviews.length, reviews, 'decided on the status');

    // One server: the injector and the status share one memory, so a refusal the status heard is the injector's at
    // once, even before the status is written (the injector's sync of a new pod coming first). With a memory each,
    // the injector would still use the "allowed" it heard at 5 s until 15 s.
    const one = rbac();
    const shared = new AuthorCache(() => clock);
    one.api.put(tool('a', { label: 'app=web', image: 'busybox' }, 'dbg', 'carol')).put(pod('p1', { app: 'web' }));
    clock = 0;
    await status(one.api, ['dbg', 'a'], { cache: shared, now: later(60) });
    clock = 5000;
    await injectAll(one.api, 'dbg', { cache: shared });
    t.same(one.api.ephemeralNames('dbg', 'p1'), ['debug-a']);
    t.same(
      one.api.reviews.map((r) => [r.attributes['verb'], r.attributes['name']]),
      [
        ['patch', undefined],
        ['list', undefined],
        ['patch', 'p1'],
      ],
      'the status asked about the namespace (and whether it may name pods); the injector about the pod it patches',
    );
    one.users.delete('carol');
    clock = AUTHOR_CACHE_MS;
    t.match(ready(await status(one.api, ['dbg', 'a'], { cache: shared, now: later(60) })), {
      reason: 'AuthorNotAllowed',
    });
    clock = AUTHOR_CACHE_MS + 1000;
    one.api.put(pod('p2', { app: 'web' }));
    await injectAll(one.api, 'dbg', { cache: shared });
    t.same(one.api.ephemeralNames('dbg', 'p2'), [], 'the refusal heard by the status, not yet written, holds');
    t.equal(authorCacheFor(one), authorCacheFor(one), 'one cache per server environment');
    t.not(authorCacheFor({}), authorCacheFor(one), 'another server, another cache');

    // Both hooks' clients, built from the server's one environment, use that one memory: a second check asks nothing.
    const three = rbac();
    three.api.put(tool('a', { label: 'app=web', image: 'busybox' }, 'dbg', 'carol'));
    const stored = three.api.stored('PodBuggerTool', 'dbg', 'a');
    const serverEnv = { env: {} };
    await toolClients(serverEnv).authors(three.api).verify(stored);
    await toolClients(serverEnv).authors(three.api).verify(stored);
    t.equal(three.api.reviews.length, 1, 'the second hook heard the first one’s answer');
    await toolClients({ env: {} }).authors(three.api).verify(stored);
    t.equal(three.api.reviews.length, 2, 'another server asks for itself');
  },
);

t.test("the status's refusals that bind the injector: its own generation, the author's and the policy's", async (t) => {
  const withStatus = (generation: number, observed: number | undefined, reason: string, status = 'False') => {
    const x = tool('a', { label: 'app=web', image: 'busybox' });
    x.metadata.generation = generation;
    x.status = {
      ...(observed === undefined ? {} : { observedGeneration: observed }),
      conditions: [{ type: 'Ready', status, reason }],
    };
    return x;
  };
  for (const reason of [
    'AuthorUnverified',
    'AuthorNotAllowed',
    'ImageNotAllowed',
    'ProfileNotAllowed',
    'NamespaceExcluded',
  ])
    t.equal(statusRefusal(withStatus(2, 2, reason)), reason);
  t.equal(statusRefusal(withStatus(3, 2, 'AuthorNotAllowed')), undefined, 'a spec changed since: restamped');
  t.equal(statusRefusal(withStatus(2, undefined, 'AuthorNotAllowed')), undefined);
  t.equal(statusRefusal(withStatus(2, 2, 'AuthorNotAllowed', 'True')), undefined);
  t.equal(statusRefusal(withStatus(2, 2, 'InjectionFailed')), undefined, 'not a refusal');
  t.equal(statusRefusal(withStatus(2, 2, 'Injecting')), undefined);
  t.equal(statusRefusal(tool('a', { label: 'x=y', image: 'busybox' })), undefined, 'no status');
  const odd = withStatus(2, 2, 'AuthorNotAllowed');
  odd.status.conditions = [null, 'x', { type: 'Ready', status: 'False', reason: 7 }];
  t.equal(statusRefusal(odd), undefined, 'a malformed condition refuses nothing, and breaks nothing');
  odd.status.conditions = 'Ready';
  t.equal(statusRefusal(odd), undefined);
  const bare = withStatus(0, 0, 'AuthorNotAllowed');
  delete bare.metadata.generation;
  t.equal(statusRefusal(bare), 'AuthorNotAllowed', 'no generation is generation 0');

  // Tools the request shows refused by their status: the pod costs no API call, and asks no resync (two of them
  // would otherwise have the pod called again every second).
  const quiet = new FakeApi().put(pod('p', { app: 'web' }));
  const one = withStatus(1, 1, 'AuthorNotAllowed');
  const two = { ...withStatus(1, 1, 'ImageNotAllowed'), metadata: { ...one.metadata, name: 'b', uid: 'uid-b' } };
  quiet.put(one).put(two);
  t.same(await inject(quiet, ['dbg', 'p']), { attachments: [] });
  t.equal(quiet.gets.length + quiet.reviews.length + quiet.patches.length, 0, 'no API call');

  // A replica with an older, wider policy: the status written under the tightened one refuses the tool there too
  // (a request that shows the tool without that status yet: the tool is read again before the PATCH).
  const api = new FakeApi().put(pod('p', { app: 'web' }));
  const unrefused = tool('a', { label: 'app=web', image: 'busybox' });
  api.put(withStatus(1, 1, 'ImageNotAllowed'));
  await inject(api, ['dbg', 'p'], {}, injectorRequest(api, 'dbg', 'p', [unrefused]));
  t.ok(api.gets.length > 0, 'read again');
  t.equal(api.patches.length, 0, 'no PATCH');
  // A status of another generation than the tool's (observedGeneration 0): the injector decides for itself, and does.
  // (A tool past generation 1 has a spec changed since its creation, which no author is trusted with.)
  api.put(withStatus(1, 0, 'ImageNotAllowed'));
  await inject(api, ['dbg', 'p']);
  t.same(api.ephemeralNames('dbg', 'p'), ['debug-a']);
});

t.test(
  'the admission policy is read at every injection: removed, a stamp written by hand is not trusted a moment later',
  async (t) => {
    let clock = 0;
    const cache = new AuthorCache(() => clock);
    const { api } = rbac();
    api.put(tool('legit', { label: 'app=web', image: 'busybox' }, 'dbg', 'carol')).put(pod('p1', { app: 'web' }));
    await injectAll(api, 'dbg', { cache });
    t.same(api.ephemeralNames('dbg', 'p1'), ['debug-legit']);
    // The policy and its binding removed; a tool written with a stamp of the writer's choice, a second later.
    api.remove('MutatingAdmissionPolicyBinding', '', AUTHOR_POLICY);
    api.remove('MutatingAdmissionPolicy', '', AUTHOR_POLICY);
    clock = 1000;
    const forged = tool('forged', { label: 'app=db', image: 'busybox' }, 'dbg', null);
    forged.metadata.annotations = { [AUTHOR_ANNOTATION]: stamp('carol') };
    api
      .put(forged)
      .put(pod('p2', { app: 'db' }))
      .put(pod('p3', { app: 'web' }));
    for (let i = 0; i < 2; i++) await injectAll(api, 'dbg', { cache });
    t.same(
      api.ephemeralNames('dbg', 'p2'),
      [],
      "carol's answer remembered, but no stamp is trusted without the policy",
    );
    t.same(api.ephemeralNames('dbg', 'p3'), [], 'nor the stamps of tools from before');
    t.equal(api.patches.length, 1);
  },
);

t.test('the Ready condition alone binds the injector: another condition, or none, refuses nothing', async (t) => {
  const x = tool('a', { label: 'app=web', image: 'busybox' });
  x.status = {
    observedGeneration: 1,
    conditions: [
      { type: 'Other', status: 'False', reason: 'AuthorNotAllowed' },
      { type: 'Ready', status: 'True', reason: 'Injected' },
    ],
  };
  t.equal(statusRefusal(x), undefined, 'Ready=True');
  x.status.conditions = [{ type: 'Other', status: 'False', reason: 'AuthorNotAllowed' }];
  t.equal(statusRefusal(x), undefined, 'no Ready');
  x.status.conditions = [];
  t.equal(statusRefusal(x), undefined);
});

t.test('the refusal names the groups asked with: none, or the first five and how many more', async (t) => {
  const { api } = rbac();
  const asked = async (groups: string[]) => {
    const x = tool('a', { label: 'app=web', image: 'busybox' }, 'dbg', null);
    x.metadata.annotations = { [AUTHOR_ANNOTATION]: stamp('erin', groups) };
    api.put(x);
    const res = await status(api, ['dbg', 'a'], { now: later(60) });
    return ready(res).message as string;
  };
  t.equal(
    await asked([]),
    'its author erin may not patch pods/ephemeralcontainers in namespace dbg (asked of the API server now, with no groups stamped when the tool was created), and a tool does nothing its author could not do; nothing more is injected. Any debug-a added before stays (an ephemeral container cannot be removed; delete those pods to be rid of it); while the tool is refused its status counts and names no pod',
    'nothing counted: nothing said of pods',
  );
  t.match(
    await asked(['g1', 'g2', 'g3', 'g4', 'g5', 'g6', 'g7']),
    /with the groups g1, g2, g3, g4, g5 and 2 more stamped when/,
  );
  t.match(await asked(['g1', 'g2', 'g3', 'g4', 'g5']), /with the groups g1, g2, g3, g4, g5 stamped when/);
});

t.test('a refused tool counts no pod, the containers it added with an older image neither', async (t) => {
  const { api } = rbac();
  api.put(tool('a', { label: 'app=web', image: 'busybox:2' }, 'dbg', 'mallory'));
  api.put(pod('old', { app: 'web' }, { ephemeralContainers: [{ name: 'debug-a', image: 'busybox:1' }] }));
  api.put(pod('new', { app: 'web' }));
  const res = await status(api, ['dbg', 'a'], { now: later(60) });
  t.same(Object.keys(res.status!).sort(), ['conditions', 'containerName', 'observedGeneration'], 'no count, no pod');
  t.match(ready(res), {
    reason: 'AuthorNotAllowed',
    message: /nothing more is injected\. Any debug-a added before stays/,
  });
  t.equal(api.lists.length, 0, 'no pod read');
});

t.test('an answer from a clock that went back is not fresh: asked again', async (t) => {
  let clock = 10_000;
  const cache = new AuthorCache(() => clock);
  cache.remember('k', true);
  t.ok(cache.fresh(cache.answers.get('k')!.at));
  clock = 5_000;
  t.notOk(cache.fresh(cache.answers.get('k')!.at), 'an answer from the future');
  clock = 10_000 + AUTHOR_CACHE_MS - 1;
  t.ok(cache.fresh(cache.answers.get('k')!.at));
  // Remembered again, a key moves to the end: the oldest answers are the ones dropped at 1000.
  for (let i = 0; i < 999; i++) cache.remember(`x${i}`, true);
  cache.remember('k', false);
  cache.remember('y', true);
  t.ok(cache.answers.has('k'), 'the answer just heard is kept');
  t.notOk(cache.answers.has('x0'));
  t.equal(cache.answers.size, 1000);
});
