// "40 tools at these bounds ... make a request of 5.5 MiB, and 6.7 MiB with the largest status the hook writes ...
// inside the hook server's 8 MiB body limit" (docs/podbuggertool.md, Bounds). The request is the pod too, and the
// pod grows with the very containers those tools add to it: each ephemeral container of a tool at its bounds
// (command, args and env at their maxima) is about 105 KB, and the API server keeps a pod of up to 1.5 MiB (etcd's
// request limit). A pod that took a dozen of the namespace's tools' containers, still one the API server stores and
// serves, puts the request past the body limit (413): no further tool reaches it, and the status of each says
// nothing of why.
// (Was: 40 tools, 8.05 MiB with that pod. TOOLS_PER_REQUEST is now 32, counted with the largest pod.)
import t from 'tap';
import { ephemeralContainer, matches, parser } from '../../hooks/podbuggertool/match.js';
import { TOOLS_PER_REQUEST } from '../../hooks/podbuggertool/schema.js';
import { MAX_LISTED } from '../../hooks/podbuggertool/sync.js';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import { asGoWritesIt, goJsonBytes } from '../../lib/go-json.js';
import { FakeApi, injectorRequest, pod, tool } from '../fixtures/pbt.js';
import { MAX_OBJECT_BYTES, WORST_SPECS } from '../fixtures/worst.js';
import { MAX_KUBELET_MESSAGE } from '../../hooks/podbuggertool/schema.js';
import { MAX_IMAGE_LENGTH } from '../../lib/schemas.js';
import { WORST_CHARACTER } from './largest.js';

const podName = (i: number) => `p${i}`.padEnd(253, 'x');

/** A tool at its CRD bounds, with the largest status the hook writes (as the existing bound's test builds it). */
function largest(name: string): any {
  const tl = tool(name.padEnd(253, 'n'), structuredClone(WORST_SPECS['podbuggertool']!), 'dbg', 'mallory');
  // Its image at its bound, of the character Go's encoding/json writes longest (no allowlist takes it: it is sent all
  // the same).
  tl.spec.image = WORST_CHARACTER.repeat(MAX_IMAGE_LENGTH);
  // The first failure with the kubelet's words at their bound (one a list), each character escaped in JSON.
  const failures = Array.from({ length: MAX_LISTED }, (_, i) => ({
    pod: podName(i),
    reason: i === 0 ? 'ContainerNotCreated' : 'Forbidden',
    ...(i === 0 ? { message: '<'.repeat(MAX_KUBELET_MESSAGE) } : {}),
  }));
  const skips = Array.from({ length: MAX_LISTED }, (_, i) => ({
    pod: podName(MAX_LISTED + i),
    reason: 'TargetContainerMissing',
  }));
  const counts = {
    matched: 2 * MAX_LISTED,
    injected: 0,
    outdated: 0,
    pending: 0,
    skipped: MAX_LISTED,
    failed: MAX_LISTED,
  };
  tl.status = {
    ...counts,
    failures,
    skips,
    countProgress: { generation: 1, continue: 'c'.repeat(4096), read: 100_000, ...counts, failures, skips },
    containerName: 'debug-x',
    countedAt: '2026-01-02T00:00:00Z',
    observedGeneration: 1,
    conditions: [{ type: 'Ready', status: 'False', reason: 'InjectionFailed', message: '<'.repeat(4096) }],
  };
  return tl;
}

t.test('the injector request of a pod carrying its tools’ containers, as the API server keeps it, fits', async (t) => {
  const api = new FakeApi();
  const tools = Array.from({ length: TOOLS_PER_REQUEST }, (_, i) => largest(`big-${i}`));
  for (const tl of tools) api.put(tl);
  const parsed = parser.parse(WORST_SPECS['podbuggertool']);
  if (!parsed.ok) throw new Error('spec');
  // The pod the tools select, carrying the containers they added to it, while the API server still stores it.
  const labels = (WORST_SPECS['podbuggertool'] as any).selector.matchLabels as Record<string, string>;
  const p = pod('web-1', labels, { containers: [{ name: 't'.repeat(63), image: 'nginx' }] });
  p.spec.ephemeralContainers = [];
  for (const tl of tools) {
    const c = ephemeralContainer(tl.metadata.name, parsed.spec, p);
    if (goJsonBytes(p) + goJsonBytes(c) > MAX_OBJECT_BYTES * 0.95) break;
    p.spec.ephemeralContainers.push(c);
  }
  t.ok(matches(parsed.spec, p), 'the tools select the pod');
  api.put(p);
  const carried = p.spec.ephemeralContainers.length;
  const bytes = Buffer.byteLength(asGoWritesIt(JSON.stringify(injectorRequest(api, 'dbg', 'web-1'))));
  t.ok(
    bytes < DEFAULT_BODY_LIMIT,
    `request as Metacontroller writes it: ${(bytes / 1024 / 1024).toFixed(2)} MiB for a pod of ${(goJsonBytes(p) / 1024 / 1024).toFixed(2)} MiB carrying ${carried} of its ${TOOLS_PER_REQUEST} tools' containers (limit ${(DEFAULT_BODY_LIMIT / 1024 / 1024).toFixed(0)} MiB)`,
  );
});

// Stricter: any pod the API server stores. Its request limit in etcd is 1.5 MiB; a pod grown to that size as JSON
// (annotations here; its tools' containers above), with TOOLS_PER_REQUEST tools at their bounds and largest statuses,
// still fits with room to spare, and a pod of 2 MiB as JSON still fits (the stored encoding, protobuf, is smaller
// than JSON: its field names are numbers). All as Metacontroller writes them (Go's encoding/json).
for (const mib of [1.5, 2]) {
  t.test(`a pod of ${mib} MiB as JSON and TOOLS_PER_REQUEST tools at their bounds fit`, async (t) => {
    const api = new FakeApi();
    for (let i = 0; i < TOOLS_PER_REQUEST; i++) api.put(largest(`big-${i}`));
    const labels = (WORST_SPECS['podbuggertool'] as any).selector.matchLabels as Record<string, string>;
    const p = pod('web-1'.padEnd(253, 'x'), labels);
    const room = mib * 1024 * 1024 - goJsonBytes(p);
    p.metadata.annotations = { 'example.com/blob': 'a'.repeat(room - 40) };
    api.put(p);
    const bytes = Buffer.byteLength(asGoWritesIt(JSON.stringify(injectorRequest(api, 'dbg', p.metadata.name))));
    t.comment(`request as Metacontroller writes it: ${(bytes / 1024 / 1024).toFixed(2)} MiB for a pod of ${mib} MiB`);
    t.ok(goJsonBytes(p) >= mib * 1024 * 1024 - 64, 'the pod is that large');
    if (mib <= 1.5) t.ok(bytes < DEFAULT_BODY_LIMIT * 0.95, 'within the body limit, with room to spare');
    else t.ok(bytes < DEFAULT_BODY_LIMIT, 'within the body limit');
  });
}
