// A SubjectAccessReview answers `allowed: false` for more than a revoked binding: a webhook authorizer that times
// out or errs makes the API server answer `allowed: false` with an `evaluationError` (not an HTTP error), for that
// one review. When the injector hears such a "no" about a pod (and the tool's status, counting at another moment,
// does not), it answers that pod with nothing: nothing recorded, no call back asked for. The DecoratorController has
// no resync, so Metacontroller calls about that pod again only when the pod changes or a tool of its namespace does;
// the tool's status does not change either (the pod was pending before and is pending still: the same counts, the
// same status, nothing written). The pod waits, without its container, for ever: `Injecting, 1 pending` at every
// count, though the author may debug it and nothing fails.
//
// Metacontroller is played here as it runs: the injector is called about the pod when the tool's status (written by
// its own hook) changes, when its own answer changed the pod, and when the resync it asked for is due.
import t from 'tap';
import { AuthorCache } from '../../hooks/podbuggertool/author.js';
import { FakeApi, inject, pod, statusAndApply, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);

t.test('a pod the author was refused for a moment gets the container once the author is allowed again', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('p1', { app: 'web' }));
  let clock = FIXED_NOW.getTime();
  const cache = new AuthorCache(() => clock);
  let flaky = false;
  api.allow = () => !flaky;

  // The tool is counted: its author may debug the namespace, p1 is pending.
  await statusAndApply(api, ['dbg', 'a'], { cache, now: at(0) });
  const ready0 = (api.stored('PodBuggerTool', 'dbg', 'a').status.conditions as any[]).find((c) => c.type === 'Ready');
  t.match(ready0, { status: 'False', reason: 'Injecting' });

  // The status write wakes p1; the authorizer errs for the reviews of that one call.
  flaky = true;
  let res = await inject(api, ['dbg', 'p1'], { cache, now: at(1) });
  api.annotate('dbg', 'p1', res.annotations ?? undefined);
  flaky = false;
  t.same(api.ephemeralNames('dbg', 'p1'), [], 'nothing added while the authorizer said no');
  let due = res.resyncAfterSeconds !== undefined ? 1 + res.resyncAfterSeconds : Infinity;
  let podVersion = api.stored('Pod', 'dbg', 'p1').metadata.resourceVersion;

  // Ten minutes of Metacontroller: the tool's resyncs and refreshes; the injector when something wakes p1.
  for (let s = 12; s <= 600 && api.ephemeralNames('dbg', 'p1').length === 0; s += 1) {
    clock = at(s).getTime();
    let wake = s >= due;
    if (s % 10 === 2) {
      const before = JSON.stringify(api.stored('PodBuggerTool', 'dbg', 'a').status);
      await statusAndApply(api, ['dbg', 'a'], { cache, now: at(s) });
      if (JSON.stringify(api.stored('PodBuggerTool', 'dbg', 'a').status) !== before) wake = true;
    }
    if (api.stored('Pod', 'dbg', 'p1').metadata.resourceVersion !== podVersion) wake = true;
    if (!wake) continue;
    res = await inject(api, ['dbg', 'p1'], { cache, now: at(s) });
    api.annotate('dbg', 'p1', res.annotations ?? undefined);
    podVersion = api.stored('Pod', 'dbg', 'p1').metadata.resourceVersion;
    due = res.resyncAfterSeconds !== undefined ? s + res.resyncAfterSeconds : Infinity;
  }
  const ready = (api.stored('PodBuggerTool', 'dbg', 'a').status.conditions as any[]).find((c) => c.type === 'Ready');
  t.same(
    api.ephemeralNames('dbg', 'p1'),
    ['debug-a'],
    `p1 gets debug-a within ten minutes of the authorizer answering again (the tool says: ${ready.reason}: ${ready.message})`,
  );
});
