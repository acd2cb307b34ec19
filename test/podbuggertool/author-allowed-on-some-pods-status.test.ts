// An author whom RBAC allows on some pods by name only (resourceNames) is refused a review that names no pod: the
// tool's status asks about the pods it selects by name (MAX_PROBED_PODS a sync), and says AuthorAllowedOnSomePods,
// which is no refusal: the injector then asks about each pod by name. What it tells the author, and what it costs:
// - the status counts and names no pod (the author may not be told about pods they may not patch);
// - a pod the author may not patch is that pod's failure (AuthorNotAllowed, recorded, retried with the backoff);
// - an author refused on every pod stays refused (AuthorNotAllowed), and the status asks at most MAX_PROBED_PODS
//   reviews by name at a sync, however many pods the tool selects (the next sync goes on from there:
//   author-allowed-by-name-beyond-first-pods.test.ts).
import t from 'tap';
import { MAX_PROBED_PODS, PER_POD } from '../../hooks/podbuggertool/author.js';
import { statusRefusal } from '../../hooks/podbuggertool/inject.js';
import { FAILURES_ANNOTATION } from '../../hooks/podbuggertool/match.js';
import {
  allowedByName,
  FakeApi,
  injectAll,
  pod,
  status,
  statusAndApply,
  tool,
  webAndVaultAllowedByName,
} from '../fixtures/pbt.js';

const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');

t.test('allowed on some pods by name: the status says so, and counts and names no pod', async (t) => {
  const api = webAndVaultAllowedByName();
  const res = await statusAndApply(api, ['dbg', 'a']);
  t.match(ready(res), { status: 'False', reason: PER_POD });
  const text = JSON.stringify(res.status);
  for (const name of ['web-1', 'vault-0']) t.notOk(text.includes(name), `no pod named: ${name}`);
  for (const field of ['matched', 'injected', 'pending', 'failed', 'failures', 'skips'])
    t.notOk(field in res.status!, `no ${field}`);
  t.equal(statusRefusal(api.stored('PodBuggerTool', 'dbg', 'a')), undefined, 'not a refusal: the injector acts');

  await injectAll(api, 'dbg');
  t.same(api.ephemeralNames('dbg', 'web-1'), ['debug-a']);
  t.same(api.ephemeralNames('dbg', 'vault-0'), []);
  t.match(
    api.stored('Pod', 'dbg', 'vault-0').metadata.annotations,
    { [FAILURES_ANNOTATION]: /AuthorNotAllowed/ },
    "vault-0's failure, recorded (retried with the backoff, not at every call)",
  );
  t.equal(api.patches.length, 1, 'one PATCH: web-1');
});

t.test('refused on every pod: still AuthorNotAllowed, after at most MAX_PROBED_PODS reviews by name', async (t) => {
  const api = allowedByName(new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })), []);
  for (let i = 0; i < 3 * MAX_PROBED_PODS; i++) api.put(pod(`web-${String(i).padStart(3, '0')}`, { app: 'web' }));
  const res = await status(api, ['dbg', 'a']);
  t.match(ready(res), { status: 'False', reason: 'AuthorNotAllowed' });
  t.notOk('matched' in res.status!, 'nothing counted');
  const named = api.reviews.filter((r) => r.attributes['name'] !== undefined);
  t.ok(named.length > 0, 'asked by name');
  t.ok(named.length <= MAX_PROBED_PODS, `${named.length} reviews by name, at most ${MAX_PROBED_PODS}`);
  t.ok(
    api.lists.every((l) => l.options.limit <= MAX_PROBED_PODS),
    'one page of at most MAX_PROBED_PODS pods read',
  );
  t.notOk(JSON.stringify(res.status).includes('web-0'), 'no pod named');
});

t.test('allowed by name on a pod the tool does not select: refused', async (t) => {
  const api = allowedByName(
    new FakeApi()
      .put(tool('a', { label: 'app=web', image: 'busybox' }))
      .put(pod('web-1', { app: 'web' }))
      .put(pod('db-0', { app: 'db' })),
    ['db-0'],
  );
  t.match(ready(await statusAndApply(api, ['dbg', 'a'])), { reason: 'AuthorNotAllowed' });
  await injectAll(api, 'dbg');
  t.equal(api.patches.length, 0, 'nothing added anywhere');
});
