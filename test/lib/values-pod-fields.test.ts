// The pod field checks of lib/values.ts, each value either side of its rule, as a real kube-apiserver 1.36 answered
// a pod carrying it (test/real/etcd-member-pod-values-api-server-agrees-real.test.ts checks them against one): a
// value the API server accepts is never refused, one it refuses is refused naming the field.
import tap from 'tap';
import { envProblem, podSecurityContextProblem, resourcesProblem, tolerationsProblem } from '../../lib/values.js';

const check = (
  t: typeof tap,
  name: string,
  fn: (field: string, value: unknown) => string | undefined,
  accepted: unknown[],
  refused: unknown[],
) =>
  t.test(name, async (t) => {
    for (const v of accepted) t.equal(fn('f', v), undefined, `accepts ${JSON.stringify(v)}`);
    for (const v of refused) t.match(fn('f', v), /^f/, `refuses ${JSON.stringify(v)}`);
  });

check(
  tap,
  'resources',
  resourcesProblem,
  [
    { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } },
    { requests: { cpu: '1' }, limits: { cpu: '1000m' } },
    { requests: { memory: '1073741824' }, limits: { memory: '1Gi' } },
    { requests: { memory: '1e3' }, limits: { memory: '1k' } },
    { requests: { cpu: 0.5 }, limits: { cpu: '500m' } },
    { limits: { 'nvidia.com/gpu': '1' } },
    { limits: { 'hugepages-2Mi': '2Mi', memory: '1Gi' } },
    { limits: { 'ephemeral-storage': '2Gi' }, requests: { 'ephemeral-storage': '1Gi' } },
  ],
  [
    { requests: { cpu: '2' }, limits: { cpu: '1' } },
    { requests: { memory: '1025Mi' }, limits: { memory: '1Gi' } },
    { requests: { cpu: '1001m' }, limits: { cpu: '1' } },
    { limits: { gpu: '1' } },
    { requests: { Memory: '1Gi' } },
    { requests: { 'a b': '1' } },
    { requests: { 'nvidia.com/gpu': '1' } },
    { requests: { 'nvidia.com/gpu': '1' }, limits: { 'nvidia.com/gpu': '2' } },
    { limits: { 'nvidia.com/gpu': '500m' } },
    { limits: { 'hugepages-2Mi': '2Mi' } },
    { limits: { cpu: '-1' } },
    { claims: [{ name: 'gpu' }] },
  ],
);

check(
  tap,
  'tolerations',
  tolerationsProblem,
  [
    [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }],
    [{ key: 'k', value: 'v', effect: 'NoExecute', tolerationSeconds: 30 }],
    [{ operator: 'Exists' }],
    [{ key: 'example.com/k', operator: 'Equal', value: 'v1' }],
  ],
  [
    [{ key: 'k', operator: 'Exists', value: 'v' }],
    [{ key: 'k', effect: 'Sometimes' }],
    [{ key: 'k', value: 'v', effect: 'NoSchedule', tolerationSeconds: 30 }],
    [{ value: 'v' }],
    [{ key: 'example.com/k', operator: 'Equal', value: 'a b' }],
    [{ key: 'k', operator: 'Lt', value: '3' }],
    [{ key: '-k' }],
    [{ key: 1 }],
    'k',
  ],
);

check(
  tap,
  'environment variables',
  envProblem,
  [
    [{ name: 'ETCD_QUOTA_BACKEND_BYTES', value: '8589934592' }],
    [{ name: 'X', value: '', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
    [{ name: 'my.env-name 1', value: 'v' }],
    [{ name: 'X', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } }],
    [{ name: 'X', valueFrom: { resourceFieldRef: { resource: 'limits.memory' } } }],
    [{ name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
  ],
  [
    [{ name: 'X', value: 'v', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
    [{ value: 'v' }],
    [{ name: 'A=B', value: 'v' }],
    [{ name: 'X', valueFrom: {} }],
    [{ name: 'X', valueFrom: { fieldRef: { fieldPath: 'spec.hostname' } } }],
    [{ name: 'X', valueFrom: { resourceFieldRef: { resource: 'limits.gpu' } } }],
    [{ name: 'X', valueFrom: { secretKeyRef: { key: 'k' } } }],
    [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'c', key: 'a/b' } } }],
    [{ name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'k' }, configMapKeyRef: { name: 'c', key: 'k' } } }],
  ],
);

check(
  tap,
  'pod security context',
  podSecurityContextProblem,
  [
    { runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000, supplementalGroups: [1, 2] },
    { runAsUser: 0, runAsNonRoot: false },
    { seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/etcd.json' } },
    { appArmorProfile: { type: 'Unconfined' } },
    { sysctls: [{ name: 'net.core.somaxconn', value: '1024' }] },
    { supplementalGroupsPolicy: 'Strict', fsGroupChangePolicy: 'Always' },
  ],
  [
    { runAsUser: -1 },
    { fsGroup: 2147483648 },
    { supplementalGroups: [-5] },
    { fsGroupChangePolicy: 'Sometimes' },
    { seccompProfile: { type: 'Localhost' } },
    { seccompProfile: { type: 'RuntimeDefault', localhostProfile: 'x' } },
    { sysctls: [{ name: 'Net.Core', value: '1' }] },
    { runAsUser: '1000' },
  ],
);
