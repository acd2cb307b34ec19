// A PATCH refused for good (Pod Security refusing the container, RBAC missing in the namespace) is retried with a
// backoff, from 30 s to an hour: "a PATCH the API server refuses for good costs a pod one attempt an hour, not one
// every 30 s" (docs/podbuggertool.md, Failures). The backoff's only memory is the pod's record, an annotation
// Metacontroller writes from the injector's answer with an Update of the pod. When that Update is refused (the
// tenant's pod holds annotations up to the API server's 256 KiB, an admission policy refuses updates of pods, a
// conflict Metacontroller drops), nothing is recorded: each call finds no record, sends the PATCH again, and asks to
// be called again in 30 s, for as long as the pod lives. (Conflicts in a row are remembered by the hook server when
// nothing is recorded, CONFLICTS_UNRECORDED: a failure whose record cannot be written must back off too.)
import t from 'tap';
import { KubeError } from '../../lib/kube.js';
import { FakeApi, inject, pod, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);

t.test('a failing PATCH whose record Metacontroller cannot write is not retried every 30 s', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  api.failPatch = new KubeError(403, 'violates PodSecurity "restricted:latest"', 'Forbidden');
  // Metacontroller: the pod called about again when the injector asks; its answer's annotation never written.
  let s = 0;
  let calls = 0;
  let recorded = true;
  while (s <= 3600 && calls < 1000) {
    const res = await inject(api, ['dbg', 'web-1'], { now: at(s) });
    calls++;
    recorded &&= Boolean(res.annotations?.['debug.metaops.dev/failures']);
    if (res.resyncAfterSeconds === undefined) break;
    s += Math.max(1, res.resyncAfterSeconds);
  }
  t.ok(recorded, 'every answer records the failure (which Metacontroller could not write)');
  t.ok(
    api.patches.length <= 12,
    `PATCHes refused for good in an hour: ${api.patches.length}; backing off from 30 s to an hour sends 7 or 8`,
  );
});
