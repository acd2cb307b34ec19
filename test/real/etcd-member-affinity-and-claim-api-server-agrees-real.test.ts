// spec.pod.affinity and spec.pod.persistentVolumeClaimSpec are copied into each member's pod and claim
// (hooks/etcdcluster/members.ts placement, memberClaim), like the spec.pod fields that
// etcd-member-pod-values-api-server-agrees-real.test.ts checks; on a real kube-apiserver a pod carrying each affinity,
// and a claim of each spec (created with --dry-run=server), is accepted exactly when etcdValueProblem finds nothing.
// Today the hook accepts every affinity and every claim spec that neither picks a volume nor has a storage request
// that is no quantity: the pods and claims the API server refuses below are answered.
import t from 'tap';
import { etcdValueProblem } from '../../hooks/etcdcluster/index.js';
import { etcdParent } from '../fixtures/etcd.js';
import { startApiServer } from '../fixtures/apiserver.js';

const api = startApiServer(t, 'f-affinity-claim', ['ns']);

const required = (terms: unknown[]) => ({
  nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } },
});
const affinities: unknown[] = [
  required([{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a'] }] }]),
  required([]),
  required([{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'Among', values: ['a'] }] }]),
  {
    podAntiAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [
        { labelSelector: { matchLabels: { app: 'etcd' } }, topologyKey: 'kubernetes.io/hostname' },
      ],
    },
  },
  {
    podAntiAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [
        { labelSelector: { matchLabels: { app: 'etcd' } }, topologyKey: '' },
      ],
    },
  },
];
const claims: Array<Record<string, unknown>> = [
  { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  { resources: { requests: { storage: '1Gi' } } },
  { accessModes: ['ReadWriteSometimes'], resources: { requests: { storage: '1Gi' } } },
  { accessModes: ['ReadWriteOnce'] },
];

function dryRun(object: Record<string, unknown>): string | undefined {
  try {
    api.kubectl(['create', '--dry-run=server', '-f', '-'], JSON.stringify(object));
    return undefined;
  } catch (e) {
    return String((e as { stderr?: unknown }).stderr ?? e).trim();
  }
}

t.test('each spec.pod.affinity: refused by the hook exactly when the API server refuses the pod', async (t) => {
  for (const [i, affinity] of affinities.entries()) {
    const refusal = dryRun({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `a${i}`, namespace: 'ns' },
      spec: { containers: [{ name: 'etcd', image: 'quay.io/coreos/etcd:v3.5.0' }], affinity },
    });
    const problem = etcdValueProblem(etcdParent({ size: 1, pod: { affinity } }));
    t.equal(
      problem === undefined,
      refusal === undefined,
      `${JSON.stringify(affinity)}: hook ${problem ?? 'accepts'}; API server ${refusal ?? 'accepts'}`,
    );
  }
});

t.test(
  'each spec.pod.persistentVolumeClaimSpec: refused by the hook exactly when the API server refuses the claim',
  async (t) => {
    for (const [i, spec] of claims.entries()) {
      const refusal = dryRun({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: `c${i}`, namespace: 'ns' },
        spec,
      });
      const problem = etcdValueProblem(etcdParent({ size: 1, pod: { persistentVolumeClaimSpec: spec } }));
      t.equal(
        problem === undefined,
        refusal === undefined,
        `${JSON.stringify(spec)}: hook ${problem ?? 'accepts'}; API server ${refusal ?? 'accepts'}`,
      );
    }
  },
);
