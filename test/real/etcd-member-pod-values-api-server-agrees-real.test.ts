// The checks an EtcdCluster makes of the spec.pod fields it copies into its member pods (lib/values.ts:
// resourcesProblem, tolerationsProblem, envProblem, podSecurityContextProblem, imageProblem for busyboxImage) are
// the API server's own rules, not a guess: on a real kube-apiserver, a pod carrying each value (created with
// dryRun=All) is accepted exactly when etcdValueProblem finds nothing, for values either side of each rule. A check
// stricter than the API server would refuse clusters that work; one looser would answer pods it refuses. (Stricter
// on purpose only where a tenant's pods may not ask what the API server takes: lib/pod-policy.ts.)
import t from 'tap';
import { etcdValueProblem } from '../../hooks/etcdcluster/index.js';
import { confinementProblem } from '../../lib/pod-policy.js';
import { etcdParent } from '../fixtures/etcd.js';
import { startApiServer } from '../fixtures/apiserver.js';

const api = startApiServer(t, 'f-pod-values', ['ns']);

/** A spec.pod field and the pod field it becomes (how members.ts copies it). */
const cases: Array<Record<string, unknown>> = [
  // resources
  { resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } } },
  { resources: { requests: { cpu: '2' }, limits: { cpu: '1' } } },
  { resources: { requests: { cpu: '1' }, limits: { cpu: '1000m' } } },
  { resources: { requests: { memory: '1025Mi' }, limits: { memory: '1Gi' } } },
  { resources: { requests: { memory: '1073741824' }, limits: { memory: '1Gi' } } },
  { resources: { requests: { memory: '1e3' }, limits: { memory: '1k' } } },
  { resources: { limits: { gpu: '1' } } },
  { resources: { requests: { Memory: '1Gi' } } },
  { resources: { requests: { 'a b': '1' } } },
  { resources: { limits: { 'nvidia.com/gpu': '1' } } },
  { resources: { requests: { 'nvidia.com/gpu': '1' } } },
  { resources: { requests: { 'nvidia.com/gpu': '1' }, limits: { 'nvidia.com/gpu': '2' } } },
  { resources: { limits: { 'nvidia.com/gpu': '500m' } } },
  { resources: { limits: { 'hugepages-2Mi': '2Mi' } } },
  { resources: { limits: { 'hugepages-2Mi': '2Mi', memory: '1Gi' } } },
  { resources: { limits: { 'ephemeral-storage': '2Gi' }, requests: { 'ephemeral-storage': '1Gi' } } },
  // tolerations
  { tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }] },
  { tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }] },
  { tolerations: [{ key: 'k', effect: 'Sometimes' }] },
  { tolerations: [{ key: 'k', value: 'v', effect: 'NoExecute', tolerationSeconds: 30 }] },
  { tolerations: [{ key: 'k', value: 'v', effect: 'NoSchedule', tolerationSeconds: 30 }] },
  { tolerations: [{ operator: 'Exists' }] },
  { tolerations: [{ value: 'v' }] },
  { tolerations: [{ key: 'example.com/k', operator: 'Equal', value: 'a b' }] },
  { tolerations: [{ key: 'k', operator: 'Lt', value: '3' }] },
  { tolerations: [{ key: '-k' }] },
  // env
  { etcdEnv: [{ name: 'ETCD_QUOTA_BACKEND_BYTES', value: '8589934592' }] },
  { etcdEnv: [{ name: 'X', value: 'v', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] },
  { etcdEnv: [{ name: 'X', value: '', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] },
  { etcdEnv: [{ value: 'v' }] },
  { etcdEnv: [{ name: 'A=B', value: 'v' }] },
  { etcdEnv: [{ name: 'my.env-name 1', value: 'v' }] },
  { etcdEnv: [{ name: 'X', valueFrom: {} }] },
  { etcdEnv: [{ name: 'X', valueFrom: { fieldRef: { fieldPath: 'spec.hostname' } } }] },
  { etcdEnv: [{ name: 'X', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } }] },
  { etcdEnv: [{ name: 'X', valueFrom: { resourceFieldRef: { resource: 'limits.memory' } } }] },
  { etcdEnv: [{ name: 'X', valueFrom: { resourceFieldRef: { resource: 'limits.gpu' } } }] },
  { etcdEnv: [{ name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] },
  { etcdEnv: [{ name: 'X', valueFrom: { secretKeyRef: { key: 'k' } } }] },
  { etcdEnv: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'c', key: 'a/b' } } }] },
  {
    etcdEnv: [
      { name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'k' }, configMapKeyRef: { name: 'c', key: 'k' } } },
    ],
  },
  // securityContext
  { securityContext: { runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000, supplementalGroups: [1, 2] } },
  { securityContext: { runAsUser: -1 } },
  { securityContext: { fsGroup: 2147483648 } },
  { securityContext: { supplementalGroups: [-5] } },
  { securityContext: { fsGroupChangePolicy: 'Sometimes' } },
  { securityContext: { seccompProfile: { type: 'Localhost' } } },
  { securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/etcd.json' } } },
  { securityContext: { seccompProfile: { type: 'RuntimeDefault', localhostProfile: 'x' } } },
  { securityContext: { appArmorProfile: { type: 'Unconfined' } } },
  { securityContext: { sysctls: [{ name: 'net.core.somaxconn', value: '1024' }] } },
  { securityContext: { sysctls: [{ name: 'Net.Core', value: '1' }] } },
  { securityContext: { supplementalGroupsPolicy: 'Strict' } },
  // busyboxImage
  { busyboxImage: 'busybox:1.36' },
  { busyboxImage: 'busybox:1.28.0-glibc ' },
];

