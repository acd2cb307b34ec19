// An injection makes its API calls one after another (the pod and the tool, then the admission policy, then the
// author's SubjectAccessReview, then the PATCH), and none starts past the work budget (3.5 s): what is not reached is
// left to the next call, a second later, with nothing recorded (`later`). An API server that answers each call in
// about 2 s (slow, under the client's 3 s deadline: an overloaded control plane) never lets one injection reach its
// PATCH. Then every pending pod is called about again every second, each call costing four reads, forever: no
// backoff (a failure would back off from 30 s to an hour), nothing recorded on the pod, no event, and the tool's
// status says "Injecting ... pending" without a reason, while the hooks add load to the API server that is slow.
import t from 'tap';
import { FakeApi, injectAndApply, pod, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('an API server too slow for an injection to finish: the retries back off, and the pod says why', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  // At scale: a work budget of 100 ms for 3.5 s, and every call answered in 60 ms for 2.1 s.
  const get = api.get.bind(api);
  api.get = async (...args) => {
    await sleep(60);
    return get(...args);
  };
  const create = api.create.bind(api);
  api.create = async (...args) => {
    await sleep(60);
    return create(...args);
  };
  const asked: Array<number | undefined> = [];
  let now = FIXED_NOW.getTime();
  for (let i = 0; i < 10; i++) {
    const res = await injectAndApply(api, ['dbg', 'web-1'], { budgetMs: 100, now: new Date(now) });
    asked.push(res.resyncAfterSeconds);
    now += (res.resyncAfterSeconds ?? 60) * 1000;
  }
  t.comment(`resyncs asked: ${asked.join(', ')}; reads: ${api.gets.length}; PATCHes: ${api.patches.length}`);
  const annotations = api.stored('Pod', 'dbg', 'web-1').metadata.annotations ?? {};
  t.ok(
    asked.some((s) => s !== undefined && s > 1),
    'the calls come back less often when no injection can finish (a backoff)',
  );
  t.ok(
    Object.keys(annotations).length > 0 || api.events.length > 0,
    'the pod or an event says the injection could not finish in time',
  );
});

t.test(
  "out of time: the tool's status names the pod and the reason; once the server is quick, it is added",
  async (t) => {
    const { statusAndApply } = await import('../fixtures/pbt.js');
    const { KubeError } = await import('../../lib/kube.js');
    const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
    // Only the author's review is slow: the budget is spent there (the author check's own OutOfTime).
    const create = api.create.bind(api);
    let slow = true;
    api.create = async (...args) => {
      if (slow) await sleep(150);
      return create(...args);
    };
    const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);
    const first = await injectAndApply(api, ['dbg', 'web-1'], { budgetMs: 100, now: at(0) });
    t.equal(first.resyncAfterSeconds, 1, 'the first retry a second later');
    t.equal(api.patches.length, 0);
    t.equal(api.events.length, 0, 'no event: the API server is slow, and the pod says why');
    const res = await statusAndApply(api, ['dbg', 'a'], { now: at(0) });
    t.match(res.status, { failed: 1, failures: [{ pod: 'web-1', reason: 'OutOfTime' }] }, "the tool's status says why");
    const again = await injectAndApply(api, ['dbg', 'web-1'], { budgetMs: 100, now: at(1) });
    t.equal(again.resyncAfterSeconds, 2, 'then 2 s');
    // The server quick again: the retry when due (at 1 + 2 s) adds the container, and the record goes.
    slow = false;
    const before = api.gets.length;
    t.same(await injectAndApply(api, ['dbg', 'web-1'], { budgetMs: 100, now: at(1) }), {
      attachments: [],
      resyncAfterSeconds: 2,
    });
    t.equal(api.gets.length, before, 'nothing read before it is due');
    const done = await injectAndApply(api, ['dbg', 'web-1'], { budgetMs: 100, now: at(3) });
    t.same(api.ephemeralNames('dbg', 'web-1'), ['debug-a']);
    t.same(done, { attachments: [], annotations: { 'debug.metaops.dev/failures': null } });
    // A conflict (the pod changed since it was read) is no failure: a second later, nothing recorded.
    const other = new FakeApi()
      .put(tool('a', { label: 'app=web', image: 'busybox' }))
      .put(pod('web-2', { app: 'web' }));
    other.failPatch = new KubeError(409, 'changed', 'Conflict');
    t.same(await injectAndApply(other, ['dbg', 'web-2']), { attachments: [], resyncAfterSeconds: 1 });
  },
);
