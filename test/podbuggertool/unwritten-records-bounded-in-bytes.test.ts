// The injector remembers the failure record it answered for a pod while Metacontroller could not write it
// (hooks/podbuggertool/inject.ts UnwrittenRecords, up to MAX_UNWRITTEN_RECORDS pods), with the pod's failures
// annotation as it was (`seen`), to tell whether it was written since. That annotation is the pod's: anyone who may
// annotate the pod writes it, up to the API server's 256 KiB of annotations (a record longer than the injector ever
// writes is read as none, and the failing PATCH is recorded all the same). Each pod's entry must cost a bounded few
// bytes, not the annotation's length: 4,096 pods with 250 KB annotations would hold about 1 GB of the hook server's
// heap, for a tenant whose pods' records cannot be written (annotations at the limit, a controller in conflict).
import t from 'tap';
import { UnwrittenRecords, MAX_UNWRITTEN_RECORDS } from '../../hooks/podbuggertool/inject.js';
import type { KubeObject } from '../../lib/index.js';

const container = 'debug-tool';
const failure = { reason: 'Conflict', attempts: 1, at: 1_700_000_000, key: 'attempt-1' };
const asked = { attachments: [], annotations: { 'debug.metaops.dev/failures': 'x' } };

const pod = (i: number, annotation: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    namespace: 'tenant-a',
    name: `a-${i}`,
    uid: `uid-${i}`,
    annotations: { 'debug.metaops.dev/failures': annotation },
  },
});

t.test('an unwritten record costs a bounded size whatever the annotation it was seen with', async (t) => {
  const memory = new UnwrittenRecords();
  const huge = 'x'.repeat(250_000);
  const pods = 64;
  for (let i = 0; i < pods; i++) memory.keep(pod(i, `${huge}${i}`), new Map([[container, failure]]), asked);
  t.equal(memory.pods.size, pods, 'each pod is remembered');
  const held = JSON.stringify([...memory.pods].map(([k, v]) => [k, v.seen, [...v.record]])).length;
  const perPod = held / pods;
  t.ok(
    perPod <= 4096,
    `each pod's entry holds ${Math.round(perPod)} characters; at ${MAX_UNWRITTEN_RECORDS} pods, about ${Math.round((perPod * MAX_UNWRITTEN_RECORDS) / 2 ** 20)} MiB`,
  );
  // The memory still tells the record was not written while the annotation is as it was, and holds none once changed.
  const attempts = new Map([[container, 'attempt-1']]);
  t.ok(memory.take(pod(0, `${huge}0`), attempts), 'the annotation as it was: the record holds');
  t.equal(memory.take(pod(0, `${huge}!`), attempts), undefined, 'the annotation changed: the pod holds');
});