/** The member pod's fields that carry spec.pod, as members.ts writes them (the rest fixed and valid). */
function podOf(i: number, pod: Record<string, unknown>): Record<string, unknown> {
  const container: Record<string, unknown> = {
    name: 'etcd',
    image: 'quay.io/coreos/etcd:v3.5.0',
    env: [{ name: 'ETCDCTL_API', value: '3' }, ...((pod['etcdEnv'] as unknown[]) ?? [])],
  };
  if (pod['resources']) container['resources'] = pod['resources'];
  const spec: Record<string, unknown> = {
    initContainers: [{ name: 'check-dns', image: pod['busyboxImage'] ?? 'busybox:1.28.0-glibc' }],
    containers: [container],
    securityContext: { runAsNonRoot: true, ...((pod['securityContext'] as object) ?? {}) },
  };
  if (pod['tolerations']) spec['tolerations'] = pod['tolerations'];
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}`, namespace: 'ns' }, spec };
}

t.test('each spec.pod value: refused by the hook exactly when the API server refuses the pod', async (t) => {
  for (const [i, pod] of cases.entries()) {
    let refusal: string | undefined;
    try {
      api.kubectl(['create', '--dry-run=server', '-f', '-'], JSON.stringify(podOf(i, pod)));
    } catch (e) {
      refusal = String((e as { stderr?: unknown }).stderr ?? e).trim();
    }
    const problem = etcdValueProblem(etcdParent({ size: 1, pod }));
    // What the API server takes but a tenant's pods may not ask (lib/pod-policy.ts: kernel confinement) is refused
    // by the hook whatever the API server says: stricter by design, never looser.
    const policy = confinementProblem('spec.pod.securityContext', pod['securityContext']);
    if (policy) {
      t.ok(
        problem,
        `${JSON.stringify(pod)}: hook ${problem ?? 'accepts'} (policy: ${policy}); API server ${refusal ?? 'accepts'}`,
      );
      continue;
    }
    t.equal(
      problem === undefined,
      refusal === undefined,
      `${JSON.stringify(pod)}: hook ${problem ?? 'accepts'}; API server ${refusal ?? 'accepts'}`,
    );
  }
});
