// The PodSet answer budget (hooks/podset/sync.ts answerBudget, 4 MiB of children) accepts a spec by the size of what the
// hook answers. What comes back is larger: each pod as the API server stores it carries its command in its spec, in
// Metacontroller's last-applied annotation (every child Metacontroller creates or updates has it, the answered object
// as JSON: docs/metacontroller.md), and ~4.5 KiB of defaults, status and managedFields; and customize asks for up to
// ASK_ALL_BYTES of the PodSet's own pods again. A spec the hook accepts must make syncs within the body limit once its
// pods run: a sync over it is refused (413) at every resync, no status is written again, no pod deleted since is made
// again and no rollout goes on. Issue 31: "every fan-out/answer/field bounded"; "10,000 pods in one request".
import t from 'tap';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import type { KubeObject, ParentObject, RelatedResourceRule } from '../../lib/metacontroller.js';
import { podsetCustomize, podsetSync } from '../fixtures/hooks.js';
import { controllerRef, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const SIZE = 1000;
const CREATED = '2026-01-02T03:00:00Z';
const LAST_APPLIED = 'metacontroller.k8s.io/last-applied-configuration';

/**
 * A pod the PodSet answered, as the API server stores it and Metacontroller's informer holds it (as in
 * sync-request-within-body-limit-whatever-the-status-listed.test.ts), with Metacontroller's last-applied annotation.
 */
function stored(pod: KubeObject, parent: ParentObject, i: number, lastApplied: boolean): KubeObject {
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
      // Metacontroller writes the object it applied (the hook's answer) here, as JSON.
      ...(lastApplied ? { annotations: { [LAST_APPLIED]: JSON.stringify(pod) } } : {}),
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

function relatedFor(rules: RelatedResourceRule[], pods: KubeObject[]): KubeObject[] {
  const asked = new Set(
    rules.filter((r) => r.apiVersion === 'v1' && r.resource === 'pods').flatMap((r) => r.names ?? []),
  );
  return pods.filter((p) => asked.has(p.metadata.name!));
}

function syncBody(asked: ParentObject, now: ParentObject, pods: KubeObject[]): string {
  return JSON.stringify({
    controller: {
      apiVersion: 'metacontroller.k8s.io/v1alpha1',
      kind: 'CompositeController',
      metadata: { name: 'podset' },
    },
    parent: now,
    children: objectMap(pods),
    related: objectMap(relatedFor(podsetCustomize(asked), pods)),
    finalizing: false,
  });
}

/** A 1000-pod PodSet running `sh -c <script>`, the script of `length` characters; undefined if the hook refuses it. */
function running(length: number, lastApplied: boolean) {
  const spec = { size: SIZE, image: 'busybox:1.36', command: ['sh', '-c', `${'x'.repeat(length - 5)}; wait`] };
  const req = request('podset', spec);
  req.parent.metadata = { ...req.parent.metadata, name: 'web', namespace: 'shop', creationTimestamp: CREATED };
  const first = podsetSync(req, FIXED_NOW);
  if (first.children.length !== SIZE) return undefined;
  return { parent: req.parent, pods: first.children.map((p, i) => stored(p, req.parent, i, lastApplied)) };
}

/** The longest script the hook answers 1000 pods for (it refuses longer ones: InvalidSpec, no pod answered). */
function longestAccepted(): number {
  let [lo, hi] = [16, 4096];
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (running(mid, false)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

const LONGEST = longestAccepted();

t.test('the longest command a 1000-pod PodSet is accepted with is one the hook answers (a guard)', async (t) => {
  t.ok(LONGEST > 1024, `a script of ${LONGEST} characters is accepted for 1000 pods`);
  t.equal(running(LONGEST + 64, false), undefined, 'a longer one is refused');
});

t.test('a 1000-pod PodSet of the longest command it accepts: its sync is within the body limit', async (t) => {
  const { parent, pods } = running(LONGEST, true)!;
  const nodes = pods.map((p) => p.metadata.name!);
  const listing = { ...parent, status: { nodes } } as ParentObject;
  // Its status lists every pod: customize asks for none of them again (each pod is sent once).
  const settled = syncBody(listing, listing, pods);
  t.ok(
    settled.length <= DEFAULT_BODY_LIMIT,
    `every pod listed: the sync request is ${settled.length} bytes, within the ${DEFAULT_BODY_LIMIT}-byte body limit`,
  );
});

t.test(
  'a 1000-pod PodSet of the longest command it accepts, its status lost: its sync is within the body limit',
  async (t) => {
    // Without Metacontroller's last-applied annotation: only what the other body-limit test counts.
    const { parent, pods } = running(LONGEST, false)!;
    const lost = { ...parent, status: {} } as ParentObject;
    const body = syncBody(lost, lost, pods);
    t.ok(
      body.length <= DEFAULT_BODY_LIMIT,
      `status lost: the sync request is ${body.length} bytes, within the ${DEFAULT_BODY_LIMIT}-byte body limit`,
    );
  },
);
