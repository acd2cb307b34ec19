// An author whom RBAC allows to patch pods/ephemeralcontainers on one pod by name (resourceNames) may debug that pod
// by hand, wherever it comes in the API server's order of the pods the tool selects. The tool's status asks about the
// pods by name a bounded number at each sync (MAX_PROBED_PODS) and goes on at the next sync where the last one
// stopped, until it finds one the author may patch (AuthorAllowedOnSomePods) or has asked about them all
// (AuthorNotAllowed). Meanwhile the tool stays as it was (refused: nothing is injected anywhere on doubt), and its
// status is not rewritten at each step (every write of a tool wakes every pod of its namespace).
import t from 'tap';
import { MAX_PROBED_PODS, PER_POD } from '../../hooks/podbuggertool/author.js';
import { REFRESH_SECONDS } from '../../hooks/podbuggertool/sync.js';
import { KubeError } from '../../lib/kube.js';
import { allowedByName, FakeApi, injectAll, pod, statusAndApply, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const PODS = 3 * MAX_PROBED_PODS + 5;
const name = (i: number) => `web-${String(i).padStart(3, '0')}`;
const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');

function world(names: string[]): FakeApi {
  const api = allowedByName(new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })), names);
  for (let i = 0; i < PODS; i++) api.put(pod(name(i), { app: 'web' }));
  return api;
}

/** One sync of the tool's status, `seconds` after FIXED_NOW, and what it asked by name. */
async function sync(api: FakeApi, seconds: number) {
  const from = api.reviews.length;
  const lists = api.lists.length;
  const res = await statusAndApply(api, ['dbg', 'a'], { now: new Date(FIXED_NOW.getTime() + seconds * 1000) });
  const named = api.reviews.slice(from).filter((r) => r.attributes['name'] !== undefined);
  return { res, named: named.length, lists: api.lists.slice(lists) };
}

t.test('allowed by name on a pod past the first MAX_PROBED_PODS: found within a bounded number of syncs', async (t) => {
  const late = name(PODS - 2);
  const api = world([late]);
  const syncs = Math.ceil(PODS / MAX_PROBED_PODS);
  const statuses: string[] = [];
  let found = -1;
  for (let i = 0; i < syncs && found < 0; i++) {
    const { res, named, lists } = await sync(api, i * REFRESH_SECONDS);
    t.ok(named <= MAX_PROBED_PODS, `sync ${i}: ${named} reviews by name, at most ${MAX_PROBED_PODS}`);
    t.ok(
      lists.every((l) => l.options.limit <= MAX_PROBED_PODS),
      `sync ${i}: pages of at most ${MAX_PROBED_PODS} pods`,
    );
    if (ready(res).reason === PER_POD) found = i;
    else {
      t.match(ready(res), { status: 'False', reason: 'AuthorNotAllowed' }, `sync ${i}: refused while asking on`);
      t.equal(res.resyncAfterSeconds, REFRESH_SECONDS, `sync ${i}: the next page asked for in ${REFRESH_SECONDS}s`);
      statuses.push(JSON.stringify(res.status));
      // Nothing injected anywhere while the tool is refused: the pods not asked about yet get nothing.
      await injectAll(api, 'dbg');
      t.equal(api.patches.length, 0, `sync ${i}: nothing injected`);
    }
  }
  t.equal(found, syncs - 1, `found at the sync that reached ${late}`);
  t.equal(new Set(statuses).size, 1, 'the same refused status at every step: not rewritten');

  await injectAll(api, 'dbg');
  t.same(api.ephemeralNames('dbg', late), ['debug-a'], 'the pod the author may patch gets the container');
  t.equal(api.patches.length, 1, 'and no other pod');

  // At rest: the pod found is asked about again (the grant may go), and nothing else.
  const { res, named } = await sync(api, 600);
  t.equal(ready(res).reason, PER_POD);
  t.equal(named, 1, 'one review by name at rest');
});

