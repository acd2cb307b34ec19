// The hook server remembers, between syncs, the counts at rest that a sync cut short (sync.ts CountMemory): where the
// next sync goes on from, and since when the counts of a tool have not completed (after COUNT_STALE_MS the status says
// CountStale). That memory is one per hook server, shared by every namespace, and bounded by one number of entries
// for all of them, the oldest dropped first. A tenant whose own namespace makes counts cut short (many pods, or a few
// pods too large for a page) and who holds more tools than that bound pushes every other namespace's entries out:
// another tenant's count then starts again from the first page at every sync (it never completes) and its clock of
// "not completed since" starts again too (its status never says CountStale: Ready=True with stale counts for ever).
// What one namespace remembers must not be dropped for what another remembers (a bound per namespace, or one that
// drops the namespace's own entries first).
import t from 'tap';
import { COUNT_STALE_MS, CountMemory, MAX_REMEMBERED } from '../../hooks/podbuggertool/sync.js';
import type { CountProgress } from '../../hooks/podbuggertool/sync.js';

// The key sync.ts gives a tool's counts: [namespace, name, uid, generation].
const keyOf = (namespace: string, name: string) => JSON.stringify([namespace, name, `uid-${namespace}-${name}`, 1]);

const progress = (read: number) =>
  ({
    generation: 1,
    continue: `token-${read}`,
    read,
    injected: 0,
    pending: 0,
    failed: 0,
    skipped: 0,
    failures: [],
    skips: [],
  }) as unknown as CountProgress;

// Far past the server-wide bound (MAX_REMEMBERED, 1000 today).
const TENANT_A_TOOLS = 4096;

t.test("another namespace's tools do not push out a namespace's remembered count", async (t) => {
  const now = 1_000_000;
  const memory = new CountMemory(() => now);
  const victim = keyOf('tenant-b', 'debug');
  memory.keep(victim, progress(250));
  t.ok(memory.take(victim), "tenant B's progress is remembered");

  // Tenant A's many tools, each with a count cut short at rest, within the same minute.
  for (let i = 0; i < TENANT_A_TOOLS; i++) memory.keep(keyOf('tenant-a', `tool-${i}`), progress(1));

  const kept = memory.take(victim);
  t.ok(kept, "tenant B's count goes on from where it was, whatever tenant A's tools remember");
  t.equal(kept?.read, 250, 'from the page it had reached');
});

t.test("another namespace's tools do not restart a namespace's clock of counts not completed", async (t) => {
  let now = 1_000_000;
  const memory = new CountMemory(() => now);
  const victim = keyOf('tenant-b', 'debug');
  const since = memory.incompleteSince(victim, now);
  t.equal(since, now);

  now += COUNT_STALE_MS / 2;
  for (let i = 0; i < TENANT_A_TOOLS; i++) memory.incompleteSince(keyOf('tenant-a', `tool-${i}`), now);

  now += COUNT_STALE_MS / 2;
  t.equal(
    memory.incompleteSince(victim, now),
    since,
    "tenant B's counts have not completed since the first cut (its status says CountStale on time)",
  );
});

t.test('the memory stays bounded over all namespaces, each keeping its share', async (t) => {
  const memory = new CountMemory(() => 1_000_000);
  // Ten namespaces of many tools, then an eleventh of one: the bound holds, and each keeps a tenth or so.
  for (let ns = 0; ns < 10; ns++)
    for (let i = 0; i < MAX_REMEMBERED; i++) memory.keep(keyOf(`ns-${ns}`, `tool-${i}`), progress(i));
  t.ok(memory.counts.size <= MAX_REMEMBERED, `at most ${MAX_REMEMBERED} remembered (${memory.counts.size})`);
  for (let ns = 0; ns < 10; ns++)
    t.ok(
      memory.counts.held(`ns-${ns}`) >= MAX_REMEMBERED / 11,
      `ns-${ns} keeps its share: ${memory.counts.held(`ns-${ns}`)}`,
    );
  memory.keep(keyOf('late', 'debug'), progress(7));
  t.equal(memory.take(keyOf('late', 'debug'))?.read, 7, 'a namespace that comes last is remembered too');
  t.ok(memory.counts.size <= MAX_REMEMBERED);
  // Its own newest entries are kept: a namespace past its share drops its own oldest.
  t.equal(memory.take(keyOf('ns-9', `tool-${MAX_REMEMBERED - 1}`))?.read, MAX_REMEMBERED - 1);
  t.equal(memory.take(keyOf('ns-9', 'tool-0')), undefined, 'its oldest went first');
});
