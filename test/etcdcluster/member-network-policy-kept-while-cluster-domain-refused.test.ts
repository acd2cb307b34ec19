// A running cluster without its members' NetworkPolicy (made by an earlier metaops, or while
// METAOPS_ETCD_NETWORK_POLICY=false) gets it at its next sync, and so it must while its answer keeps every observed
// child and makes nothing (network.ts withMemberPolicy: "a running cluster of an earlier metaops ... would else keep
// members that run the tenant's image without it for as long as its spec stays refused"). InvalidSpec and
// <Kind>NameTaken answers add it. A spec.pod.clusterDomain the server does not allow (issue 29 case 1: the tenants
// that used a wildcard DNS domain before this release are exactly these clusters) is answered through a
// PermanentError (identity.ts checkClusterDomain, ClusterDomainNotAllowed), whose answer keeps the observed children
// only: the members run the tenant's image on without the policy (the instance metadata service, other namespaces
// on their peer and metrics ports) for as long as the domain stays, and no condition says they do.
import t from 'tap';
import { running } from '../fixtures/etcd-loop.js';

t.test('a running cluster held for a cluster domain not allowed gets its members policy', async (t) => {
  const loop = await running({ size: 3 });
  loop.children = loop.children.filter((c) => c.kind !== 'NetworkPolicy');
  loop.spec = { ...loop.spec, pod: { clusterDomain: 'nip.io' } };
  for (let i = 0; i < 2; i++) await loop.step();
  const ready = loop.s().conditions.find((c: any) => c.type === 'Synced');
  t.match(ready, { status: 'False', reason: 'ClusterDomainNotAllowed' }, 'held for the domain');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the members are kept running');
  t.same(
    loop.children.filter((c) => c.kind === 'NetworkPolicy').map((c) => c.metadata.name),
    ['e-members'],
    'their NetworkPolicy is answered while they run',
  );
});
