// A Memcached made before its pods carried `memcached.metaops.io/instance` (the label only its own pods carry, so
// that another workload labelled name=memcached,instance=<name> is not served): its Deployment's template gets the
// label (its pods roll once), and its Service keeps selecting name/instance until every pod of the Deployment
// carries the label, so that clients always have endpoints during the roll; then it selects on the label, for good.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { INSTANCE_LABEL } from '../../hooks/memcached/sync.js';
import { memcachedSync } from '../fixtures/hooks.js';
import { asObserved, deploymentPod, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const OLD = { 'app.kubernetes.io/name': 'memcached', 'app.kubernetes.io/instance': 'memcached-sample' };
const NEW = { ...OLD, [INSTANCE_LABEL]: 'memcached-sample' };

/** The children of a Memcached from before the label: template labels and Service selector name/instance only. */
function before(): KubeObject[] {
  const first = memcachedSync(request('memcached', { size: 2 }), FIXED_NOW);
  return first.children.map((c) => {
    const copy = structuredClone(c) as any;
    if (c.kind === 'Deployment') delete copy.spec.template.metadata.labels[INSTANCE_LABEL];
    if (c.kind === 'Service') copy.spec.selector = { ...OLD };
    return asObserved(
      copy,
      c.kind === 'Deployment' ? { replicas: 2, readyReplicas: 2, updatedReplicas: 2 } : undefined,
    );
  });
}

function pod(name: string, hash: string, labels: Record<string, string>): KubeObject {
  return deploymentPod(
    asObserved({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels } }, readyPod),
    'memcached-sample',
    hash,
  );
}

/** status.selector (the scale subresource's, an HPA's) for these labels: it follows the Service's selector. */
const scaleSelector = (labels: Record<string, string>) =>
  Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join(',');

function selectorOf(children: KubeObject[]) {
  return (children.find((c) => c.kind === 'Service') as any).spec.selector;
}

function templateOf(children: KubeObject[]) {
  return (children.find((c) => c.kind === 'Deployment') as any).spec.template.metadata.labels;
}

t.test('the template takes the label at once; the Service keeps name/instance while old pods run', async (t) => {
  const children = before();
  const old = [pod('memcached-sample-aaa-1', 'aaa', OLD), pod('memcached-sample-aaa-2', 'aaa', OLD)];
  const res = memcachedSync(
    request('memcached', { size: 2 }, { children: objectMap(children), related: objectMap(old) }),
    FIXED_NOW,
  );
  t.match(templateOf(res.children), NEW, 'the pod template carries the label');
  t.same(selectorOf(res.children), OLD, 'the Service still selects the running pods');
  t.equal((res.status as any).selector, scaleSelector(OLD), 'so does status.selector: an HPA sees the running pods');
  t.same((res.status as any).nodes, ['memcached-sample-aaa-1', 'memcached-sample-aaa-2']);
});

t.test('mid-rollout (old and new pods): the Service still selects both', async (t) => {
  const children = before().map((c) => {
    if (c.kind !== 'Deployment') return c;
    const copy = structuredClone(c) as any;
    copy.spec.template.metadata.labels[INSTANCE_LABEL] = 'memcached-sample';
    return copy;
  });
  const pods = [pod('memcached-sample-aaa-1', 'aaa', OLD), pod('memcached-sample-bbb-1', 'bbb', NEW)];
  const res = memcachedSync(
    request('memcached', { size: 2 }, { children: objectMap(children), related: objectMap(pods) }),
    FIXED_NOW,
  );
  t.same(selectorOf(res.children), OLD);
  t.equal((res.status as any).selector, scaleSelector(OLD), 'status.selector too');
});

t.test('every pod of the Deployment carries the label: the Service selects on it, and keeps it', async (t) => {
  const children = before().map((c) => {
    if (c.kind !== 'Deployment') return c;
    const copy = structuredClone(c) as any;
    copy.spec.template.metadata.labels[INSTANCE_LABEL] = 'memcached-sample';
    return copy;
  });
  // Another workload's pod labelled name/instance (not the label) does not hold the switch back.
  const foreign = asObserved(
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'memcached-sample-helm-0',
        namespace: 'default',
        labels: { ...OLD },
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'memcached-sample-helm', uid: 'x', controller: true },
        ],
      },
    } as KubeObject,
    readyPod,
  );
  const pods = [pod('memcached-sample-bbb-1', 'bbb', NEW), pod('memcached-sample-bbb-2', 'bbb', NEW), foreign];
  const res = memcachedSync(
    request('memcached', { size: 2 }, { children: objectMap(children), related: objectMap(pods) }),
    FIXED_NOW,
  );
  t.same(selectorOf(res.children), NEW, 'switched once the roll is over');
  t.equal((res.status as any).selector, scaleSelector(NEW), 'status.selector with it');
  // Fed back: the observed Service selects on the label; a new pod without it (never made by this template) does
  // not switch it back.
  const switched = res.children.map((c) =>
    c.kind === 'Deployment' ? children.find((o) => o.kind === c.kind)! : asObserved(c),
  );
  const later = memcachedSync(
    request(
      'memcached',
      { size: 2 },
      { children: objectMap(switched), related: objectMap([...pods, pod('memcached-sample-aaa-9', 'aaa', OLD)]) },
    ),
    FIXED_NOW,
  );
  t.same(selectorOf(later.children), NEW, 'switched for good');
  t.equal((later.status as any).selector, scaleSelector(NEW), 'status.selector for good');
});

t.test('a new Memcached: its Service selects on the label from the start', async (t) => {
  const res = memcachedSync(request('memcached', { size: 2 }), FIXED_NOW);
  t.same(selectorOf(res.children), NEW);
  t.equal((res.status as any).selector, scaleSelector(NEW));
  t.match(templateOf(res.children), NEW);
});
