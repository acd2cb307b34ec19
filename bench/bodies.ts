// Realistic hook request bodies for the benchmark and the soak: every object as the API server stores it and
// Metacontroller's informers hold it (uid, resourceVersion, creationTimestamp, owner references, the defaults
// the API server fills into a pod spec, managedFields, the status a kubelet or a controller writes), the
// controller object itself, and every key in the order Go's encoding/json writes an unstructured object
// (sorted, at every level). How they are made is written out in bench/RESULTS.md.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { parse as parseYaml } from 'yaml';
import { operators as hooks } from '../main/operators.js';
import { MAX_SIZES, memcachedSync, mysqlSync, podsetSync } from '../test/fixtures/hooks.js';
import type { CompositeSyncRequest, KubeObject } from '../lib/metacontroller.js';
import { objectMap, request, root } from '../test/fixtures/requests.js';
import { serviceAccountVolume } from '../test/fixtures/stored-objects.js';

/**
 * The spec as Metacontroller sends it: the API server has filled in the CRD's defaults (generated from the same
 * schema the hook reads; test/install/manifests.test.ts checks that both default a spec alike).
 */
function served(kind: Kind, spec: Record<string, unknown>): Record<string, unknown> {
  const def = hooks.find((h) => h.name === kind);
  if (def?.type !== 'composite') throw new Error(kind);
  return Value.Default(def.resource.spec, spec) as Record<string, unknown>;
}

export type Kind = 'memcached' | 'podset' | 'mysqlcluster';
const now = new Date('2026-01-01T00:00:00Z');
const CREATED = '2026-01-01T00:00:00Z';
const STARTED = '2026-01-01T00:00:07Z';

/** A deterministic uid of the form the API server gives (a version-4 UUID's layout). */
function uid(of: string): string {
  const h = createHash('sha1').update(of).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A stable pseudo-random suffix ([a-z0-9]), as generateName and pod-template hashes have. */
const suffix = (of: string, n: number) => createHash('sha1').update(of).digest('hex').slice(0, n);

/**
 * The fieldsV1 of managedFields for a value a manager wrote: `f:<key>` for each key of an object, a list of
 * objects keyed by their `name` (containers, env, ports, volumes) or `type` (conditions) as `k:{...}` entries,
 * any other list atomic (`{}`), and `.` for each object entry, as the API server records them.
 */
function fieldsV1(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (
      Array.isArray(v) &&
      v.length > 0 &&
      v.every((x) => x && typeof x === 'object' && ('name' in x || 'type' in x))
    ) {
      const list: Record<string, unknown> = {};
      for (const item of v as Array<Record<string, unknown>>) {
        const key = 'name' in item ? { name: item['name'] } : { type: item['type'] };
        list[`k:${JSON.stringify(key)}`] = { '.': {}, ...fieldsV1(item) };
      }
      out[`f:${k}`] = list;
    } else if (v && typeof v === 'object' && !Array.isArray(v)) {
      out[`f:${k}`] =
        Object.keys(v).length === 0
          ? {}
          : { ...(k === 'labels' || k === 'annotations' ? {} : { '.': {} }), ...fieldsV1(v) };
    } else {
      out[`f:${k}`] = {};
    }
  }
  return out;
}

interface Owner {
  apiVersion: string;
  kind: string;
  name: string;
}

interface ManagedEntry {
  manager: string;
  operation: 'Update' | 'Apply';
  apiVersion: string;
  subresource?: string;
  fields: Record<string, unknown>;
}

