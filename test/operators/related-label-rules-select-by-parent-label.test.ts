// Metacontroller v1.5.20 decides which parent a changed object syncs by matching the customize answer's rules by
// labels alone (pkg/controller/common/customize/manager.go matchesRelatedRule: no namespace, no kind). So every rule of
// a parent's answer that selects by labels must select by a label value no tenant of another namespace can compute: the
// parent label, a MAC of kind, namespace and name under the server's key (lib/parent-label.ts). Rules by namespace and names are matched in the parent's namespace on both releases. The
// PodBuggerTool injector (a DecoratorController) is the known exception (docs/metacontroller.md: open on v1.5.20).
import t from 'tap';
import { operators } from '../../main/operators.js';
import type { RelatedResourceRule } from '../../lib/metacontroller.js';
import { parentLabelSettings, parentLabelValue } from '../../lib/parent-label.js';

const SPEC = {
  size: 3,
  version: '8.0',
  TLS: { static: { member: { peerSecret: 'peer', serverSecret: 'server' }, operatorSecret: 'etcd-client' } },
  etcdEndpoints: ['http://x-client:2379'],
  clusterName: 'x',
  backup: { clusterName: 'x' },
  storage: { size: '1Gi', storageClassName: 'fast' },
  s3: { path: 'bucket/team-b/x', awsSecret: 'aws' },
  secretName: 'x-creds',
};
const UID = '4d7f1b2a-9c3e-4f60-8a15-7e2b9d0c6f38';
const settings = parentLabelSettings({ env: { METAOPS_AUTH_TOKEN: 'a-token-of-the-hook-server-0123456789' } });

const byLabels = (r: RelatedResourceRule) => !r.namespace && !(r.names?.length ?? 0);

t.test("every related rule by labels of a parent's answer selects by its keyed parent label", async (t) => {
  let checked = 0;
  for (const def of operators) {
    const d = def as any;
    if (!d.customize || d.type === 'decorator') continue;
    const { group, version, kind } = d.resource;
    const value = parentLabelValue(settings.labelKey, kind, 'team-b', 'x');
    for (const status of [undefined, { observedGeneration: 1, podsLabel: value }]) {
      const parent = {
        apiVersion: `${group}/${version}`,
        kind,
        metadata: { name: 'x', namespace: 'team-b', uid: UID, generation: 1 },
        spec: SPEC,
        ...(status ? { status } : {}),
      };
      const rules = d.customize({ controller: {}, parent }, { settings }).relatedResources as RelatedResourceRule[];
      for (const rule of rules.filter(byLabels)) {
        checked++;
        t.ok(
          Object.values(rule.labelSelector?.matchLabels ?? {}).includes(value),
          `${def.name}: ${rule.resource} by ${JSON.stringify(rule.labelSelector ?? 'no selector')} selects by the value`,
        );
      }
    }
  }
  t.ok(checked >= 4, `${checked} rules by labels checked (Memcached's and EtcdBackup's pods)`);
});
