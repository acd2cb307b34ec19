// The kinds that receive pods they do not make (their customize asks for them by label selector or by name), at the
// largest size their CRD accepts, with Istio's sidecar injected into every pod (test/fixtures/sidecars.ts: ~12 KB a pod
// more as stored): each sync request must stay within the hook server's body limit, else every sync is refused (413),
// no status is written again and nothing says why. Metacontroller sends every pod a selector matches.
//
// - Memcached (1000 pods, its Deployment's): its pods with a sidecar weigh ~17 KB each, ~17 MB at 1000: past what
//   fits it asks for none (status.nodes left out, PodsListed=False RequestTooLarge), and serves as usual.
// - MySQLCluster (9 members, a StatefulSet's) and EtcdBackup (a CronJob's Jobs: at most 3 kept of each outcome, each at
//   most 3 pods by its backoffLimit, and the one running): few pods, within the limit with room to spare.
// - EtcdCluster and PodSet make their pods themselves (their own bounds: test/podset/sync-request-within-body-limit-
//   with-injected-sidecars.test.ts); PodBuggerTool is a decorator synced per pod.
import t from 'tap';
import { backupChild } from '../../hooks/etcdbackup/sync.js';
import { memcached } from '../../hooks/memcached/index.js';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import type { EventSpec } from '../../lib/events.js';
import type { CompositeHookDefinition } from '../../lib/hook.js';
import type {
  CompositeSyncRequest,
  CompositeSyncResponse,
  KubeObject,
  ParentObject,
  RelatedResourceRule,
} from '../../lib/metacontroller.js';
import { LAST_APPLIED } from '../../lib/objects.js';
import { runHook } from '../../lib/operator.js';
import { largest as backupLargest } from '../etcdbackup/largest.js';
import { controllerRef, FIXED_NOW, objectMap } from '../fixtures/requests.js';
import { withIstioSidecar } from '../fixtures/sidecars.js';
import { applied, sentBytes, storedPod } from '../fixtures/stored-objects.js';
import { WORST_SPECS, worstAnswer, worstParent } from '../fixtures/worst.js';

/** Pod `i` of `template` made by `owner` (a ReplicaSet, a StatefulSet, a Job), as stored with Istio's sidecar. */
function injectedPod(template: any, name: string, namespace: string, owner: KubeObject, i: number): KubeObject {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: { ...template.metadata?.labels, 'pod-template-hash': '5d4f8b9c7d' } },
    spec: template.spec,
  } as KubeObject;
  const stored = storedPod(pod, owner as ParentObject, i) as any;
  // A controller's pod carries no last-applied copy (only what Metacontroller applies does).
  delete stored.metadata.annotations[LAST_APPLIED];
  stored.metadata.ownerReferences = [controllerRef(owner)];
  stored.spec.volumes = [...stored.spec.volumes, ...(template.spec.volumes ?? [])];
  return withIstioSidecar(stored);
}

/** Whether a customize answer's rules ask for pods by selector (every pod it matches is sent). */
async function asksPodsBySelector(def: CompositeHookDefinition, parent: ParentObject): Promise<boolean> {
  const rules = (await (def.customize as any)({ controller: {}, parent }, {}))
    .relatedResources as RelatedResourceRule[];
  return rules.some((r) => r.resource === 'pods' && r.labelSelector !== undefined);
}

const MEMCACHED_API = { apiVersion: 'cache.example.com/v1alpha1', kind: 'Memcached' };

/** A Memcached (`size`; at the longest name and image its CRD accepts when `worst`) settled with `count` pods. */
async function memcachedSettled(size: number, count: number, worst = true) {
  const parent = worst
    ? worstParent('memcached', { ...structuredClone(WORST_SPECS['memcached']!), size })
    : ({
        ...MEMCACHED_API,
        metadata: { name: 'cache', namespace: 'shop', uid: 'uid-cache', generation: 1 },
        spec: { size, image: 'memcached:1.6-alpine', port: 11211 },
      } as ParentObject);
  const first = await worstAnswer(memcached, parent);
  const deployment = first.children.find((c) => c.kind === 'Deployment')!;
  const name = parent.metadata.name!;
  const replicaSet = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: `${name}-5d4f8b9c7d`, uid: 'uid-rs' },
  } as KubeObject;
  const stored = first.children.map((c, i) => {
    const s = applied(c, parent, i) as any;
    if (c.kind === 'Deployment')
      s.status = {
        observedGeneration: 1,
        replicas: size,
        readyReplicas: size,
        updatedReplicas: size,
        availableReplicas: size,
      };
    if (c.kind === 'Deployment') s.metadata.generation = 1;
    return s as KubeObject;
  });
  const template = (deployment['spec'] as any).template;
  const pods = Array.from({ length: count }, (_, i) =>
    injectedPod(
      template,
      `${name}-5d4f8b9c7d-${String(i).padStart(5, 'x')}`,
      parent.metadata.namespace!,
      replicaSet,
      i,
    ),
  );
  const now = { ...parent, status: first.status } as ParentObject;
  const related = (await asksPodsBySelector(memcached, now)) ? pods : [];
  const request: CompositeSyncRequest = {
    controller: { metadata: { name: 'memcached' } } as never,
    parent: now,
    children: objectMap(stored),
    related: objectMap(related),
  };
  return { parent: now, request, related, bytes: sentBytes(request) };
}