/** The object as the API server stores it: server-set metadata, owner, managedFields of each writer. */
function stored(
  obj: KubeObject,
  opts: {
    owner?: Owner;
    generation?: boolean;
    annotations?: Record<string, string>;
    managers: ManagedEntry[];
    status?: Record<string, unknown>;
    spec?: Record<string, unknown>;
  },
): KubeObject {
  const name = obj.metadata.name!;
  const metadata: Record<string, unknown> = {
    ...obj.metadata,
    ...(opts.annotations ? { annotations: opts.annotations } : {}),
    creationTimestamp: CREATED,
    ...(opts.generation ? { generation: 1 } : {}),
    managedFields: opts.managers.map((m) => ({
      apiVersion: m.apiVersion,
      fieldsType: 'FieldsV1',
      fieldsV1: m.fields,
      manager: m.manager,
      operation: m.operation,
      ...(m.subresource ? { subresource: m.subresource } : {}),
      time: STARTED,
    })),
    ...(opts.owner
      ? {
          ownerReferences: [
            {
              apiVersion: opts.owner.apiVersion,
              blockOwnerDeletion: true,
              controller: true,
              kind: opts.owner.kind,
              name: opts.owner.name,
              uid: uid(opts.owner.name),
            },
          ],
        }
      : {}),
    resourceVersion: String(100000 + parseInt(suffix(name, 5), 16)),
    uid: uid(`${obj.kind}/${name}`),
  };
  return {
    ...obj,
    metadata: metadata as KubeObject['metadata'],
    ...(opts.spec ? { spec: opts.spec } : {}),
    ...(opts.status ? { status: opts.status } : {}),
  };
}

/** Metacontroller's own entry for a child it created (it creates and updates with Update, manager `metacontroller`). */
const byMetacontroller = (child: KubeObject): ManagedEntry => ({
  manager: 'metacontroller',
  operation: 'Update',
  apiVersion: child.apiVersion,
  fields: fieldsV1({
    metadata: { labels: child.metadata.labels, ownerReferences: [{ uid: 'x' }] },
    ...Object.fromEntries(
      Object.entries(child).filter(([k]) => k !== 'metadata' && k !== 'apiVersion' && k !== 'kind'),
    ),
  }),
});

/** The pod spec as the API server stores it: its defaults filled in, the service account token volume added. */
function podSpecStored(spec: Record<string, any>, name: string): Record<string, unknown> {
  const volume = `kube-api-access-${suffix(name, 5)}`;
  const container = (c: Record<string, any>) => ({
    imagePullPolicy:
      String(c['image']).includes(':') && !String(c['image']).endsWith(':latest') ? 'IfNotPresent' : 'Always',
    resources: {},
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    ...c,
    volumeMounts: [
      ...(c['volumeMounts'] ?? []),
      { mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', name: volume, readOnly: true },
    ],
  });
  return {
    dnsPolicy: 'ClusterFirst',
    enableServiceLinks: true,
    nodeName: `node-${parseInt(suffix(name, 2), 16) % 7}`,
    preemptionPolicy: 'PreemptLowerPriority',
    priority: 0,
    restartPolicy: 'Always',
    schedulerName: 'default-scheduler',
    securityContext: {},
    serviceAccount: 'default',
    serviceAccountName: 'default',
    terminationGracePeriodSeconds: 30,
    ...spec,
    ...(spec['initContainers'] ? { initContainers: spec['initContainers'].map(container) } : {}),
    containers: spec['containers'].map(container),
    tolerations: [
      { effect: 'NoExecute', key: 'node.kubernetes.io/not-ready', operator: 'Exists', tolerationSeconds: 300 },
      { effect: 'NoExecute', key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 300 },
    ],
    volumes: [...(spec['volumes'] ?? []), serviceAccountVolume(volume)],
  };
}

/** The status a kubelet reports for a running, Ready pod. */
function kubeletStatus(spec: Record<string, any>, name: string): Record<string, unknown> {
  const ip = `10.244.${parseInt(suffix(name, 2), 16) % 250}.${(parseInt(suffix(name + 'ip', 2), 16) % 250) + 2}`;
  const host = `10.0.0.${(parseInt(suffix(name, 2), 16) % 7) + 10}`;
  const condition = (type: string) => ({ lastProbeTime: null, lastTransitionTime: STARTED, status: 'True', type });
  const state = (c: Record<string, any>, init: boolean) => ({
    containerID: `containerd://${createHash('sha256')
      .update(name + c['name'])
      .digest('hex')}`,
    image: `docker.io/library/${c['image']}`,
    imageID: `docker.io/library/${String(c['image']).split(':')[0]}@sha256:${createHash('sha256').update(String(c['image'])).digest('hex')}`,
    lastState: {},
    name: c['name'],
    ready: true,
    restartCount: 0,
    started: !init,
    state: init
      ? { terminated: { containerID: 'x', exitCode: 0, finishedAt: STARTED, reason: 'Completed', startedAt: STARTED } }
      : { running: { startedAt: STARTED } },
    volumeMounts: (c['volumeMounts'] ?? []).map((m: Record<string, unknown>) => ({
      mountPath: m['mountPath'],
      name: m['name'],
      ...(m['readOnly'] ? { readOnly: true, recursiveReadOnly: 'Disabled' } : {}),
    })),
  });
  return {
    conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map(condition),
    containerStatuses: spec['containers'].map((c: Record<string, any>) => state(c, false)),
    hostIP: host,
    hostIPs: [{ ip: host }],
    ...(spec['initContainers']
      ? { initContainerStatuses: spec['initContainers'].map((c: Record<string, any>) => state(c, true)) }
      : {}),
    phase: 'Running',
    podIP: ip,
    podIPs: [{ ip }],
    qosClass: 'BestEffort',
    startTime: STARTED,
  };
}

/** A pod as the API server stores it once its owner created it and a kubelet runs it, Ready. */
function storedPod(
  name: string,
  labels: Record<string, string>,
  template: Record<string, any>,
  owner: Owner,
  createdBy: string,
): KubeObject {
  const spec = podSpecStored(template, name);
  const status = kubeletStatus(spec, name);
  const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels } };
  return stored(pod, {
    owner,
    spec,
    status,
    managers: [
      {
        manager: createdBy,
        operation: 'Update',
        apiVersion: 'v1',
        fields: fieldsV1({ metadata: { labels, ownerReferences: [{ uid: 'x' }] }, spec: template }),
      },
      {
        manager: 'kubelet',
        operation: 'Update',
        apiVersion: 'v1',
        subresource: 'status',
        fields: fieldsV1({ status }),
      },
    ],
  });
}

