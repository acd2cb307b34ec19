// "50 tools at these bounds (253-character names) make a request of 6.9 MiB, inside the hook server's 8 MiB body
// limit ... where tenants write PodBuggerTools, give their namespaces a ResourceQuota (count/podbuggertools...: 50)"
// (docs/podbuggertool.md, Bounds). The injector's request carries each tool whole, its status too, and a tool's
// status is the hook's own writing, bounded by the hook: up to 100 `failures` and 100 `skips`, each naming a pod (a
// pod name has up to 253 characters, chosen by whoever creates pods in the namespace). The bound counts the spec and
// not the status: 50 tools within their CRD bounds, each with the status the hook writes for pods it skips and fails
// on, put every injector request of the namespace past the body limit (413), and no tool's container reaches any pod
// there: the ResourceQuota the docs give does not keep the namespace's injection working.
import t from 'tap';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import { asGoWritesIt } from '../../lib/go-json.js';
import {
  MAX_LISTED_PODS,
  PodBuggerToolStatus,
  SKIP_REASONS,
  TOOLS_PER_REQUEST,
} from '../../hooks/podbuggertool/schema.js';
import { MAX_LISTED } from '../../hooks/podbuggertool/sync.js';
import { WORST_SPECS } from '../fixtures/worst.js';
import { FAILURES_ANNOTATION } from '../../hooks/podbuggertool/match.js';
import { FakeApi, injectorRequest, pod, status, statusAndApply, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

/** A tool at its CRD bounds, with the status the hook writes when it skips and fails on pods of long names. */
function largest(name: string): any {
  const tl = tool(name.padEnd(253, 'n'), structuredClone(WORST_SPECS['podbuggertool']!), 'dbg', 'mallory');
  const podName = (i: number) => `p${i}`.padEnd(253, 'x');
  tl.status = {
    matched: 2 * MAX_LISTED,
    injected: 0,
    outdated: 0,
    pending: 0,
    skipped: MAX_LISTED,
    failed: MAX_LISTED,
    notRunning: 0,
    failures: Array.from({ length: MAX_LISTED }, (_, i) => ({ pod: podName(i), reason: 'Forbidden' })),
    skips: Array.from({ length: MAX_LISTED }, (_, i) => ({
      pod: podName(MAX_LISTED + i),
      reason: 'TargetContainerMissing',
    })),
    // The skips by reason: one count for each of the fixed reasons, the largest a count can be.
    skippedBy: Object.fromEntries(SKIP_REASONS.map((r) => [r, Number.MAX_SAFE_INTEGER])),
    containerName: 'debug-x',
    countedAt: '2026-01-02T00:00:00Z',
    observedGeneration: 1,
    conditions: [{ type: 'Ready', status: 'False', reason: 'InjectionFailed', message: '<'.repeat(1500) }],
  };
  return tl;
}

t.test('TOOLS_PER_REQUEST tools at their bounds, with the status the hook writes, fit in one request', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  for (let i = 0; i < TOOLS_PER_REQUEST; i++) api.put(largest(`big-${i}`));
  const bytes = Buffer.byteLength(asGoWritesIt(JSON.stringify(injectorRequest(api, 'dbg', 'web-1'))));
  t.ok(
    bytes < DEFAULT_BODY_LIMIT,
    `request as Metacontroller writes it: ${(bytes / 1024 / 1024).toFixed(2)} MiB for one pod and ${TOOLS_PER_REQUEST + 1} tools (limit ${(DEFAULT_BODY_LIMIT / 1024 / 1024).toFixed(0)} MiB)`,
  );
});

// Stricter: the largest status the hook can write has a count in progress too (countProgress, with its own lists and
// the API server's continue token at its 4096-character bound), and Ready's longest message.
t.test('TOOLS_PER_REQUEST tools at their bounds, with the largest status the hook writes, fit with room', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  for (let i = 0; i < TOOLS_PER_REQUEST; i++) {
    const tl = largest(`big-${i}`);
    const { failures, skips, skippedBy } = tl.status;
    tl.status.countProgress = {
      generation: 1,
      continue: 'c'.repeat(4096),
      read: 100_000,
      matched: 2 * MAX_LISTED,
      injected: 0,
      outdated: 0,
      pending: 0,
      skipped: MAX_LISTED,
      failed: MAX_LISTED,
      notRunning: 0,
      failures,
      skips,
      skippedBy,
    };
    tl.status.conditions[0].message = '<'.repeat(4096);
    api.put(tl);
  }
  const bytes = Buffer.byteLength(asGoWritesIt(JSON.stringify(injectorRequest(api, 'dbg', 'web-1'))));
  t.comment(`request as Metacontroller writes it: ${(bytes / 1024 / 1024).toFixed(2)} MiB`);
  t.ok(bytes < DEFAULT_BODY_LIMIT * 0.95, 'within the body limit, with room to spare');
});

t.test('the status lists no more pods than MAX_LISTED, as its CRD says', async (t) => {
  t.equal(MAX_LISTED, MAX_LISTED_PODS);
  const lists = (PodBuggerToolStatus.properties as any).failures;
  t.equal(lists.maxItems, MAX_LISTED);
});

// The upgrade: a status written by the version that listed 100 pods is never written back with more than MAX_LISTED
// (the CRD now refuses more), even when the status is held as it was (the echo of its own write).
t.test('a status of an earlier version, listing more pods, is answered with MAX_LISTED at most', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  for (let i = 0; i < MAX_LISTED + 5; i++) {
    api.put(pod(`f${String(i).padStart(3, '0')}`, { app: 'web' }));
    api.annotate('dbg', `f${String(i).padStart(3, '0')}`, { [FAILURES_ANNOTATION]: '{"debug-a":"Forbidden"}' });
  }
  const first = await statusAndApply(api, ['dbg', 'a']);
  t.equal((first.status as any).failures.length, MAX_LISTED);
  const stored = api.stored('PodBuggerTool', 'dbg', 'a');
  stored.status.failures = Array.from({ length: 100 }, (_, i) => ({
    pod: `f${String(i).padStart(3, '0')}`,
    reason: 'Forbidden',
  }));
  api.put(stored);
  const held = await status(api, ['dbg', 'a'], { now: new Date(FIXED_NOW.getTime() + 5000) });
  t.ok((held.status as any).failures.length <= MAX_LISTED, `held: ${(held.status as any).failures.length} listed`);
});