t.test('a Memcached at its largest with a sidecar in every pod: each sync request within the body limit', async (t) => {
  const { related, bytes } = await memcachedSettled(1000, 1000);
  t.ok(
    bytes <= DEFAULT_BODY_LIMIT,
    `1000 pods, ${related.length} sent as related objects: ${bytes} bytes, within ${DEFAULT_BODY_LIMIT}`,
  );
});

t.test(
  'a Memcached whose pods are listed: within the body limit in a rollout, with a sidecar in every pod',
  async (t) => {
    let listedUpTo = 0;
    for (const size of [3, 50, 100, 150, 180, 200, 220, 250, 400]) {
      // The pods a rollout holds at once: the replicas, a 25% surge and as many old ones being deleted.
      const count = size + 2 * Math.ceil(size / 4);
      const { related, bytes } = await memcachedSettled(size, count);
      if (related.length > 0) listedUpTo = size;
      t.ok(bytes <= DEFAULT_BODY_LIMIT, `size ${size}, ${related.length} pods sent: ${bytes} bytes`);
    }
    t.ok(listedUpTo >= 100, `the pods are listed up to ${listedUpTo} replicas at the longest names and image`);
  },
);

async function told(request: CompositeSyncRequest) {
  const events: EventSpec[] = [];
  const res = await runHook(memcached, 'sync', request, {
    now: FIXED_NOW,
    services: { events: () => ({ record: async (_p, e) => void events.push(...e) }) },
  });
  return { res, events };
}

const conditionOf = (res: CompositeSyncResponse, type: string) =>
  ((res.status as any).conditions as Array<Record<string, unknown>>).find((c) => c['type'] === type);

t.test('a Memcached whose pods are not asked for says so, serves as usual, and is quiet at rest', async (t) => {
  const { request, parent } = await memcachedSettled(1000, 1000, false);
  // Its status as before this metaops (pods listed); even were pods sent (a customize answer kept from before), they
  // are not read.
  const before = { ...(parent.status as object), conditions: [], nodes: ['cache-5d4f8b9c7d-xxxx0'] };
  const first = await told({ ...request, parent: { ...parent, status: before } as ParentObject });
  t.match(conditionOf(first.res, 'Ready'), { status: 'True' }, 'the Deployment serves: Ready');
  t.match(conditionOf(first.res, 'PodsListed'), {
    status: 'False',
    reason: 'RequestTooLarge',
    message:
      /^spec\.size 1000 pods \(up to 1500 at once in a rollout\) of up to ~\d+ KiB each .* more than the 8\.0 MiB a request to the hooks may have: the pods are not asked for, so status\.nodes is left out.*\(at spec\.size \d+ or less the pods are listed\)$/,
  });
  t.equal((first.res.status as any).nodes, undefined, 'no status.nodes (no pod seen does not mean no pod)');
  t.match((first.res.status as any).ready, '1000/1000');
  t.same(
    first.res.children.map((c) => [c.kind, c.metadata.name, (c['spec'] as any).replicas]),
    [
      ['Deployment', 'cache', 1000],
      ['Service', 'cache-memcached', undefined],
      ['NetworkPolicy', 'cache-memcached', undefined],
    ],
    'the Deployment, Service and NetworkPolicy answered as usual: nothing deleted',
  );
  t.ok(
    first.events.some((e) => e.type === 'Warning' && e.reason === 'RequestTooLarge'),
    'a Warning event says it once',
  );
  const again = await told({ ...request, parent: { ...parent, status: first.res.status } as ParentObject });
  t.same(again.res.status, first.res.status, 'the same observed state: the same status');
  t.same(again.events, [], 'and nothing told again');
});

