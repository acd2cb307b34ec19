// The heap the injector's memory of unwritten records (hooks/podbuggertool/inject.ts UnwrittenRecords) takes at
// MAX_UNWRITTEN_RECORDS pods, and what it holds of pods with more failing tools: each case fills a new memory with
// pods whose names (230 characters), UIDs and failures annotations (1 KB) are long, and measures the heap before and
// after (a full GC each time). Run: bash scripts/with-node.sh node --expose-gc --import tsx bench/unwritten-records.ts
// The figures are written in docs/podbuggertool.md (Failures).
import { MAX_UNWRITTEN_BYTES, MAX_UNWRITTEN_RECORDS, UnwrittenRecords } from '../hooks/podbuggertool/inject.js';
import type { Failure } from '../hooks/podbuggertool/match.js';
import type { KubeObject } from '../lib/index.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
/** A string of its own (the heap's measure is then the memory's, not that of flattening the pods' strings). */
const flat = (text: string) => Buffer.from(text, 'latin1').toString('latin1');
const asked = { attachments: [], annotations: { 'debug.metaops.dev/failures': 'x' } };

function measure(namespace: string, reasonChars: number, failures: number, pods = MAX_UNWRITTEN_RECORDS): void {
  const objects: KubeObject[] = Array.from({ length: pods }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      namespace,
      name: flat(`web-${'x'.repeat(220)}-${i}`),
      uid: flat(`6f1c2f0e-0000-4000-8000-${String(i).padStart(12, '0')}`),
      annotations: { 'debug.metaops.dev/failures': flat(`${'a'.repeat(1000)}${i}`) },
    },
  }));
  const records = objects.map(
    (_, i) =>
      new Map<string, Failure>(
        Array.from({ length: failures }, (_, j) => [
          `debug-tool-${j}`,
          {
            reason: flat(`${'R'.repeat(reasonChars - 1)}${i % 10}`),
            attempts: 3,
            at: 1_700_000_000 + i,
            key: `${j}`.padEnd(8, 'k'),
          },
        ]),
      ),
  );
  gc!();
  gc!();
  const before = process.memoryUsage().heapUsed;
  const memory = new UnwrittenRecords();
  for (let i = 0; i < pods; i++) memory.keep(objects[i]!, records[i]!, asked);
  gc!();
  gc!();
  const heap = process.memoryUsage().heapUsed - before;
  console.log(
    `namespace of ${namespace.length} characters, ${failures} failing tool(s) a pod (reasons of ${reasonChars}): ` +
      `${memory.pods.size} of ${pods} pods held, counted ${(memory.pods.weight / 2 ** 20).toFixed(2)} of ` +
      `${(MAX_UNWRITTEN_BYTES / 2 ** 20).toFixed(2)} MiB; heap ${(heap / 2 ** 20).toFixed(2)} MiB ` +
      `(${Math.round(heap / memory.pods.size)} bytes a pod; ${memory.pods.weight / memory.pods.size} counted)`,
  );
  // Kept alive until measured.
  if (objects.length + records.length < 0) console.log(memory);
}

console.log(`Node.js ${process.version}`);
measure('dbg', 9, 1);
measure('n'.repeat(63), 64, 1);
measure('dbg', 9, 4);
measure('dbg', 9, 65);