t.test('refused on every pod: AuthorNotAllowed after a pass over them all, bounded per sync', async (t) => {
  const api = world([]);
  let seconds = 0;
  const before = api.reviews.length;
  for (let i = 0; i < Math.ceil(PODS / MAX_PROBED_PODS) + 2; i++, seconds += REFRESH_SECONDS) {
    const { res, named } = await sync(api, seconds);
    t.ok(named <= MAX_PROBED_PODS, `sync ${i}: ${named} reviews by name`);
    t.match(ready(res), { status: 'False', reason: 'AuthorNotAllowed' });
    t.notOk('matched' in res.status!, 'nothing counted');
  }
  const asked = new Set(
    api.reviews
      .slice(before)
      .map((r) => r.attributes['name'])
      .filter((n) => n !== undefined),
  );
  t.equal(asked.size, PODS, 'every pod the tool selects asked about by name, once the pass is over');
  await injectAll(api, 'dbg');
  t.equal(api.patches.length, 0, 'nothing injected');
});

t.test('a grant by name on a late pod after a pass found none: found by a later pass', async (t) => {
  const names: string[] = [];
  const api = world(names);
  let seconds = 0;
  const syncs = Math.ceil(PODS / MAX_PROBED_PODS);
  for (let i = 0; i < syncs; i++, seconds += REFRESH_SECONDS) await sync(api, seconds);
  names.push(name(PODS - 1));
  let reason = '';
  for (let i = 0; i < syncs + 1 && reason !== PER_POD; i++, seconds += 60)
    reason = ready((await sync(api, seconds)).res).reason;
  t.equal(reason, PER_POD, 'found');
  await injectAll(api, 'dbg');
  t.same(api.ephemeralNames('dbg', name(PODS - 1)), ['debug-a']);
  t.equal(api.patches.length, 1);
});

t.test('AuthorAllowedOnSomePods is kept while the pass looks for the pod again (a restarted server)', async (t) => {
  const late = name(PODS - 2);
  const api = world([late]);
  let seconds = 0;
  for (let i = 0; i < Math.ceil(PODS / MAX_PROBED_PODS); i++, seconds += REFRESH_SECONDS) await sync(api, seconds);
  t.equal(ready(api.stored('PodBuggerTool', 'dbg', 'a')).reason, PER_POD);
  const stored = JSON.stringify(api.stored('PodBuggerTool', 'dbg', 'a').status);
  // Another server (a restart: it remembers nothing of the pass), on the same API server.
  const restarted = Object.create(api) as FakeApi;
  for (let i = 0; i < Math.ceil(PODS / MAX_PROBED_PODS); i++, seconds += REFRESH_SECONDS) {
    const from = api.reviews.length;
    const res = await statusAndApply(restarted, ['dbg', 'a'], { now: new Date(FIXED_NOW.getTime() + seconds * 1000) });
    t.equal(ready(res).reason, PER_POD, `sync ${i}: still ${PER_POD}`);
    t.ok(api.reviews.slice(from).filter((r) => r.attributes['name'] !== undefined).length <= MAX_PROBED_PODS);
  }
  t.equal(JSON.stringify(api.stored('PodBuggerTool', 'dbg', 'a').status), stored, 'the status as it was');
});

t.test('once a pass has ended, the next ones go at the resync: no sync is asked for sooner', async (t) => {
  const api = world([]);
  let seconds = 0;
  const syncs = Math.ceil(PODS / MAX_PROBED_PODS);
  for (let i = 0; i < syncs; i++, seconds += REFRESH_SECONDS) await sync(api, seconds);
  for (let i = 0; i < syncs; i++, seconds += 60) {
    const { res, named } = await sync(api, seconds);
    t.equal(res.resyncAfterSeconds, undefined, `sync ${i} of the second pass: at the resync`);
    t.ok(named <= MAX_PROBED_PODS);
  }
});

