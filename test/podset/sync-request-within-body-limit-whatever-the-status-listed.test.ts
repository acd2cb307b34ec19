// Metacontroller keeps a parent's customize answer for its generation (v1.5.20 until the generation changes; v4.17.2
// up to 20 minutes), and a status write does not change the generation. A PodSet whose pods would be sent twice past
// ASK_ALL_BYTES (as children and as related objects) asks only for the pods its status.nodes does not list
// (hooks/podset/sync.ts childNames), so that its syncs stay within the body limit (docs/operating.md: "a PodSet of
// ~450 pods sends them twice and one of 1000 once"). But the answer Metacontroller keeps is the one asked when the
// PodSet was new (its status lists no pod yet), or when its status was lost (a restore from a backup, which writes no
// status): it asks for every pod name, and once the pods exist each sync carries all of them twice. The request is then
// over the 8 MiB body limit, the hook refuses it (413), no status is ever written again to list the pods, and the
// PodSet is not synced again (on v1.5.20, until its spec changes; then the answer is asked again with the status of
// then, which still lists none). Issue 31: "10,000 pods in one request"; every fan-out bounded.
import t from 'tap';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import type { KubeObject, ParentObject, RelatedResourceRule } from '../../lib/metacontroller.js';
import { podsetCustomize, podsetSync } from '../fixtures/hooks.js';
import { controllerRef, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const SIZE = 1000;
const SPEC = { size: SIZE, image: 'busybox:1.36', command: ['sleep', '3600'] };
const CREATED = '2026-01-02T03:00:00Z';

/** A pod the PodSet answered, as the API server stores it and Metacontroller's informer holds it (~5 KiB). */
function stored(pod: KubeObject, parent: ParentObject, i: number): KubeObject {
  const spec = pod['spec'] as { containers: Array<Record<string, unknown>> } & Record<string, unknown>;
  const name = pod.metadata.name!;
  const container = {
    ...spec.containers[0],
    imagePullPolicy: 'Always',
    resources: {},
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    volumeMounts: [
      {
        mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
        name: `kube-api-access-${String(i).padStart(5, 'x')}`,
        readOnly: true,
      },
    ],
  };
  const fields = (o: unknown): unknown =>
    o && typeof o === 'object' && !Array.isArray(o)
      ? Object.fromEntries(Object.entries(o).map(([k, v]) => [`f:${k}`, fields(v)]))
      : {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: parent.metadata.namespace,
      uid: `0b6f${String(i).padStart(4, '0')}-1c2d-4e5f-8a9b-0c1d2e3f4a5b`,
      resourceVersion: String(1000000 + i),
      creationTimestamp: CREATED,
      labels: { ...pod.metadata.labels, 'controller-uid': parent.metadata.uid! },
      ownerReferences: [controllerRef(parent)],
      managedFields: [
        {
          apiVersion: 'v1',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': fields({ labels: pod.metadata.labels }), 'f:spec': fields(spec) },
          manager: 'metacontroller',
          operation: 'Update',
          time: CREATED,
        },
        {
          apiVersion: 'v1',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:status': {
              'f:conditions': {
                'k:{"type":"ContainersReady"}': { '.': {}, 'f:lastProbeTime': {}, 'f:status': {}, 'f:type': {} },
                'k:{"type":"Initialized"}': { '.': {}, 'f:lastProbeTime': {}, 'f:status': {}, 'f:type': {} },
                'k:{"type":"PodReadyToStartContainers"}': {
                  '.': {},
                  'f:lastProbeTime': {},
                  'f:lastTransitionTime': {},
                  'f:status': {},
                  'f:type': {},
                },
                'k:{"type":"Ready"}': { '.': {}, 'f:lastProbeTime': {}, 'f:status': {}, 'f:type': {} },
              },
              'f:containerStatuses': {},
              'f:hostIP': {},
              'f:hostIPs': {},
              'f:phase': {},
              'f:podIP': {},
              'f:podIPs': { '.': {}, 'k:{"ip":"10.244.1.7"}': { '.': {}, 'f:ip': {} } },
              'f:startTime': {},
            },
          },
          manager: 'kubelet',
          operation: 'Update',
          subresource: 'status',
          time: CREATED,
        },
      ],
    },
    spec: {
      ...spec,
      containers: [container],
      dnsPolicy: 'ClusterFirst',
      enableServiceLinks: true,
      nodeName: 'worker-1',
      preemptionPolicy: 'PreemptLowerPriority',
      priority: 0,
      schedulerName: 'default-scheduler',
      serviceAccount: 'default',
      serviceAccountName: 'default',
      terminationGracePeriodSeconds: 30,
      tolerations: [
        { effect: 'NoExecute', key: 'node.kubernetes.io/not-ready', operator: 'Exists', tolerationSeconds: 300 },
        { effect: 'NoExecute', key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 300 },
      ],
      volumes: [
        {
          name: `kube-api-access-${String(i).padStart(5, 'x')}`,
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              { configMap: { items: [{ key: 'ca.crt', path: 'ca.crt' }], name: 'kube-root-ca.crt' } },
              {
                downwardAPI: {
                  items: [{ fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' }, path: 'namespace' }],
                },
              },
            ],
          },
        },
      ],
    },
    status: {
      phase: 'Running',
      // As a kubelet of Kubernetes 1.30 or later reports it (PodReadyToStartContainers, hostIPs, volumeMounts).
      conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map(
        (type) => ({
          lastProbeTime: null,
          lastTransitionTime: CREATED,
          status: 'True',
          type,
        }),
      ),
      containerStatuses: [
        {
          containerID: `containerd://${'9'.repeat(60)}${String(i).padStart(4, '0')}`,
          image: 'docker.io/library/busybox:1.36',
          imageID: `docker.io/library/busybox@sha256:${'a'.repeat(64)}`,
          lastState: {},
          name: 'busybox',
          ready: true,
          restartCount: 0,
          started: true,
          state: { running: { startedAt: CREATED } },
          volumeMounts: [
            {
              mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
              name: `kube-api-access-${String(i).padStart(5, 'x')}`,
              readOnly: true,
              recursiveReadOnly: 'Disabled',
            },
          ],
        },
      ],
      hostIP: '172.18.0.3',
      hostIPs: [{ ip: '172.18.0.3' }],
      podIP: '10.244.1.7',
      podIPs: [{ ip: '10.244.1.7' }],
      qosClass: 'BestEffort',
      startTime: CREATED,
    },
  } as unknown as KubeObject;
}

