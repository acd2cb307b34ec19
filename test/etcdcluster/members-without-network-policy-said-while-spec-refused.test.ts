// Members that run without their NetworkPolicy are said in the status (network.ts
// networkPolicyCreated: CreatingNetworkPolicy, then NetworkPolicyNotCreated and a Warning Event 60 s on), "the
// status must say that they run without it". A refused spec (InvalidSpec) keeps the members running and answers the
// policy (withMemberPolicy), but when Metacontroller cannot create it (no rights on networkpolicies, an admission
// policy, a NetworkPolicy quota the tenant fills with its own clusters and PodSets) nothing says so: the refused answer
// carries only InvalidSpec, and the members run the tenant's image with the instance metadata service open for as long
// as the spec stays refused, which is the tenant's choice.
import t from 'tap';
import { running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test('members running without their policy under a refused spec are said in the status', async (t) => {
  const loop = await running({ size: 3 });
  loop.children = loop.children.filter((c) => c.kind !== 'NetworkPolicy');
  // Refused: a toleration the server does not allow.
  loop.spec = { ...loop.spec, pod: { tolerations: [{ key: 'dedicated', operator: 'Exists' }] } };
  for (let i = 0; i < 4; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * 40_000);
    await loop.step();
    // Metacontroller's create of the policy fails every time.
    loop.children = loop.children.filter((c) => c.kind !== 'NetworkPolicy');
  }
  t.match(
    loop.s().conditions.find((c: any) => c.type === 'Ready'),
    { reason: 'InvalidSpec' },
  );
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the members run');
  const said = loop.s().conditions.find((c: any) => c.status === 'False' && /e-members/.test(String(c.message ?? '')));
  t.ok(
    said,
    `a condition says NetworkPolicy e-members is missing: ${JSON.stringify(loop.s().conditions.map((c: any) => c.reason))}`,
  );
});
