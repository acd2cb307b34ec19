// An EtcdCluster with storage gives each member a PersistentVolumeClaim of spec.pod.persistentVolumeClaimSpec, made by
// Metacontroller with its own rights and mounted by a member pod that runs the spec's own image
// (`<spec.repository>:v<spec.version>`). A claim's `dataSource` (or `dataSourceRef` without a namespace) fills the new
// volume from any claim or VolumeSnapshot of the namespace: the API server and the CSI driver check only that the
// source is in the claim's namespace, never who asked. So a tenant who may only create custom resources in its
// namespace (issue 29), and may neither read that volume nor run a pod on it, copies any volume of the namespace
// (another workload's database, a volume a platform keeps there) into its members and reads it with its own image:
// reading volumes by proxy, as a PodBuggerTool was `pods/exec` by proxy (issue 29.5). The hook refuses only
// volumeName, selector and dataSourceRef.namespace (hooks/etcdcluster/index.ts claimProblem).
//
// Must hold: no member claim metaops answers is filled from a claim or snapshot the spec names (refused as
// InvalidSpec, or only once the author is shown allowed to read it).
import t from 'tap';
import { etcdValueProblem } from '../../hooks/etcdcluster/index.js';
import { etcdParent } from '../fixtures/etcd.js';
import { running } from '../fixtures/etcd-loop.js';

const claim = (source: Record<string, unknown>) => ({
  accessModes: ['ReadWriteOnce'],
  resources: { requests: { storage: '1Gi' } },
  ...source,
});
const cases: Array<[string, Record<string, unknown>, string]> = [
  [
    'dataSource: another claim of the namespace',
    { dataSource: { kind: 'PersistentVolumeClaim', name: 'billing-db-data' } },
    'billing-db-data',
  ],
  [
    'dataSource: a VolumeSnapshot of the namespace',
    { dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'billing-db-nightly' } },
    'billing-db-nightly',
  ],
  [
    'dataSourceRef (no namespace): another claim of the namespace',
    {
      dataSource: { kind: 'PersistentVolumeClaim', name: 'billing-db-data' },
      dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'billing-db-data' },
    },
    'billing-db-data',
  ],
];

for (const [what, source, named] of cases) {
  t.test(`spec.pod.persistentVolumeClaimSpec with ${what}: no member claim is filled from it`, async (t) => {
    const spec = {
      size: 3,
      repository: 'registry.tenant-a.example/exfil',
      version: '3.5.0',
      pod: { persistentVolumeClaimSpec: claim(source) },
    };
    const problem = etcdValueProblem(etcdParent(spec));
    const loop = await running(spec);
    const claims = loop.children.filter((c) => c.kind === 'PersistentVolumeClaim');
    t.ok(claims.length > 0, `member claims answered (${claims.map((c) => c.metadata.name).join(', ')})`);
    const filled = claims.filter((c) => {
      const s = c['spec'] as any;
      return s?.dataSource?.name === named || s?.dataSourceRef?.name === named;
    });
    t.same(
      filled.map((c) => c.metadata.name),
      [],
      `no member claim is filled from ${named} (spec check: ${problem ?? 'accepted'})`,
    );
  });
}
