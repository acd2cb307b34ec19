// "Quiet at rest, bounded always: every fan-out, answer and field has a bound" (GUIDE). A failed PATCH is told as an
// events.k8s.io Warning on the tool "once per new failure" (docs/podbuggertool.md, Failures), and the event's name
// hashes the pod: a tool that fails for one reason on every pod it selects (a namespace the hook server may not
// patch in: Forbidden) writes one Event per pod, all about the same tool and the same reason. At 4,000 selected pods
// (the size) that is 4,000 Event writes, and `kubectl describe pbt` lists them all; each recreated pod (a
// rollout) adds more. The count of pods is in the status already (failed, failures): the Events about one tool and
// one reason should not grow with the pods.
import t from 'tap';
import { KubeError } from '../lib/kube.js';
import { FakeApi, injectAll, pod, tool } from './fixtures/pbt.js';

const PODS = 500;
const BOUND = 10;

t.test('a tool failing for one reason on many pods writes a bounded number of Events', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  for (let i = 0; i < PODS; i++) api.put(pod(`web-${i}`, { app: 'web' }));
  api.failPatch = new KubeError(403, 'pods is forbidden: User "system:serviceaccount:metaops:metaops"', 'Forbidden');
  await injectAll(api, 'dbg');
  t.equal(api.patches.length, PODS, 'every pod was tried once');
  const about = new Set(api.events.map((e) => `${e.regarding.name}/${e.reason}`));
  t.same([...about], ['a/InjectionFailed'], 'one tool, one reason');
  t.ok(
    api.events.length <= BOUND,
    `Events written about one tool and one reason: ${api.events.length} (at most ${BOUND} wanted)`,
  );
});
