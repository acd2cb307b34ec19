// A running cluster of an earlier metaops (or of a server that had METAOPS_ETCD_NETWORK_POLICY=false) "gets the
// policy at its next sync" (docs/etcdcluster.md): its members run the tenant's image, and the policy is what keeps
// them from the instance metadata service (the node's credentials) and other namespaces from their peer and metrics
// ports. But a spec the hook now refuses is InvalidSpec, which keeps every observed child and makes none: tenant A
// keeps any field the new rules refuse (an SELinux level, allowed before; a toleration or an annotation prefix the
// server does not name) and its running members never get the policy, their image keeping the metadata service for
// as long as A likes.
//
// Must hold: a running cluster whose spec is refused still gets the members' NetworkPolicy (it makes no pod, and
// takes away only what the members could reach).
import t from 'tap';
import { running } from '../fixtures/etcd-loop.js';

const refused: Record<string, unknown> = {
  'an SELinux level (allowed before METAOPS_POD_ALLOW_SELINUX_LEVEL)': {
    securityContext: { seLinuxOptions: { level: 's0:c1,c2' } },
  },
  'a toleration the server does not name': { tolerations: [{ key: 'dedicated', operator: 'Exists' }] },
  'an annotation prefix the server does not name': { annotations: { 'sidecar.istio.io/inject': 'true' } },
};

for (const [what, pod] of Object.entries(refused)) {
  t.test(`a running cluster without the policy, its spec refused for ${what}, gets the policy`, async (t) => {
    const loop = await running({ size: 3 });
    // As an earlier metaops left it: members, Services, budget, no NetworkPolicy.
    loop.children = loop.children.filter((c: any) => c.kind !== 'NetworkPolicy');
    loop.spec = { ...loop.spec, pod };
    const res: any = await loop.step();
    t.match(
      res.status?.conditions?.find((c: any) => c.type === 'Ready'),
      { reason: 'InvalidSpec' },
      'refused',
    );
    t.equal(loop.children.filter((c: any) => c.kind === 'Pod').length, 3, 'the members are kept (they run)');
    t.ok(
      loop.children.some((c: any) => c.kind === 'NetworkPolicy' && c.metadata.name === 'e-members'),
      `the members' NetworkPolicy is answered (children: ${loop.children.map((c: any) => c.kind).join(', ')})`,
    );
  });
}