/** A child a controller created from the hook's answer, with the status its own controller wrote. */
function storedChild(
  child: KubeObject,
  owner: Owner,
  status?: Record<string, unknown>,
  statusManager = 'kube-controller-manager',
): KubeObject {
  return stored(child, {
    owner,
    generation: child.kind === 'Deployment' || child.kind === 'StatefulSet',
    ...(status ? { status } : {}),
    managers: [
      byMetacontroller(child),
      ...(status
        ? [
            {
              manager: statusManager,
              operation: 'Update' as const,
              apiVersion: child.apiVersion,
              subresource: 'status',
              fields: fieldsV1({ status }),
            },
          ]
        : []),
    ],
  });
}

/** Every key sorted, at every level: Go's encoding/json writes an unstructured object (a map) that way. */
function goOrder<T>(value: T): T {
  if (Array.isArray(value)) return value.map(goOrder) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) out[k] = goOrder((value as Record<string, unknown>)[k]);
  return out as T;
}

/** The CompositeController as stored after `kubectl apply` (client-side: the last-applied annotation). */
function controller(kind: Kind): Record<string, unknown> {
  const manifest = parseYaml(
    readFileSync(join(root, 'manifests', 'controllers', `metaops-${kind}.yaml`), 'utf8'),
  ) as KubeObject;
  return stored(manifest, {
    generation: true,
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(manifest) + '\n' },
    managers: [
      {
        manager: 'kubectl-client-side-apply',
        operation: 'Update',
        apiVersion: manifest.apiVersion,
        fields: fieldsV1(manifest),
      },
    ],
  });
}

/**
 * A realistic request with `n` children (PodSet: n pods) or `n` related pods (Memcached's pods; MySQLCluster:
 * its members, at most MAX_SIZES.mysqlcluster = 9, and past that other pods its selector matches, which are no
 * members: its answer stays MySQL-sized while the request grows). Past a kind's maximum (MAX_SIZES; PodSet and
 * Memcached: 1000; only the in-process rows go further) the parent asks for that many.
 */