/** The pods `rules` ask for by name, as Metacontroller hands them to sync as related objects. */
function relatedFor(rules: RelatedResourceRule[], pods: KubeObject[]): KubeObject[] {
  const asked = new Set(
    rules.filter((r) => r.apiVersion === 'v1' && r.resource === 'pods').flatMap((r) => r.names ?? []),
  );
  return pods.filter((p) => asked.has(p.metadata.name!));
}

/** The sync request of the PodSet with its pods running, given the customize answer Metacontroller kept. */
function syncBody(asked: ParentObject, now: ParentObject, pods: KubeObject[]): string {
  const related = relatedFor(podsetCustomize(asked), pods);
  return JSON.stringify({
    controller: {
      apiVersion: 'metacontroller.k8s.io/v1alpha1',
      kind: 'CompositeController',
      metadata: { name: 'podset' },
    },
    parent: now,
    children: objectMap(pods),
    related: objectMap(related),
    finalizing: false,
  });
}

function running() {
  const req = request('podset', SPEC);
  req.parent.metadata = { ...req.parent.metadata, name: 'web', namespace: 'shop', creationTimestamp: CREATED };
  const first = podsetSync(req, FIXED_NOW);
  const pods = first.children.map((p, i) => stored(p, req.parent, i));
  return { parent: req.parent, pods };
}

t.test(
  'a 1000-pod PodSet: its sync is within the body limit with the customize answer asked when it was new',
  async (t) => {
    const { parent, pods } = running();
    const one = JSON.stringify(pods[0]).length;
    t.ok(one > 4096 && one < 6144, `a pod as stored is ~5 KiB (${one} bytes)`);
    // Asked at its first sync (no status yet), kept for the generation; the pods made since run.
    const nodes = pods.map((p) => p.metadata.name!);
    const listing = { ...parent, status: { nodes } } as ParentObject;
    // With the answer asked while the status listed every pod, the pods are sent once: within the limit (a guard).
    const settled = syncBody(listing, listing, pods);
    t.ok(settled.length <= DEFAULT_BODY_LIMIT, `asked with every pod listed: ${settled.length} bytes`);
    const body = syncBody(parent, listing, pods);
    t.ok(
      body.length <= DEFAULT_BODY_LIMIT,
      `the sync request is ${body.length} bytes, within the ${DEFAULT_BODY_LIMIT}-byte body limit`,
    );
  },
);

t.test('a 1000-pod PodSet whose status was lost: its sync is within the body limit', async (t) => {
  const { parent, pods } = running();
  // Restored from a backup without its status (or the status written over): customize asked with no status.nodes.
  const lost = { ...parent, status: {} } as ParentObject;
  const body = syncBody(lost, lost, pods);
  t.ok(
    body.length <= DEFAULT_BODY_LIMIT,
    `the sync request is ${body.length} bytes, within the ${DEFAULT_BODY_LIMIT}-byte body limit`,
  );
});
