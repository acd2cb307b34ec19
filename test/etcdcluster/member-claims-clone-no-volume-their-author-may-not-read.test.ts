// An EtcdCluster with storage gives each member a PersistentVolumeClaim of spec.pod.persistentVolumeClaimSpec, made by
// Metacontroller with its own rights and mounted by a member pod that runs the spec's own image
// (`<spec.repository>:v<spec.version>`). A claim's `dataSource` (or `dataSourceRef` without a namespace) fills the new
// volume from any claim or VolumeSnapshot of the namespace: the API server and the CSI driver check only that the
// source is in the claim's namespace, never who asked. So a tenant who may only create custom resources in its
// namespace (issue 29), and may neither read that volume nor run a pod on it, would copy any volume of the namespace
// (another workload's database, a volume a platform keeps there) into its members and read it with its own image:
// reading volumes by proxy, as a PodBuggerTool was `pods/exec` by proxy (issue 29.5).
//
// Must hold: no member claim metaops answers is filled from a claim or snapshot the spec names: refused as InvalidSpec
// naming the field (a running cluster keeps its members and claims), unless the server allows references
// (METAOPS_ETCD_ALLOW_REFERENCES=true).
import t from 'tap';
import { Loop, FakeEtcd, PVC, running } from '../fixtures/etcd-loop.js';

const claim = (source: Record<string, unknown>) => ({ ...PVC, ...source });
const cases: Array<[string, Record<string, unknown>, string, string]> = [
  [
    'dataSource: another claim of the namespace',
    { dataSource: { kind: 'PersistentVolumeClaim', name: 'billing-db-data' } },
    'billing-db-data',
    'spec.pod.persistentVolumeClaimSpec.dataSource',
  ],
  [
    'dataSource: a VolumeSnapshot of the namespace',
    { dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'billing-db-nightly' } },
    'billing-db-nightly',
    'spec.pod.persistentVolumeClaimSpec.dataSource',
  ],
  [
    'dataSourceRef (no namespace): another claim of the namespace',
    {
      dataSource: { kind: 'PersistentVolumeClaim', name: 'billing-db-data' },
      dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'billing-db-data' },
    },
    'billing-db-data',
    'spec.pod.persistentVolumeClaimSpec.dataSource',
  ],
  [
    'dataSourceRef alone: a VolumeSnapshot of the namespace',
    { dataSourceRef: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'billing-db-nightly' } },
    'billing-db-nightly',
    'spec.pod.persistentVolumeClaimSpec.dataSourceRef',
  ],
];

const image = { repository: 'registry.tenant-a.example/exfil', version: '3.5.0' };

const filled = (loop: Loop, named: string) =>
  loop.children
    .filter((c) => c.kind === 'PersistentVolumeClaim')
    .filter((c) => {
      const s = c['spec'] as any;
      return s?.dataSource?.name === named || s?.dataSourceRef?.name === named;
    })
    .map((c) => c.metadata.name);

const ready = (loop: Loop) => (loop.s()?.conditions ?? []).find((c: any) => c.type === 'Ready');

for (const [what, source, named, field] of cases) {
  t.test(`spec.pod.persistentVolumeClaimSpec with ${what}: a new cluster is refused, no claim filled`, async (t) => {
    const loop = new Loop({ size: 3, ...image, pod: { persistentVolumeClaimSpec: claim(source) } }, new FakeEtcd());
    for (let i = 0; i < 3; i++) await loop.step();
    t.same(filled(loop, named), [], `no member claim is filled from ${named}`);
    t.equal(ready(loop)?.reason, 'InvalidSpec');
    t.match(ready(loop)?.message, `${field} is not allowed`, 'the refusal names the field');
  });

  t.test(
    `spec.pod.persistentVolumeClaimSpec with ${what} on a running cluster: members and claims stay, none filled`,
    async (t) => {
      const loop = await running({ size: 3, ...image, pod: { persistentVolumeClaimSpec: PVC } });
      const pods = loop.pods();
      const claims = loop.claims();
      t.equal(claims.length, 3, 'three member claims');
      loop.spec = { ...loop.spec, pod: { persistentVolumeClaimSpec: claim(source) } };
      for (let i = 0; i < 3; i++) await loop.step();
      t.same(loop.pods(), pods, 'every member pod kept');
      t.same(loop.claims(), claims, 'every member claim kept');
      t.same(loop.etcd.calls, [], 'no membership change');
      t.same(filled(loop, named), [], `no member claim is filled from ${named}`);
      t.equal(ready(loop)?.reason, 'InvalidSpec');
    },
  );
}

t.test('a claim source is handed on where the server allows references', async (t) => {
  const [, source, named] = cases[1]!;
  const spec = { size: 3, ...image, pod: { persistentVolumeClaimSpec: claim(source) } };
  const loop = await running(spec, 'e', { allowReferences: true });
  t.equal(filled(loop, named).length, 3, `every member claim is filled from ${named}`);
});