t.test('a MySQLCluster at its largest with a sidecar in every member: within the body limit', async (t) => {
  const parent = worstParent('mysqlcluster', structuredClone(WORST_SPECS['mysqlcluster']!));
  const first = await worstAnswer(mysqlcluster, parent);
  const sts = first.children.find((c) => c.kind === 'StatefulSet')!;
  const size = (parent.spec as any).size as number;
  t.equal(size, 9);
  const template = (sts['spec'] as any).template;
  const stored = first.children.map((c, i) => applied(c, parent, i));
  const pods = Array.from({ length: size }, (_, i) =>
    injectedPod(
      template,
      `${sts.metadata.name}-${i}`,
      parent.metadata.namespace!,
      stored.find((c) => c === c)!,
      i,
    ),
  );
  const claims = ((sts['spec'] as any).volumeClaimTemplates as any[]).flatMap((claim) =>
    pods.map((p, i) =>
      applied(
        {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: { ...claim.metadata, name: `${claim.metadata.name}-${p.metadata.name}` },
          spec: claim.spec,
        } as KubeObject,
        parent,
        i,
      ),
    ),
  );
  const request = {
    controller: { metadata: { name: 'mysqlcluster' } },
    parent: { ...parent, status: first.status },
    children: objectMap(stored),
    related: objectMap([...pods, ...claims, ...stored]),
  };
  const bytes = sentBytes(request);
  t.ok(bytes <= DEFAULT_BODY_LIMIT / 2, `${size} members with sidecars: ${bytes} bytes, half the body limit at most`);
});

t.test('an EtcdBackup at its largest with a sidecar in every pod of its Jobs: within the body limit', async (t) => {
  const parent = worstParent('etcdbackup', structuredClone(backupLargest['etcdbackup']!.spec) as any);
  const spec = parent.spec as any;
  const child = backupChild(
    parent,
    { ...spec, backupPolicy: { ...spec.backupPolicy } },
    'x'.repeat(512),
    spec.etcdEndpoints,
    { spared: { keys: Array.from({ length: 16 }, (_, i) => `${'k'.repeat(1060)}${i}`), all: false } },
  );
  t.equal(child.kind, 'CronJob');
  const template = (child['spec'] as any).jobTemplate.spec.template;
  // 3 successful Jobs of one pod, 3 failed ones of 3 pods (backoffLimit 2), the one running: 3 pods at most.
  const count = 3 + 3 * 3 + 3;
  const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j', uid: 'uid-job' } } as KubeObject;
  const pods = Array.from({ length: count }, (_, i) =>
    injectedPod(template, `${parent.metadata.name}-backup-${i}`, parent.metadata.namespace!, job, i),
  );
  const request = {
    controller: { metadata: { name: 'etcdbackup' } },
    parent,
    children: objectMap([applied(child, parent, 0)]),
    related: objectMap(pods),
  };
  const bytes = sentBytes(request);
  t.ok(
    bytes <= DEFAULT_BODY_LIMIT / 2,
    `${count} backup pods with sidecars: ${bytes} bytes, half the body limit at most`,
  );
});

t.test(
  'a Memcached from before the instance label whose pods are not asked for: its Service moves once the Deployment says every pod is updated',
  async (t) => {
    const { request } = await memcachedSettled(1000, 0, false);
    const selectorOf = (res: CompositeSyncResponse) =>
      (res.children.find((c) => c.kind === 'Service')!['spec'] as any).selector;
    const withStatus = (status: Record<string, unknown>) => {
      const children = structuredClone(request.children) as any;
      const svc = children['Service.v1']['cache-memcached'];
      delete svc.spec.selector['memcached.metaops.io/instance'];
      const deploy = children['Deployment.apps/v1']['cache'];
      deploy.metadata.generation = 2;
      deploy.status = { ...deploy.status, ...status };
      return { ...request, children };
    };
    const rolling = await told(withStatus({ observedGeneration: 2, replicas: 1250, updatedReplicas: 250 }));
    t.equal(selectorOf(rolling.res)['memcached.metaops.io/instance'], undefined, 'mid-rollout: name/instance still');
    const unseen = await told(withStatus({ observedGeneration: 1, replicas: 1000, updatedReplicas: 1000 }));
    t.equal(selectorOf(unseen.res)['memcached.metaops.io/instance'], undefined, 'the template not observed yet');
    const done = await told(withStatus({ observedGeneration: 2, replicas: 1000, updatedReplicas: 1000 }));
    t.equal(selectorOf(done.res)['memcached.metaops.io/instance'], 'cache', 'every pod updated: the label');
  },
);