export function body(kind: Kind, n: number): CompositeSyncRequest {
  // A spec past the kind's maximum would be refused (InvalidSpec): the parent asks for the most it may have, and
  // the request still carries n pods (the in-process rows go to 10 000).
  const size = Math.min(n, MAX_SIZES[kind]);
  const base = request(kind, served(kind, kind === 'mysqlcluster' ? { size, version: '8.0' } : { size }));
  const parent = base.parent;
  const parentOwner: Owner = { apiVersion: parent.apiVersion, kind: parent.kind, name: parent.metadata.name! };
  // What metaops asked for with nothing observed: what Metacontroller created.
  const desired = syncOf(kind, base).children;
  if (kind === 'podset') {
    const one = desired[0]!;
    const name = parent.metadata.name!;
    base.children = objectMap(
      Array.from({ length: n }, (_, i) =>
        storedPod(
          `${name}-${i}`,
          one.metadata.labels!,
          one['spec'] as Record<string, unknown>,
          parentOwner,
          'metacontroller',
        ),
      ),
    );
  } else {
    const workload = desired.find((c) => c.kind === 'Deployment' || c.kind === 'StatefulSet')!;
    const wspec = workload['spec'] as Record<string, any>;
    const workloadStatus =
      kind === 'memcached'
        ? {
            availableReplicas: size,
            conditions: [
              {
                lastTransitionTime: STARTED,
                lastUpdateTime: STARTED,
                message: 'Deployment has minimum availability.',
                reason: 'MinimumReplicasAvailable',
                status: 'True',
                type: 'Available',
              },
              {
                lastTransitionTime: CREATED,
                lastUpdateTime: STARTED,
                message: `ReplicaSet "${workload.metadata.name}-${suffix(workload.metadata.name!, 10)}" has successfully progressed.`,
                reason: 'NewReplicaSetAvailable',
                status: 'True',
                type: 'Progressing',
              },
            ],
            observedGeneration: 1,
            readyReplicas: size,
            replicas: size,
            updatedReplicas: size,
          }
        : {
            availableReplicas: size,
            collisionCount: 0,
            currentReplicas: size,
            currentRevision: `${workload.metadata.name}-${suffix('rev', 10)}`,
            observedGeneration: 1,
            readyReplicas: size,
            replicas: size,
            updateRevision: `${workload.metadata.name}-${suffix('rev', 10)}`,
            updatedReplicas: size,
          };
    base.children = objectMap(
      desired.map((c) => storedChild(c, parentOwner, c === workload ? workloadStatus : undefined)),
    );
    const labels = wspec['template'].metadata.labels as Record<string, string>;
    const template = wspec['template'].spec as Record<string, any>;
    const pods: KubeObject[] = [];
    if (kind === 'memcached') {
      const rs = `${workload.metadata.name}-${suffix(workload.metadata.name!, 10)}`;
      const used = new Set<string>();
      for (let i = 0; i < n; i++) {
        // Five characters, as the ReplicaSet controller's names have; drawn again on a collision.
        let tail = suffix(`${rs}-${i}`, 5);
        for (let salt = 0; used.has(tail); salt++) tail = suffix(`${rs}-${i}-${salt}`, 5);
        used.add(tail);
        pods.push(
          storedPod(
            `${rs}-${tail}`,
            { ...labels, 'pod-template-hash': rs.slice(-10) },
            template,
            { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs },
            'kube-controller-manager',
          ),
        );
      }
    } else {
      const sts = workload.metadata.name!;
      const revision = { 'controller-revision-hash': `${sts}-${suffix('rev', 10)}` };
      for (let i = 0; i < n; i++) {
        const member = i < size;
        const name = member ? `${sts}-${i}` : `${sts}-backup-${suffix(String(i), 4)}z`;
        pods.push(
          storedPod(
            name,
            member
              ? {
                  ...labels,
                  ...revision,
                  'apps.kubernetes.io/pod-index': String(i),
                  'statefulset.kubernetes.io/pod-name': name,
                }
              : labels,
            template,
            { apiVersion: 'apps/v1', kind: 'StatefulSet', name: sts },
            'kube-controller-manager',
          ),
        );
      }
      const claims = (wspec['volumeClaimTemplates'] ?? []) as Array<Record<string, any>>;
      const pvcs = claims.flatMap((claim) =>
        Array.from({ length: size }, (_, i) =>
          stored(
            {
              apiVersion: 'v1',
              kind: 'PersistentVolumeClaim',
              metadata: {
                name: `${claim['metadata'].name}-${sts}-${i}`,
                namespace: 'default',
                labels: selectorOf(labels),
              },
            },
            {
              spec: {
                ...claim['spec'],
                storageClassName: 'standard',
                volumeMode: 'Filesystem',
                volumeName: `pvc-${uid(`pvc${i}`)}`,
              },
              status: {
                accessModes: claim['spec'].accessModes,
                capacity: claim['spec'].resources.requests,
                phase: 'Bound',
              },
              managers: [
                {
                  manager: 'kube-controller-manager',
                  operation: 'Update',
                  apiVersion: 'v1',
                  fields: fieldsV1({ spec: claim['spec'] }),
                },
              ],
            },
          ),
        ),
      );
      base.related = objectMap(pvcs, 'v1', ['Pod.v1', 'PersistentVolumeClaim.v1']);
    }
    base.related = { ...(base.related ?? {}), ...objectMap(pods) };
  }
  base.controller = controller(kind);
  // A resync: the parent carries the status its previous sync wrote for these very children (Metacontroller
  // resyncs every parent periodically, and most syncs of a settled cluster are such resyncs).
  const status = syncOf(kind, base).status ?? undefined;
  const spec = parent.spec as Record<string, unknown>;
  const applied = {
    apiVersion: parent.apiVersion,
    kind: parent.kind,
    metadata: { name: parent.metadata.name, namespace: 'default' },
    spec: kind === 'mysqlcluster' ? { size, version: '8.0' } : { size },
  };
  base.parent = stored({ ...parent, metadata: { name: parent.metadata.name!, namespace: 'default' } } as KubeObject, {
    generation: true,
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(applied) + '\n' },
    spec,
    ...(status ? { status } : {}),
    managers: [
      {
        manager: 'kubectl-client-side-apply',
        operation: 'Update',
        apiVersion: parent.apiVersion,
        fields: fieldsV1({
          metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '' } },
          spec: applied.spec,
        }),
      },
      ...(status
        ? [
            {
              manager: 'metacontroller',
              operation: 'Update' as const,
              apiVersion: parent.apiVersion,
              subresource: 'status',
              fields: fieldsV1({ status }),
            },
          ]
        : []),
    ],
  }) as CompositeSyncRequest['parent'];
  return goOrder(base);
}

function selectorOf(labels: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(labels).filter(([k]) => k === 'app.kubernetes.io/name' || k === 'app.kubernetes.io/instance'),
  );
}

/** The kind's sync function on a request, at the benchmark's fixed clock (MySQLCluster's password source fixed too). */
export function syncOf(kind: Kind, req: CompositeSyncRequest) {
  if (kind === 'podset') return podsetSync(req, now);
  return kind === 'memcached' ? memcachedSync(req, now) : mysqlSync(req, now, () => 'pw');
}

/**
 * The request of Metacontroller's own Node example (examples/catset, the hook users copy) with the same pods as
 * body('podset', n): a CatSet parent whose template is the pod metaops' PodSet asks for, `spec.replicas` n, every
 * pod Ready (so it answers n pods, as metaops does). Only bench/example.ts sends it, to that example's server.
 */
export function catsetBody(n: number): CompositeSyncRequest {
  const req = body('podset', n);
  const pod = syncOf('podset', req).children[0]!;
  const parent = req.parent;
  parent.spec = {
    replicas: n,
    serviceName: parent.metadata.name!,
    template: { metadata: { labels: pod.metadata.labels }, spec: pod['spec'] },
  };
  return req;
}
