// A tool's status is counted with the hook server's rights; it names pods only to an author who may list them
// (NAMES_RIGHT, a SubjectAccessReview of `list pods` in the tool's namespace). An author who may debug the namespace
// (patch pods/ephemeralcontainers) but not list its pods is told how many, and why, never which.
import t from 'tap';
import { FakeApi, pod, status, statusAndApply, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const ready = (res: { status?: Record<string, unknown> | null }) =>
  (res.status!['conditions'] as any[]).find((c) => c.type === 'Ready');

function world(mayList: boolean) {
  const api = new FakeApi();
  api.allowList = () => mayList;
  api.put(pod('payments-db-0', { tier: 'secret' }));
  api.put(pod('payments-db-1', { tier: 'secret' }));
  api.put(tool('probe', { label: 'tier', image: 'busybox', targetContainerName: 'none-has-this' }));
  return api;
}

t.test('an author who may debug but not list pods: counts and reasons, no pod named', async (t) => {
  const api = world(false);
  const res = await statusAndApply(api, ['dbg', 'probe']);
  t.match(res.status, {
    matched: 2,
    skipped: 2,
    skips: [
      { pod: '', reason: 'TargetContainerMissing' },
      { pod: '', reason: 'TargetContainerMissing' },
    ],
  });
  t.match(ready(res), {
    status: 'False',
    reason: 'TargetContainerMissing',
    message: 'spec.targetContainerName is not a container of 2 pods: those pods are skipped',
  });
  t.notOk(JSON.stringify(res.status).includes('payments-db'), 'no pod named');
  t.match(api.reviews.at(-1), { attributes: { verb: 'list', resource: 'pods', namespace: 'dbg' } });
  // At rest: the same status again (nothing written).
  const again = await status(api, ['dbg', 'probe'], { now: new Date(FIXED_NOW.getTime() + 60_000) });
  t.same(again.status, res.status, 'at rest the same');
});

t.test('an author who may list them too: named', async (t) => {
  const api = world(true);
  const res = await status(api, ['dbg', 'probe']);
  t.match(res.status, { skips: [{ pod: 'payments-db-0' }, { pod: 'payments-db-1' }] });
  t.match(ready(res).message, /payments-db-0, payments-db-1/);
});

t.test('the right to list pods revoked: the names go at the next count', async (t) => {
  const api = world(true);
  let may = true;
  api.allowList = () => may;
  await statusAndApply(api, ['dbg', 'probe']);
  may = false;
  const res = await statusAndApply(api, ['dbg', 'probe'], { now: new Date(FIXED_NOW.getTime() + 60_000) });
  t.notOk(JSON.stringify(res.status).includes('payments-db'), 'no pod named');
  t.match(res.status, { matched: 2, skipped: 2 });
});

t.test('failures without names say how many and why', async (t) => {
  const api = new FakeApi();
  api.allowList = () => false;
  api.put(tool('a', { label: 'app=web', image: 'busybox' }));
  for (const n of ['p1', 'p2', 'p3']) api.put(pod(n, { app: 'web' }, {}, 'dbg'));
  for (const [n, why] of [
    ['p1', 'Forbidden'],
    ['p2', 'Invalid'],
  ] as const) {
    const p = api.stored('Pod', 'dbg', n);
    p.metadata.annotations = { 'debug.metaops.dev/failures': JSON.stringify({ 'debug-a': why }) };
    api.put(p);
  }
  const res = await status(api, ['dbg', 'a']);
  t.match(res.status, { failed: 2, pending: 1, failures: [{ pod: '' }, { pod: '' }] });
  t.match(ready(res), {
    reason: 'InjectionFailed',
    message: /could not be added to 2 of 3 matching pods: 2 pods \(Forbidden, Invalid\);/,
  });
  t.notOk(/p1|p2|p3/.test(JSON.stringify(res.status)));
});
