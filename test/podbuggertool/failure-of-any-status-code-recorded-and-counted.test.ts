// docs/podbuggertool.md (Failures): a PATCH that fails is "recorded on the pod (debug.metaops.dev/failures, a stable
// reason ...), counted in the tool's failed and failures, retried with a backoff" (30 s doubling to an hour), and a
// call before the retry is due makes no API call. The reason of a failed call is the API server's Status reason, or,
// when the answer carries none (a proxy, a load balancer or an aggregated server in front of the API server answering
// 408, 413, 421... in HTML), one made of the HTTP status (lib/kube.ts reasonOf: `HTTP408`). Whatever the reason, the
// record the injector writes must be one it reads back: otherwise the retry never backs off (attempt 1 at every call)
// and the tool's status counts the pod as pending, never failed.
import t from 'tap';
import { KubeError } from '../../lib/kube.js';
import { FakeApi, injectAndApply, pod, statusAndApply, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);

function world(): FakeApi {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  // A proxy in front of the API server times the PATCH out: 408, an HTML body, no Status reason.
  api.failPatch = new KubeError(
    408,
    'PATCH /api/v1/namespaces/dbg/pods/web-1/ephemeralcontainers: 408 Request Timeout',
  );
  return api;
}

t.test('a PATCH failed with a status code of no known reason is retried with the backoff', async (t) => {
  const api = world();
  const first = await injectAndApply(api, ['dbg', 'web-1'], { now: at(0) });
  t.equal(api.patches.length, 1);
  t.equal(first.resyncAfterSeconds, 30, 'retried in 30 s');
  // Called again before the retry is due (the annotation's own write, a pod event): no API call.
  const gets = api.gets.length;
  await injectAndApply(api, ['dbg', 'web-1'], { now: at(2) });
  t.equal(api.patches.length, 1, 'no PATCH before the retry is due');
  t.equal(api.gets.length, gets, 'nothing read before the retry is due');
  // The retries back off: 30 s, then 60 s.
  const second = await injectAndApply(api, ['dbg', 'web-1'], { now: at(30) });
  t.equal(second.resyncAfterSeconds, 60, 'the second failure in a row waits twice as long');
});

t.test("a PATCH failed with a status code of no known reason is counted failed in the tool's status", async (t) => {
  const api = world();
  await injectAndApply(api, ['dbg', 'web-1'], { now: at(0) });
  const res = await statusAndApply(api, ['dbg', 'a'], { now: at(1) });
  const status = res.status as any;
  t.match(status, { matched: 1, failed: 1, pending: 0 }, 'failed, not pending');
  t.match(
    status.conditions.find((c: any) => c.type === 'Ready'),
    { status: 'False', reason: 'InjectionFailed' },
  );
});
