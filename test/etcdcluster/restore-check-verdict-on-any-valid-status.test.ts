// A restore's check pod is observed data: its container statuses are the request's JSON, and valid JSON of any shape
// must be judged, never thrown on (the framework's rule, test/lib/framework-on-doubt.test.ts: a throw in a sync is a
// 500, and the cluster is never synced again while the pod is observed as it is). The verdict names how a step or the
// check ended, and why its pod waits, with `String(...)` of the container's reason or name, which throws on
// `{"toString": 1}`.
import t from 'tap';
import { failedInitStep } from '../../hooks/etcdcluster/plan/evidence.js';
import { checkVerdict } from '../../hooks/etcdcluster/restore.js';
import type { KubeObject } from '../../lib/metacontroller.js';

const odd = { toString: 1 };
const SINCE = '2026-01-01T00:00:00Z';

const checkPod = (status: Record<string, unknown>): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'e-restore-check' },
    status: { phase: 'Failed', ...status },
  }) as never;

const cases: Array<[string, KubeObject]> = [
  [
    'a step of its own killed (137) with a reason that is an object',
    checkPod({
      initContainerStatuses: [{ name: 'etcd-image', state: { terminated: { exitCode: 137, reason: odd } } }],
    }),
  ],
  [
    'a step of its own failed (1) with a reason that is an object',
    checkPod({ initContainerStatuses: [{ name: 'etcd-image', state: { terminated: { exitCode: 1, reason: odd } } }] }),
  ],
  [
    'the check killed (137) with a reason that is an object',
    checkPod({ containerStatuses: [{ name: 'check', state: { terminated: { exitCode: 137, reason: odd } } }] }),
  ],
  [
    'a container named by an object, waiting',
    checkPod({
      phase: 'Pending',
      containerStatuses: [{ name: odd, state: { waiting: { reason: 'ErrImagePull' } } }],
    }),
  ],
  [
    "an init container of a webhook's failed with a reason that is an object",
    checkPod({
      initContainerStatuses: [{ name: 'istio-validation', state: { terminated: { exitCode: 1, reason: odd } } }],
    }),
  ],
  [
    'its node refused it (a reason of its own) and a container status named by an object',
    checkPod({ reason: 'UnexpectedNodeRefusal', initContainerStatuses: [{ name: odd, state: { waiting: {} } }] }),
  ],
];

for (const [what, pod] of cases)
  t.test(`a check pod with ${what}: a verdict, within and past the deadline`, async (t) => {
    for (const now of ['2026-01-01T00:01:00Z', '2026-01-01T01:00:00Z']) {
      let verdict: unknown;
      t.doesNotThrow(() => (verdict = checkVerdict(pod, SINCE, new Date(now))), `at ${now}: judged`);
      t.match(verdict, { state: /^(again|failed|waiting)$/ }, `at ${now}: ${JSON.stringify(verdict)}`);
    }
  });

t.test('a restored member whose init container status is named by an object: its steps are judged', async (t) => {
  const member = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'e-3' },
    status: {
      phase: 'Pending',
      initContainerStatuses: [{ name: odd, state: { waiting: { reason: 'PodInitializing' } } }],
    },
  } as never as KubeObject;
  t.doesNotThrow(() => failedInitStep(member), 'judged: no failed step');
});
