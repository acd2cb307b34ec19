// A pod is Ready only when its Ready condition says True (Kubernetes' podutil.IsPodReady): a condition status of
// Unknown, or any value other than "True", is not Ready. Every count of ready members (readyReplicas, PodSet's rollout,
// Degraded) reads isPodReady: a pod whose readiness nobody can vouch for never counts as serving.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { isPodReady } from '../../lib/objects.js';

const pod = (conditions: unknown[]): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'ns' },
    status: { phase: 'Running', conditions },
  }) as unknown as KubeObject;

t.test('Ready True is Ready', async (t) => {
  t.equal(isPodReady(pod([{ type: 'Ready', status: 'True' }])), true);
});

t.test('a Ready condition whose status is not True is not Ready', async (t) => {
  for (const status of ['Unknown', 'False', 'true', '', null, true, 1, undefined]) {
    t.equal(isPodReady(pod([{ type: 'Ready', status }])), false, `status ${JSON.stringify(status)}`);
  }
  t.equal(
    isPodReady(pod([{ type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown' }])),
    false,
    'its node stopped reporting: not known to serve',
  );
});
