// The injector remembers the failure record it answered for a pod while Metacontroller could not write it
// (hooks/podbuggertool/inject.ts UnwrittenRecords: the backoff's second memory, MAX_UNWRITTEN_RECORDS over the whole
// server). Tenant A, with a tool over a few thousand of its own pods whose records cannot be written (annotations at
// the API server's 256 KiB, an admission policy refusing pod updates in A's namespace), must not push out tenant B's
// record: B's pod would then retry its failing PATCH at once at every call, its backoff (30 s to an hour) lost, as the
// other memories of the hook server (RunMemory, the author answers, the counts) are kept per namespace.
import t from 'tap';
import { UnwrittenRecords, MAX_UNWRITTEN_RECORDS } from '../../hooks/podbuggertool/inject.js';
import type { KubeObject } from '../../lib/index.js';

const pod = (namespace: string, name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { namespace, name, uid: `${namespace}-${name}-uid` },
});

const container = 'debug-tool';
const attempts = new Map([[container, 'attempt-1']]);
const failure = { reason: 'Forbidden', attempts: 3, at: 1_700_000_000, key: 'attempt-1' };
const asked = { attachments: [], annotations: { 'debug.metaops.dev/failures': 'x' } };

t.test("tenant A's 5,000 unwritten records do not push out tenant B's", async (t) => {
  const memory = new UnwrittenRecords();
  const b = pod('tenant-b', 'b-0');
  memory.keep(b, new Map([[container, failure]]), asked);
  t.same(memory.take(b, attempts)?.get(container), failure, "B's record is remembered");
  for (let i = 0; i < 5000; i++) memory.keep(pod('tenant-a', `a-${i}`), new Map([[container, failure]]), asked);
  t.ok(memory.pods.size <= MAX_UNWRITTEN_RECORDS, `the memory stays bounded (${memory.pods.size} pods)`);
  t.same(
    memory.take(b, attempts)?.get(container),
    failure,
    "B's record is still remembered: its failing PATCH keeps backing off",
  );
  t.ok(memory.take(pod('tenant-a', 'a-4999'), attempts), "A's newest record is remembered too");
});
