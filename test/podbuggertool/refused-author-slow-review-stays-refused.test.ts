// A tool whose author may not debug its namespace is refused (AuthorNotAllowed): its status counts no pod, and the
// injector skips it from the request alone (statusRefusal). docs/podbuggertool.md (Who may debug; "Meanwhile the
// status stays as it was"): an answer that could not be had in time changes nothing, and a refused tool stays
// refused: "anything else stays refused, so a pod not asked about yet gets nothing, on doubt".
//
// A slow API server (a webhook authorizer answering reviews in a couple of seconds, each within the client's 3 s) can
// spend the sync's 4 s budget on the review that refuses the author: the second review (may the author list pods?)
// is then not asked. That unanswered question must not turn the refusal into a count: the status must stay
// AuthorNotAllowed, not become CountIncomplete (which is no refusal: every pod of the namespace is woken by the
// status's change, a Warning Event is sent for each flip, and the injector acts on the tool again).
import t from 'tap';
import { COUNT_BUDGET_MS } from '../../hooks/podbuggertool/sync.js';
import { FakeApi, pod, statusAndApply, tool } from '../fixtures/pbt.js';

t.test('a refused author stays refused when the review that refuses them takes the sync budget', async (t) => {
  const api = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }))
    .put(pod('web-1', { app: 'web' }))
    .put(pod('web-2', { app: 'web' }));
  api.allow = () => false;
  const first = await statusAndApply(api, ['dbg', 'a']);
  t.match((first.status as any).conditions[0], { status: 'False', reason: 'AuthorNotAllowed' });
  t.notOk('matched' in (first.status as any), 'a refused tool counts no pod');

  // The same API server, now slow: the review of pods/ephemeralcontainers answers after the sync's budget is spent
  // (the hooks' clock is performance.now(); moved forward as the review answers, instead of waiting for real).
  const realNow = performance.now.bind(performance);
  let skew = 0;
  t.teardown(() => {
    performance.now = realNow;
  });
  performance.now = () => realNow() + skew;
  const create = api.create.bind(api);
  api.create = async (apiVersion: string, resource: string, ns: string, body: any) => {
    const answer = await create(apiVersion, resource, ns, body);
    if (body.spec?.resourceAttributes?.subresource === 'ephemeralcontainers') skew += COUNT_BUDGET_MS + 500;
    return answer;
  };
  const second = await statusAndApply(api, ['dbg', 'a']);
  const ready = (second.status as any).conditions.find((c: any) => c.type === 'Ready');
  t.match(ready, { status: 'False', reason: 'AuthorNotAllowed' }, 'still refused');
  t.notOk('matched' in (second.status as any), 'still no count');
});
