// Member pods carry no ServiceAccount token from now on (automountServiceAccountToken: false, issue 29), but a pod's
// spec cannot change in place: members made by an earlier metaops (with the token) must be answered as they were
// made, never rolled or refused for it; only new members go without the token.
import t from 'tap';
import { decide } from '../../hooks/etcdcluster/plan.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { etcdHealthy, etcdParent, etcdPod, etcdSpec } from '../fixtures/etcd.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test('running members made with a token are answered as made; a new member carries none', async (t) => {
  const made = (i: number): KubeObject => {
    const p = etcdPod(i) as any;
    delete p.spec.automountServiceAccountToken;
    return p;
  };
  const obs = { ...etcdHealthy(3), pods: [0, 1, 2].map(made), now: FIXED_NOW };
  const d = decide(etcdParent({ size: 4 }, { phase: 'Running' }), etcdSpec({ size: 4 }), obs);
  const answered = new Map(d.pods.map((p) => [p.metadata.name!, p]));
  for (const i of [0, 1, 2]) {
    const { status: _s, ...expected } = made(i) as any;
    t.same(answered.get(`e-${i}`)?.['spec'], expected.spec, `e-${i}: its pod spec as it was made (no roll)`);
  }
  const added = d.pods.find((p) => !['e-0', 'e-1', 'e-2'].includes(p.metadata.name!));
  t.ok(added, 'a member is added');
  t.equal((added!['spec'] as any).automountServiceAccountToken, false, 'the new one carries no token');
});
