// A pod on the new template proves it only once it has been Ready for spec.minReadySeconds. A pod cannot have been
// Ready before it existed: its creationTimestamp (the API server's clock) bounds its Ready condition's
// lastTransitionTime (the kubelet's clock). A node whose clock runs behind (here 60 s) writes a time that makes a pod
// created 2 s ago look Ready for a minute, and the rollout then replaces the next pod at once: a command that crashes
// seconds after it starts (what minReadySeconds is for, docs/podset.md) is rolled onto every pod.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { liveMember, planRollout } from '../../hooks/podset/rollout.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const legacy = { image: 'busybox', command: ['sleep', '3600'], minReadySeconds: 10 };
const at = (secondsBeforeNow: number) => new Date(FIXED_NOW.getTime() - secondsBeforeNow * 1000).toISOString();

function pod(name: string, hash: string, created: string, since: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', creationTimestamp: created, labels: { 'metaops.dev/template-hash': hash } },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: since }],
      containerStatuses: [{ name: 'busybox', ready: true, restartCount: 0 }],
    },
  };
}

t.test('a pod created 2 s ago, its node 60 s behind, has not stayed Ready for 10 s', async (t) => {
  const old = liveMember('a-0', pod('a-0', 'old', at(3600), at(3600)), 'new', legacy, FIXED_NOW);
  // Created 2 s ago (API server); Ready 1 s after creation, written by a kubelet 60 s behind: 61 s ago.
  const fresh = liveMember('a-1', pod('a-1', 'new', at(2), at(61)), 'new', legacy, FIXED_NOW);
  t.not(fresh.settling, undefined, 'a-1 still settling (at most 2 s Ready)');
  const plan = planRollout([old, fresh], 'new');
  t.equal(plan.replace, undefined, 'a-0 is not replaced yet');
});
