// A PATCH refused because the pod changed since it was read (409 Conflict) is tried again a second later, and is
// no failure: nothing is recorded. Once, that is right (a pod's status changes as its containers start). But a pod
// that changes between every read and its PATCH (another controller annotating it in a loop, a tenant doing so on
// purpose, a kubelet reporting a flapping probe) makes that one retry a second for as long as it lasts: each costs
// the pod and the tool read again, the admission policy and its binding read again, and a PATCH (five API calls a
// second for one pod, for ever, and as many again for each such pod), and the tool's status only says "pending".
// Every other retry of the injector backs off (30 s doubling to an hour; OutOfTime from 1 s doubling): so must
// conflicts that come in a row.
import t from 'tap';
import { KubeError } from '../../lib/kube.js';
import { FakeApi, injectAndApply, pod, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);

t.test('a pod that changes before every PATCH is not tried every second for ten minutes', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  api.failPatch = new KubeError(409, 'the object has been modified', 'Conflict');
  // Metacontroller: the pod called about again when the injector asked for it, or when its answer changed the pod.
  let due = 0;
  let version = api.stored('Pod', 'dbg', 'web-1').metadata.resourceVersion;
  for (let s = 0; s <= 600; s++) {
    const changed = api.stored('Pod', 'dbg', 'web-1').metadata.resourceVersion !== version;
    if (s < due && !changed) continue;
    const res = await injectAndApply(api, ['dbg', 'web-1'], { now: at(s) });
    version = api.stored('Pod', 'dbg', 'web-1').metadata.resourceVersion;
    due = res.resyncAfterSeconds !== undefined ? s + Math.max(1, res.resyncAfterSeconds) : Infinity;
  }
  t.ok(
    api.patches.length <= 30,
    `PATCHes sent in ten minutes of conflicts: ${api.patches.length} (API calls: ${api.gets.length} reads and ${api.patches.length} PATCHes); retries that back off send a few dozen at most`,
  );
});
