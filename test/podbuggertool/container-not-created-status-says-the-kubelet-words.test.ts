// A debug container the kubelet cannot create or start (CreateContainerError, RunContainerError) is failed `ContainerNotCreated` in the tool's status, with
// the kubelet's reason and words on the first such pod (bounded, the runtime's IDs written <id> so that the status
// stays the same from one attempt to the next), and Ready says so; it heals when the kubelet reports it running.
import t from 'tap';
import { MAX_KUBELET_MESSAGE } from '../../hooks/podbuggertool/schema.js';
import { ANY, FakeApi, injectAll, pod, statusAndApply, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const later = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);

function world(state: Record<string, unknown>, names = ['p1', 'p2']) {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'ghcr.io/org/debug-tools:1' }));
  for (const n of names) api.put(pod(n, { app: 'web' }));
  return {
    api,
    report: (s: Record<string, unknown>) => {
      for (const n of names) {
        const p = api.stored('Pod', 'dbg', n);
        p.status.ephemeralContainerStatuses = [
          { name: 'debug-a', image: 'x', ready: false, restartCount: 0, state: s },
        ];
        api.put(p);
      }
    },
    state,
  };
}

for (const [reason, message] of [
  ['CreateContainerError', 'failed to generate container "0123456789abcdef0123" spec: no command specified'],
  ['RunContainerError', 'exec: "bash": executable file not found in $PATH'],
] as const)
  t.test(`${reason}: failed ContainerNotCreated, with the kubelet's words`, async (t) => {
    const w = world({ waiting: { reason, message } });
    await injectAll(w.api, 'dbg', { policy: ANY });
    w.report(w.state);
    const res = await statusAndApply(w.api, ['dbg', 'a'], { policy: ANY, now: later(60) });
    const status = res.status!;
    t.equal(status['failed'], 2);
    t.equal(status['injected'], 0);
    const failures = status['failures'] as any[];
    t.same(
      failures.map((f) => f.reason),
      ['ContainerNotCreated', 'ContainerNotCreated'],
    );
    const words = `${reason}: ${message.replace('0123456789abcdef0123', '<id>')}`;
    t.equal(failures[0].message, words, 'the kubelet reason and words, the ID written <id>');
    t.notOk('message' in failures[1], 'one message a list');
    const ready = (status['conditions'] as any[]).find((c) => c.type === 'Ready');
    t.match(ready, { status: 'False', reason: 'ContainerNotRunning' });
    t.ok(ready.message.includes(`the kubelet on p1: ${words}`), ready.message);
    // Another attempt, another runtime ID: the same status.
    w.report({ waiting: { reason, message: message.replace('0123456789abcdef0123', 'fedcba9876543210fedc') } });
    const again = await statusAndApply(w.api, ['dbg', 'a'], { policy: ANY, now: later(120) });
    t.same(again.status!['failures'], status['failures'], 'unchanged from one attempt to the next');
    // Running after all: injected.
    w.report({ running: { startedAt: '2026-01-02T00:00:00Z' } });
    const healed = await statusAndApply(w.api, ['dbg', 'a'], { policy: ANY, now: later(180) });
    t.equal(healed.status!['injected'], 2);
  });

t.test("the kubelet's words are bounded and printable", async (t) => {
  const w = world({ waiting: { reason: 'CreateContainerError', message: `\u0000é${'x'.repeat(10_000)}` } }, ['p1']);
  await injectAll(w.api, 'dbg', { policy: ANY });
  w.report(w.state);
  const res = await statusAndApply(w.api, ['dbg', 'a'], { policy: ANY, now: later(60) });
  const message = (res.status!['failures'] as any[])[0].message as string;
  t.equal(message.length, MAX_KUBELET_MESSAGE);
  t.match(message, /^CreateContainerError: {2}\?x+\.\.\.$/, 'a control character a space, é a ?');
});
