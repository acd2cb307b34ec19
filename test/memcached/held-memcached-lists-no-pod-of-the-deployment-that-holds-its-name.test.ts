// A Memcached `cache` made in a namespace where another owner already runs a Deployment `cache` whose pods carry the
// recommended labels app.kubernetes.io/name=memcached and app.kubernetes.io/instance=cache (a Helm release `cache` of
// a memcached chart installed with fullnameOverride=cache, or a Deployment applied by hand from the same template),
// made by its ReplicaSet `cache-<hash>`. The Memcached is held for the Deployment name (DeploymentNameTaken, issue 31:
// a child that belongs to another owner is never taken or served). Those pods are the other owner's, not the
// Memcached's: its status does not list them in status.nodes, and a crash-looping pod of theirs is no Degraded
// condition (nor PodsFailing Warning) of the Memcached. A pod is told the Memcached's by its ReplicaSet's name
// `<name>-<hash>` alone (ownPod), which the ReplicaSet of another owner's Deployment of the same name has too.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { memcachedSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const cond = (res: any, type: string) => (res.status.conditions as any[]).find((c) => c.type === type);
const LABELS = { 'app.kubernetes.io/name': 'memcached', 'app.kubernetes.io/instance': 'cache' };
const HASH = '7d9c5b6f48';

/** The release's Deployment `cache` (made by Helm: no controller) and its pods, one of them crash-looping. */
function release(): KubeObject[] {
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'cache',
      namespace: 'shop',
      uid: 'uid-helm-deployment-cache',
      labels: { ...LABELS, 'app.kubernetes.io/managed-by': 'Helm' },
    },
    spec: { replicas: 2, selector: { matchLabels: LABELS } },
    status: { replicas: 2, readyReplicas: 1 },
  };
  const pod = (suffix: string, status: Record<string, unknown>) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `cache-${HASH}-${suffix}`,
      namespace: 'shop',
      uid: `uid-helm-pod-${suffix}`,
      labels: { ...LABELS, 'pod-template-hash': HASH },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `cache-${HASH}`, uid: 'uid-helm-rs', controller: true },
      ],
    },
    spec: { containers: [{ name: 'memcached', image: 'docker.io/bitnami/memcached:1.6.38' }] },
    status,
  });
  return [
    deployment,
    pod('abcde', { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] }),
    pod('fghij', {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'False' }],
      containerStatuses: [
        {
          name: 'memcached',
          ready: false,
          restartCount: 7,
          state: { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: { terminated: { exitCode: 1 } },
        },
      ],
    }),
  ] as unknown as KubeObject[];
}

t.test("a Memcached held for its Deployment name does not report the holder's pods as its own", async (t) => {
  const r = request('memcached', { size: 2 });
  r.parent.metadata = { ...r.parent.metadata, name: 'cache', namespace: 'shop', uid: 'uid-memcached-cache' };
  r.related = objectMap(release());
  const res = memcachedSync(r, FIXED_NOW);
  t.match(cond(res, 'Ready'), { status: 'False', reason: 'DeploymentNameTaken' }, 'held for the Deployment name');
  t.same((res.status as any).nodes, [], "status.nodes lists none of the release's pods");
  t.not(
    cond(res, 'Degraded')?.status,
    'True',
    `the release's crash-looping pod does not make it Degraded (${cond(res, 'Degraded')?.reason}: ${cond(res, 'Degraded')?.message})`,
  );
});
