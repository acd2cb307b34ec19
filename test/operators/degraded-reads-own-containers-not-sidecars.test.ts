// Degraded (PodsFailing) reads the containers a parent runs of its own, by name, never one an admission webhook
// injected: a sidecar waiting for its image (Istio's istio-proxy, a Vault agent whose registry is down) is not the
// cache, the PodSet's command or the database failing, and a sidecar listed before the workload's own container does
// not hide the workload's crash loop behind its own reason. EtcdCluster's members are read by their etcd container
// already (hooks/etcdcluster/pods.ts); Memcached, PodSet and MySQLCluster read any container (lib/replicas.ts
// podFailure) before.
import t from 'tap';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import { memcachedSync, podsetSync } from '../fixtures/hooks.js';
import { clusterMember } from '../fixtures/mysql-pods.js';
import { asObserved, deploymentPod, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const degradedOf = (res: CompositeSyncResponse) =>
  ((res.status as any).conditions as Array<Record<string, unknown>>).find((c) => c['type'] === 'Degraded');

const running = (name: string) => ({ name, ready: true, restartCount: 0, state: { running: { startedAt: 'x' } } });
const waiting = (name: string, reason: string) => ({
  name,
  ready: false,
  restartCount: reason === 'CrashLoopBackOff' ? 5 : 0,
  state: { waiting: { reason, message: 'back-off' } },
});
/** An injected sidecar waiting for its image, as the kubelet reports it, before or after the workload's own. */
const sidecarPulling = waiting('istio-proxy', 'ImagePullBackOff');

/** A pod status with these container statuses, and istio-init done. */
function podStatus(statuses: unknown[], ready: boolean) {
  return {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
    initContainerStatuses: [
      { name: 'istio-init', ready: true, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
    ],
    containerStatuses: statuses,
  };
}

// Each case: the workload's own container running or crash-looping, the sidecar waiting for its image.
const CASES = [
  { own: 'running', statuses: (own: string) => [running(own), sidecarPulling], want: { status: 'False' } },
  {
    own: 'CrashLoopBackOff',
    statuses: (own: string) => [sidecarPulling, waiting(own, 'CrashLoopBackOff')],
    want: { status: 'True', reason: 'PodsFailing', message: /: CrashLoopBackOff$/ },
  },
] as const;

for (const c of CASES) {
  t.test(`Memcached: a sidecar waiting for its image, the memcached container ${c.own}`, async (t) => {
    const spec = { size: 2 };
    const first = memcachedSync(request('memcached', spec), FIXED_NOW);
    const deployment = first.children.find((k) => k.kind === 'Deployment')!;
    const observed = first.children.map((k) =>
      k.kind === 'Deployment'
        ? asObserved(k, { replicas: 2, readyReplicas: c.own === 'running' ? 2 : 1 })
        : asObserved(k),
    );
    const template = (deployment['spec'] as any).template;
    const pods = ['aaaaa', 'bbbbb'].map((s, i) =>
      deploymentPod(
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `memcached-sample-5d4f-${s}`, namespace: 'default', labels: template.metadata.labels },
          spec: template.spec,
          status:
            i === 0
              ? podStatus(c.statuses('memcached'), c.own === 'running')
              : podStatus([running('memcached'), running('istio-proxy')], true),
        } as unknown as KubeObject,
        'memcached-sample',
      ),
    );
    const res = memcachedSync(
      request('memcached', spec, { children: objectMap(observed), related: objectMap(pods) }),
      FIXED_NOW,
    );
    t.match(degradedOf(res), c.want);
  });

  t.test(`PodSet: a sidecar waiting for its image, the busybox container ${c.own}`, async (t) => {
    const spec = { size: 2, image: 'busybox:1.36', command: ['sleep', '3600'] };
    const first = podsetSync(request('podset', spec), FIXED_NOW);
    const pods = first.children.map((p, i) =>
      asObserved(
        p,
        i === 0
          ? podStatus(c.statuses('busybox'), c.own === 'running')
          : podStatus([running('busybox'), running('istio-proxy')], true),
      ),
    );
    const req = request('podset', spec, { children: objectMap(pods) });
    req.parent.status = first.status as never;
    const res = podsetSync(req, FIXED_NOW);
    t.match(degradedOf(res), c.want);
  });

  t.test(`MySQLCluster: a sidecar waiting for its image, the mysql container ${c.own}`, async (t) => {
    const spec = { size: 2, version: '8.0.36' };
    const services = { randomSecret: () => 'pw' };
    const created = await runHook(mysqlcluster, 'sync', request('mysqlcluster', spec), { now: FIXED_NOW, services });
    const observed = created.children.map((k) =>
      k.kind === 'StatefulSet'
        ? asObserved(k, {
            replicas: 2,
            readyReplicas: 2,
            currentReplicas: 2,
            updatedReplicas: 2,
            observedGeneration: 1,
          })
        : asObserved(k),
    );
    const sts = observed.find((k) => k.kind === 'StatefulSet')!;
    const members = [0, 1].map((i) =>
      clusterMember('my-mysql', i, {
        image: 'mysql:8.0.36',
        owner: sts.metadata.uid!,
        labels: { 'statefulset.kubernetes.io/pod-name': `my-mysql-mysql-${i}` },
        status:
          i === 1
            ? podStatus([...c.statuses('mysql'), running('replication')], c.own === 'running')
            : podStatus([running('mysql'), running('replication'), running('istio-proxy')], true),
      }),
    );
    const req = request('mysqlcluster', spec, { children: objectMap(observed), related: objectMap(members) });
    req.parent.status = created.status as never;
    const res = await runHook(mysqlcluster, 'sync', req, { now: FIXED_NOW, services });
    t.match(degradedOf(res), c.want);
  });
}
