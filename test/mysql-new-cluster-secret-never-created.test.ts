// A new MySQLCluster whose first answer was applied only in part (issue 31, crash consistency): Metacontroller
// creates the children one kind at a time, in no fixed order (v4 pkg/controller/common/manage_children.go ranges over a
// Go map of kinds), and when one create fails it goes on with the others; or the process dies in between: Metacontroller killed after creating the StatefulSet and before the Secret, a
// ResourceQuota on Secrets full for a moment, an admission webhook timing out. The StatefulSet then makes its claims
// (labelled with its selector, bound at once by an Immediate StorageClass) and its pods, which can never start: their
// env refers to the Secret that does not exist (CreateContainerConfigError). No server ever ran, so no data volume
// holds data or a password. The next sync must create the Secret with new passwords and let the cluster start; it
// must not call the cluster's never-made password lost and wait for a restore that cannot exist.
import t from 'tap';
import { mysqlSync as sync } from './fixtures/hooks.js';
import type { CompositeSyncRequest, CompositeSyncResponse, KubeObject } from '../lib/metacontroller.js';
import { asObserved, FIXED_NOW, objectMap, request } from './fixtures/requests.js';

const NAME = 'my-mysql';
const SECRET = `${NAME}-mysql`;
const STS = `${NAME}-mysql`;
const spec = { size: 3, version: '8.0' };
const labels = { 'app.kubernetes.io/name': 'mysql', 'app.kubernetes.io/instance': NAME };
const condition = (res: CompositeSyncResponse, type: string) =>
  ((res.status as any).conditions as any[]).find((c) => c.type === type);

/** A claim the StatefulSet made for member i just now: its selector's labels, bound at once. */
function claim(i: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: `data-${STS}-${i}`,
      namespace: 'default',
      uid: `uid-claim-${i}`,
      labels,
      creationTimestamp: FIXED_NOW.toISOString(),
    },
    spec: { volumeName: `pvc-${i}`, accessModes: ['ReadWriteOnce'] },
    status: { phase: 'Bound' },
  } as KubeObject;
}

/** Member i's pod: scheduled, its containers never started (the Secret its env names does not exist). */
function pod(i: number): KubeObject {
  const name = `${STS}-${i}`;
  const waiting = {
    waiting: { reason: 'CreateContainerConfigError', message: `secret "${SECRET}" not found` },
  };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      labels: { ...labels, 'statefulset.kubernetes.io/pod-name': name },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'StatefulSet', name: STS, uid: `uid-StatefulSet-${STS}`, controller: true },
      ],
    },
    spec: {
      containers: [
        { name: 'mysql', image: 'mysql:8.0' },
        { name: 'replication', image: 'mysql:8.0' },
      ],
    },
    status: {
      phase: 'Pending',
      initContainerStatuses: [{ name: 'config', ready: false, restartCount: 0, state: waiting }],
      containerStatuses: ['mysql', 'replication'].map((c) => ({
        name: c,
        ready: false,
        restartCount: 0,
        state: waiting,
      })),
    },
  } as unknown as KubeObject;
}

t.test(
  'a new cluster whose Secret was never created (its StatefulSet was) gets its passwords: no server ever ran',
  async (t) => {
    let generated = 0;
    const newPassword = () => `generated-${++generated}`;
    const base = (): CompositeSyncRequest => {
      const r = request('mysqlcluster', spec);
      r.parent.metadata = { ...r.parent.metadata, name: NAME, namespace: 'default', uid: 'uid-my-mysql' };
      return r;
    };
    const first = sync(base(), FIXED_NOW, newPassword);
    t.ok(
      first.children.some((c) => c.kind === 'Secret' && c.metadata.name === SECRET),
      'the first answer carries the Secret',
    );
    // Applied in part: everything but the Secret. The StatefulSet made its claims and pods.
    const applied = first.children.filter((c) => c.kind !== 'Secret').map((c) => asObserved(c));
    const next: CompositeSyncRequest = {
      ...base(),
      children: objectMap(applied, 'v1', ['Secret.v1', 'StatefulSet.apps/v1', 'Service.v1']),
      related: objectMap(
        [0, 1, 2].flatMap((i) => [claim(i), pod(i)]),
        'v1',
        ['Pod.v1', 'PersistentVolumeClaim.v1'],
      ),
    };
    next.parent.status = structuredClone(first.status) as Record<string, unknown>;
    const res = sync(next, FIXED_NOW, newPassword);
    const secret = res.children.find((c) => c.kind === 'Secret' && c.metadata.name === SECRET);
    const lost = condition(res, 'CredentialsAvailable');
    t.ok(
      secret,
      `the Secret is answered so that the members can start (got ${lost?.reason}: ${String(lost?.message).slice(0, 200)})`,
    );
    t.not(condition(res, 'Ready')?.reason, 'CredentialsLost', 'a password that never existed is not called lost');
    t.comment(`Ready: ${JSON.stringify(condition(res, 'Ready'))}`);
  },
);
