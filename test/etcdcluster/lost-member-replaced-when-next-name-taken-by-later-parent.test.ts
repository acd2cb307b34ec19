// Issue 31: two parents want one child name, and "the first keeps working, the second says why it does not".
// EtcdCluster `web-pod` runs three members, web-pod-0..2 (ordinals only grow: its next member is web-pod-3). PodSet
// `web` is made after it, of size 4: its pods are web-pod-<i>. The PodSet is held on web-pod-0..2 (the cluster's),
// but its pods are independent children, so it makes web-pod-3 at once: nobody holds that name yet. From then on,
// the EtcdCluster cannot replace a member: the first member it loses (a node gone) is removed from etcd, and the
// replacement it wants is web-pod-3, which the PodSet holds; the cluster is held (PodNameTaken) at 2 of 3 members,
// for as long as the PodSet exists, and a second loss is the end of quorum. Its advice is to rename the EtcdCluster,
// which a running cluster cannot do. A member's name need only be new (any ordinal above the last one given out):
// the cluster that was there first goes on with a name nobody holds.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
// Every kind defined, as in the server: the PodSet holder is judged by its own definition (lib/podholders.ts).
import '../../main/operators.js';
import { running } from '../fixtures/etcd-loop.js';
import { PODSET_API, podsetWeb } from '../fixtures/pod-name-holders.js';

const ready = (s: any) => (s.conditions ?? []).find((c: any) => c.type === 'Ready');

/** PodSet web's pod web-pod-<i>, running. */
function podsetPod(i: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `web-pod-${i}`,
      namespace: 'ns',
      uid: `uid-podset-web-pod-${i}`,
      labels: { 'app.kubernetes.io/name': 'podset', 'app.kubernetes.io/instance': 'web', app: 'web' },
      ownerReferences: [{ apiVersion: PODSET_API, kind: 'PodSet', name: 'web', uid: 'uid-web', controller: true }],
    },
    status: { phase: 'Running' },
  } as unknown as KubeObject;
}

t.test('an EtcdCluster whose next member name a later PodSet took still replaces a lost member', async (t) => {
  const loop = await running({ size: 3 }, 'web-pod');
  t.same(loop.pods(), ['web-pod-0', 'web-pod-1', 'web-pod-2'], 'the cluster runs three members');
  // PodSet web, made later, holds web-pod-3 (free when it made it).
  loop.related.push(podsetWeb, podsetPod(3));
  // Member web-pod-2's pod is lost (its node is gone).
  loop.lose('web-pod-2');
  for (let i = 0; i < 8; i++) {
    loop.now = new Date(loop.now.getTime() + 60_000);
    await loop.step();
  }
  const r = ready(loop.s());
  t.comment(`etcd calls: ${loop.etcd.calls.join(', ')}; Ready: ${JSON.stringify(r)}`);
  t.notOk(
    loop.children.some((c) => c.kind === 'Pod' && c.metadata.name === 'web-pod-3'),
    "the PodSet's pod web-pod-3 is never answered as a member",
  );
  t.ok(
    loop.etcd.calls.some((c) => c.startsWith('add ') && c !== 'add web-pod-3'),
    'a member is added under a name nobody holds',
  );
  t.equal(loop.pods().length, 3, 'the cluster is back to three member pods');
  t.not(r?.reason, 'PodNameTaken', 'the cluster that was there first is not held by a name it has not used yet');
});
