// The injector remembers runs of one outcome in a row by pod and attempt (hooks/podbuggertool/inject.ts RunMemory: a
// conflict retried unrecorded CONFLICTS_UNRECORDED times, then recorded and backed off; a refusal of the author
// re-checked after RECHECK_FIRST_SECONDS, then twice as long each time). One memory of 1,024 runs serves every
// namespace: tenant A, with a tool over a PodSet of a few thousand pods in its own namespace, each of them refused or
// in conflict, must not push out tenant B's runs, or B's pods start each run again from one (a refused author's pods
// re-checked every 10 s for ever instead of backing off, a conflict never recorded).
import t from 'tap';
import { RunMemory } from '../../hooks/podbuggertool/inject.js';

const run = (namespace: string, pod: string) => JSON.stringify([namespace, pod, 'attempt-1']);

t.test("tenant A's 5,000 pods in runs do not push out tenant B's run", async (t) => {
  const memory = new RunMemory(60_000);
  const now = Date.parse('2026-01-03T00:00:00Z');
  t.equal(memory.add(run('tenant-b', 'b-0'), now), 1);
  t.equal(memory.add(run('tenant-b', 'b-0'), now + 1), 2, "B's pod: its second in a row");
  for (let i = 0; i < 5000; i++) memory.add(run('tenant-a', `a-${i}`), now + 2);
  t.ok(memory.runs.size <= 1024, `the memory stays bounded (${memory.runs.size} runs)`);
  t.equal(memory.add(run('tenant-b', 'b-0'), now + 3), 3, "B's run goes on: its third in a row, not a new run");
  // A keeps a share of its own, its newest runs.
  t.equal(memory.add(run('tenant-a', 'a-4999'), now + 4), 2, "A's newest run is remembered too");
});
