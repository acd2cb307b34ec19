// A SubjectAccessReview answers `allowed: false` for more than a refusal: an authorizer that could not decide (a
// webhook that timed out or erred) makes the API server answer no with an `evaluationError`, and no explicit
// `denied`. That no is the authorizer's error, not its decision: the injector records it on the pod as a failure
// (AuthorizerError), retried with the backoff of any failure and told on the tool; it is not remembered as the
// author's answer (the next review asks again); the tool's status says it could not tell, not that the author is
// refused. A no with `denied: true` is a refusal, whatever error came with it: nothing recorded, the pod asked about
// again later (RECHECK_FIRST_SECONDS), never injected on doubt.
import t from 'tap';
import { AuthorCache } from '../../hooks/podbuggertool/author.js';
import { RECHECK_FIRST_SECONDS } from '../../hooks/podbuggertool/inject.js';
import { FAILURES_ANNOTATION } from '../../hooks/podbuggertool/match.js';
import { FakeApi, injectAndApply, pod, status, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);
const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');

/** The fake API server, its reviews of the author's right answered by `answer` while it is set. */
function withReviews(answer: () => Record<string, unknown> | undefined) {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('p1', { app: 'web' }));
  const create = api.create.bind(api);
  api.create = async (...args: Parameters<FakeApi['create']>) => {
    const review: any = await create(...args);
    const given = answer();
    if (given && review.spec.resourceAttributes.verb === 'patch') review.status = given;
    return review;
  };
  return api;
}

t.test('an authorizer error is the pod failure AuthorizerError, retried; the next review asks again', async (t) => {
  let erring = true;
  const api = withReviews(() =>
    erring ? { allowed: false, evaluationError: 'webhook authorizer: context deadline exceeded' } : undefined,
  );
  let clock = FIXED_NOW.getTime();
  const cache = new AuthorCache(() => clock);
  const res = await injectAndApply(api, ['dbg', 'p1'], { cache, now: at(0) });
  t.same(api.ephemeralNames('dbg', 'p1'), [], 'nothing added while the authorizer cannot decide');
  t.match(res, {
    annotations: { [FAILURES_ANNOTATION]: /^\{"debug-a":"AuthorizerError;n=1;at=[0-9]+;k=[0-9a-f]{8}"\}$/ },
    resyncAfterSeconds: 30,
  });
  t.match(api.events, [{ reason: 'InjectionFailed', note: /AuthorizerError/ }], 'told on the tool');
  // The tool's status: not a refusal (the author is not said to be refused), an error the sync is retried for.
  const s = await status(api, ['dbg', 'a'], { cache, now: at(1) });
  t.match(ready(s), { status: 'False', reason: 'AuthorizerError' });
  t.not(ready(s).reason, 'AuthorNotAllowed');
  // The authorizer answers again: the retry when due, within the cache's time, asks again and adds the container.
  erring = false;
  clock = at(30).getTime();
  await injectAndApply(api, ['dbg', 'p1'], { cache, now: at(30) });
  t.same(api.ephemeralNames('dbg', 'p1'), ['debug-a'], 'added once the authorizer decides');
  t.equal(api.stored('Pod', 'dbg', 'p1').metadata.annotations?.[FAILURES_ANNOTATION], undefined, 'record gone');
});

t.test('a no with denied: true is a refusal: nothing recorded, asked about again later', async (t) => {
  let denying = true;
  const api = withReviews(() =>
    denying ? { allowed: false, denied: true, evaluationError: 'some other authorizer erred' } : undefined,
  );
  const cache = new AuthorCache(() => FIXED_NOW.getTime());
  const res = await injectAndApply(api, ['dbg', 'p1'], { cache, now: at(0) });
  t.same(api.ephemeralNames('dbg', 'p1'), []);
  t.same(res, { attachments: [], resyncAfterSeconds: RECHECK_FIRST_SECONDS }, 'nothing recorded; asked again');
  t.same(api.events, [], 'no failure told: the tool is refused, its status says so');
  const again = await injectAndApply(api, ['dbg', 'p1'], { cache: new AuthorCache(), now: at(RECHECK_FIRST_SECONDS) });
  t.equal(again.resyncAfterSeconds, 2 * RECHECK_FIRST_SECONDS, 'refused again: asked after twice as long');
  denying = false;
  await injectAndApply(api, ['dbg', 'p1'], { cache: new AuthorCache(), now: at(3 * RECHECK_FIRST_SECONDS) });
  t.same(api.ephemeralNames('dbg', 'p1'), ['debug-a'], 'the grant seen at the re-check');
});
