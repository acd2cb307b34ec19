// docs/operating.md (Events) and docs/podbuggertool.md (Who may debug): a tool's Ready condition that takes a reason
// keeping it from acting everywhere is told as a Warning Event on the tool, so `kubectl describe pbt` shows it. A
// tool whose author may patch only some of the pods it selects, by name (AuthorAllowedOnSomePods), injects nowhere
// else: it is such a reason. The Event is told once, when the condition takes the reason: the same status at the
// next syncs tells nothing more.
import t from 'tap';
import { PER_POD } from '../../hooks/podbuggertool/author.js';
import { KubeEventRecorder } from '../../lib/events.js';
import { status, statusAndApply, webAndVaultAllowedByName } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');

t.test('allowed on some pods by name: a Warning Event on the tool, once', async (t) => {
  const api = webAndVaultAllowedByName();
  const events = new KubeEventRecorder(() => api);
  const res = await statusAndApply(api, ['dbg', 'a'], { events });
  t.match(
    res.status!['conditions'],
    [{ type: 'Ready', status: 'False', reason: PER_POD }],
    'the status says so (the condition of the Event)',
  );
  t.equal(api.events.length, 1, 'one Event');
  t.match(api.events[0], {
    type: 'Warning',
    reason: PER_POD,
    regarding: { kind: 'PodBuggerTool', namespace: 'dbg', name: 'a' },
    note: /^Ready: its author may not patch pods\/ephemeralcontainers in namespace dbg as a whole/,
  });
  t.notOk(/web-1|vault-0/.test(api.events[0]!.note), 'the Event names no pod, as the status does not');

  // At rest: the same status, at every sync, and in later ten-minute buckets: nothing more is told.
  for (let minute = 1; minute <= 30; minute++) {
    const again = await statusAndApply(api, ['dbg', 'a'], {
      events,
      now: new Date(FIXED_NOW.getTime() + minute * 60_000),
    });
    t.equal(ready(again).reason, PER_POD);
  }
  t.equal(api.events.length, 1, 'no new Event while the status stays as it is');
});

t.test('from AuthorAllowedOnSomePods to refused and back: one Event per change', async (t) => {
  const names = ['web-1'];
  const api = webAndVaultAllowedByName(names);
  const events = new KubeEventRecorder(() => api);
  await statusAndApply(api, ['dbg', 'a'], { events });
  // The grant on web-1 revoked: refused on every pod.
  names.length = 0;
  const refused = await statusAndApply(api, ['dbg', 'a'], { events, now: new Date(FIXED_NOW.getTime() + 60_000) });
  t.equal(ready(refused).reason, 'AuthorNotAllowed');
  names.push('web-1');
  const back = await status(api, ['dbg', 'a'], { events, now: new Date(FIXED_NOW.getTime() + 120_000) });
  t.equal(ready(back).reason, PER_POD);
  t.same(
    api.events.map((e) => `${e.type} ${e.reason}`),
    [`Warning ${PER_POD}`, 'Warning AuthorNotAllowed', `Warning ${PER_POD}`],
  );
});
