// The injector counts a repeated failure Event as a series (hooks/podbuggertool/inject.ts EventSeriesMemory: one
// memory of 1,024 Event names per server): a repeat within SERIES_PATCH_MS is counted quietly, a later one PATCHes the
// count. Tenant A, with many tools failing on its own pods (one Event name per tool, reason and ten minutes), must not
// push out tenant B's series, as the other memories of the hook server are kept per namespace: B's next repeat would
// then be POSTed again (409), its count written back to 2 after reaching more, and its quiet repeats each cost calls.
import t from 'tap';
import { EventSeriesMemory } from '../../hooks/podbuggertool/inject.js';

t.test("tenant A's 5,000 Event series do not push out tenant B's", async (t) => {
  const memory = new EventSeriesMemory();
  const now = Date.parse('2026-01-03T00:00:00Z');
  const b = 'tool-b.0123456789abcdef';
  memory.created('tenant-b', b);
  t.equal(memory.repeat('tenant-b', b, now), 'due', "B's first repeat is counted now");
  t.equal(memory.counted('tenant-b', b, now), 2);
  t.equal(memory.repeat('tenant-b', b, now + 1), 'quiet', "B's next repeat within 10 s is counted quietly");
  for (let i = 0; i < 5000; i++) memory.created('tenant-a', `tool-a-${i}.0123456789abcdef`);
  t.ok(memory.names.size <= 1024, `the memory stays bounded (${memory.names.size} names)`);
  t.equal(memory.repeat('tenant-b', b, now + 2), 'quiet', "B's series is still known: its repeat is counted quietly");
  t.equal(
    memory.counted('tenant-b', b, now + 20_000),
    4,
    "B's count goes on (created, then three repeats), not back to 2",
  );
});