t.test('the pod found goes: asked about by the next passes, and refused once none is left', async (t) => {
  const late = name(PODS - 2);
  const api = world([late]);
  let seconds = 0;
  const syncs = Math.ceil(PODS / MAX_PROBED_PODS);
  for (let i = 0; i < syncs; i++, seconds += REFRESH_SECONDS) await sync(api, seconds);
  t.equal(ready(api.stored('PodBuggerTool', 'dbg', 'a')).reason, PER_POD);
  api.remove('Pod', 'dbg', late);
  const reasons: string[] = [];
  for (let i = 0; i < syncs; i++, seconds += REFRESH_SECONDS)
    reasons.push(ready((await sync(api, seconds)).res).reason);
  t.same(
    reasons,
    [...Array<string>(syncs - 1).fill(PER_POD), 'AuthorNotAllowed'],
    'kept while the pass looks, refused when it has asked about every pod',
  );
  // Relabelled out of the tool's selection: the same as gone.
  const other = world([late]);
  for (let i = 0; i < syncs; i++, seconds += REFRESH_SECONDS) await sync(other, seconds);
  other.put({
    ...other.stored('Pod', 'dbg', late),
    metadata: { ...other.stored('Pod', 'dbg', late).metadata, labels: { app: 'db' } },
  });
  for (let i = 0; i < syncs; i++, seconds += REFRESH_SECONDS) await sync(other, seconds);
  t.equal(ready(other.stored('PodBuggerTool', 'dbg', 'a')).reason, 'AuthorNotAllowed');
});

t.test('a page the API server no longer serves (410): the pass begins again from the first page', async (t) => {
  const late = name(PODS - 2);
  const api = world([late]);
  const list = api.list.bind(api);
  let expire = true;
  api.list = async (apiVersion, resource, ns, options) => {
    if (options.continue && expire) {
      expire = false;
      api.lists.push({ ns, options: { ...options } });
      throw new KubeError(410, 'the provided continue parameter is too old', 'Expired');
    }
    return list(apiVersion, resource, ns, options);
  };
  let seconds = 0;
  let reason = '';
  const syncs = Math.ceil(PODS / MAX_PROBED_PODS);
  for (let i = 0; i < syncs + 1 && reason !== PER_POD; i++, seconds += REFRESH_SECONDS) {
    const { res, named } = await sync(api, seconds);
    t.ok(named <= MAX_PROBED_PODS);
    reason = ready(res).reason;
  }
  t.equal(reason, PER_POD, 'found, one sync later');
  t.equal(api.lists.filter((l) => l.options.continue === undefined).length, 2, 'the first page read twice');
});

t.test('the API server failing during a pass: the status stays as it was, nothing is injected', async (t) => {
  const late = name(PODS - 2);
  const api = world([late]);
  let seconds = 0;
  await sync(api, seconds);
  const stored = JSON.stringify(api.stored('PodBuggerTool', 'dbg', 'a').status);
  api.failList = new KubeError(503, 'unavailable', 'ServiceUnavailable');
  for (let i = 0; i < 3; i++, seconds += REFRESH_SECONDS) {
    const { res } = await sync(api, seconds + REFRESH_SECONDS);
    t.match(ready(res), { reason: 'AuthorNotAllowed' });
  }
  t.equal(JSON.stringify(api.stored('PodBuggerTool', 'dbg', 'a').status), stored, 'not rewritten');
  await injectAll(api, 'dbg');
  t.equal(api.patches.length, 0);
  // Back: the pass goes on from where it stood.
  api.failList = undefined;
  const lists = api.lists.length;
  let reason = '';
  for (let i = 0; i < 4 && reason !== PER_POD; i++, seconds += REFRESH_SECONDS)
    reason = ready((await sync(api, seconds + REFRESH_SECONDS)).res).reason;
  t.equal(reason, PER_POD);
  t.equal(
    api.lists.slice(lists).filter((l) => l.options.continue === undefined).length,
    0,
    'the first page not read again',
  );
});
