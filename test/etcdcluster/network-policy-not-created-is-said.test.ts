// Metacontroller creates each child on its own and tells the hook nothing when a create fails: where the members'
// NetworkPolicy is never created (a Metacontroller without rights on networkpolicies, an admission policy, a quota),
// its members run the tenant's image without it. They are kept, and new ones made as before (a lost member's
// replacement is not held over a policy), but the status says so: NetworkPolicyCreated=False, CreatingNetworkPolicy
// at first and NetworkPolicyNotCreated (a Warning Event) once it is still absent 60 s after it was first missed. A
// cluster that has its policy, or none of whose members runs yet, or whose server turns the policy off, says nothing.
import t from 'tap';
import { ETCDCLUSTER_EVENTS } from '../../hooks/etcdcluster/events.js';
import { POLICY_ABSENT_SECONDS } from '../../hooks/etcdcluster/network.js';
import { FakeEtcd, Loop, running } from '../fixtures/etcd-loop.js';

const policyCondition = (loop: Loop) =>
  ((loop.s()?.conditions ?? []) as any[]).find((c) => c.type === 'NetworkPolicyCreated');
const dropPolicy = (loop: Loop) => (loop.children = loop.children.filter((c) => c.kind !== 'NetworkPolicy'));

t.test('a NetworkPolicy never created is said, then called not created after the grace; members kept', async (t) => {
  const loop = new Loop({ size: 3 }, new FakeEtcd('e'));
  await loop.step();
  t.equal(policyCondition(loop), undefined, 'the first answer (nothing observed yet) says nothing');
  dropPolicy(loop);
  await loop.step();
  dropPolicy(loop);
  t.match(policyCondition(loop), {
    status: 'False',
    reason: 'CreatingNetworkPolicy',
    message: /NetworkPolicy e-members .*member pod\(s\) run without it/,
  });
  const since = policyCondition(loop).lastTransitionTime;
  loop.now = new Date(loop.now.getTime() + (POLICY_ABSENT_SECONDS - 1) * 1000);
  await loop.step();
  dropPolicy(loop);
  t.match(policyCondition(loop), { reason: 'CreatingNetworkPolicy', lastTransitionTime: since }, 'within the grace');
  loop.now = new Date(loop.now.getTime() + 1000);
  for (let i = 0; i < 4; i++) {
    await loop.step();
    dropPolicy(loop);
  }
  t.match(policyCondition(loop), {
    status: 'False',
    reason: 'NetworkPolicyNotCreated',
    message: /NetworkPolicy e-members has not been created 60 s after .*SyncError/,
  });
  t.ok(ETCDCLUSTER_EVENTS.warnings.has('NetworkPolicyNotCreated'), 'told as a Warning Event');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the members are kept');
  const status = structuredClone(loop.s());
  await loop.step();
  dropPolicy(loop);
  t.same(loop.s(), status, 'at rest: the same status');
  await loop.step(); // created at last (Metacontroller's next try)
  await loop.step();
  t.equal(policyCondition(loop), undefined, 'once it is observed, nothing is said');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'and the members are as they were');
});

t.test('a cluster with its policy, or with the policy turned off, carries no such condition', async (t) => {
  const loop = await running({ size: 3 });
  t.equal(policyCondition(loop), undefined, 'running with its policy');
  const off = await running({ size: 3 }, 'e', { memberNetworkPolicy: false });
  t.notOk(
    off.children.some((c) => c.kind === 'NetworkPolicy'),
    'no policy answered',
  );
  t.equal(policyCondition(off), undefined, 'nothing said with the setting off');
});

t.test('a running cluster of an earlier metaops says so for the one sync its policy is being made', async (t) => {
  const loop = await running({ size: 3 });
  dropPolicy(loop);
  await loop.step();
  t.match(policyCondition(loop), { reason: 'CreatingNetworkPolicy' });
  t.match(
    (loop.s().conditions as any[]).find((c) => c.type === 'Ready'),
    { status: 'True' },
    'Ready as before: the members serve',
  );
  await loop.step();
  t.equal(policyCondition(loop), undefined, 'made: nothing said');
});
