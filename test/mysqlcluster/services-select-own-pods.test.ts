// A MySQLCluster `db` beside another MySQL in its namespace whose pods carry the same recommended labels (a Helm
// chart's MySQL installed as release `db`: app.kubernetes.io/name=mysql, app.kubernetes.io/instance=db), or pods made
// by hand with those labels. They are not the cluster's: its write, read and headless Services do not send clients to
// them, and they are not members. The pods of its own StatefulSet carry `mysqlcluster.metaops.io/instance: <name>`, a
// label only metaops sets; a cluster made by an earlier metaops rolls its pods once to take it, and its Services keep
// selecting name/instance until every member carries it (clients always have endpoints), then select on it for good.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { INSTANCE_LABEL } from '../../hooks/mysqlcluster/sync.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { shopPod, type PodOwner } from '../fixtures/mysql-pods.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const OLD = { 'app.kubernetes.io/name': 'mysql', 'app.kubernetes.io/instance': 'db' };

function base() {
  const r = request('mysqlcluster', { size: 2, version: '8.0' });
  r.parent.metadata = { ...r.parent.metadata, name: 'db', namespace: 'shop', uid: 'uid-db' };
  return r;
}

const STS_UID = 'uid-StatefulSet-db-mysql';

/** A member-like pod carrying `labels` (and the StatefulSet's pod-name label), made by `owner`. */
const pod = (name: string, labels: Record<string, string>, owner: PodOwner): KubeObject =>
  shopPod(name, { labels: { ...labels, 'statefulset.kubernetes.io/pod-name': name }, owner });

const own = { kind: 'StatefulSet', name: 'db-mysql', uid: STS_UID };
const helm = { kind: 'StatefulSet', name: 'db-helm-mysql', uid: 'uid-helm' };

/** Whether a selector selects a pod carrying these labels. */
const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

/** Whether status.selector (the scale subresource's, an HPA's) names the label only its own pods carry. */
const scaleOwn = (res: { status?: unknown }) =>
  String((res.status as { selector?: unknown }).selector)
    .split(',')
    .includes(`${INSTANCE_LABEL}=db`);

const services = (children: KubeObject[]) => children.filter((c) => c.kind === 'Service') as any[];
const template = (children: KubeObject[]) =>
  (children.find((c) => c.kind === 'StatefulSet') as any).spec.template.metadata.labels;

/** The children of a cluster made before the label: template and Services on name/instance only. */
function before(): KubeObject[] {
  const first = mysqlSync(base(), FIXED_NOW);
  return first.children.map((c) => {
    const copy = structuredClone(c) as any;
    if (c.kind === 'StatefulSet') delete copy.spec.template.metadata.labels[INSTANCE_LABEL];
    if (c.kind === 'Service')
      for (const k of Object.keys(copy.spec.selector)) if (k === INSTANCE_LABEL) delete copy.spec.selector[k];
    return asObserved(copy, c.kind === 'StatefulSet' ? { replicas: 2, readyReplicas: 2 } : undefined);
  });
}

t.test("a new cluster's Services select only pods carrying the label metaops sets on its own pods", async (t) => {
  const res = mysqlSync(base(), FIXED_NOW);
  t.equal(template(res.children)[INSTANCE_LABEL], 'db', 'the pod template carries the label');
  const foreign = { ...OLD, 'statefulset.kubernetes.io/pod-name': 'db-mysql-0' };
  for (const svc of services(res.children)) {
    t.notOk(
      selects(svc.spec.selector, foreign),
      `Service ${svc.metadata.name} (${JSON.stringify(svc.spec.selector)}) does not select a pod of another release labelled ${JSON.stringify(foreign)}`,
    );
    t.equal(svc.spec.selector[INSTANCE_LABEL], 'db');
  }
});

t.test('pods of another release with the same labels are not members', async (t) => {
  const first = mysqlSync(base(), FIXED_NOW);
  const children = objectMap(first.children.map((c) => asObserved(c)));
  const mine = { ...OLD, [INSTANCE_LABEL]: 'db' };
  const req = {
    ...base(),
    children,
    related: objectMap([pod('db-mysql-0', mine, own), pod('db-mysql-1', mine, own), pod('db-helm-mysql-0', OLD, helm)]),
  };
  const res = mysqlSync(req, FIXED_NOW);
  t.same(
    ((res.status as any).members ?? []).map((m: any) => m.name),
    ['db-mysql-0', 'db-mysql-1'],
  );
  t.same((res.status as any).nodes, ['db-mysql-0', 'db-mysql-1']);
  for (const svc of services(res.children)) t.equal(svc.spec.selector[INSTANCE_LABEL], 'db', svc.metadata.name);
});

t.test('a cluster from before the label: the template takes it, the Services wait for every member', async (t) => {
  const children = before();
  const oldPods = [pod('db-mysql-0', OLD, own), pod('db-mysql-1', OLD, own)];
  const res = mysqlSync({ ...base(), children: objectMap(children), related: objectMap(oldPods) }, FIXED_NOW);
  t.equal(template(res.children)[INSTANCE_LABEL], 'db', 'the pod template carries the label (one roll)');
  for (const svc of services(res.children))
    t.notOk(INSTANCE_LABEL in svc.spec.selector, `${svc.metadata.name} still selects the running members`);
  t.notOk(scaleOwn(res), 'status.selector too: an HPA sees the running members');

  // Mid-roll: the template has it, one member does.
  const rolling = children.map((c) => {
    if (c.kind !== 'StatefulSet') return c;
    const copy = structuredClone(c) as any;
    copy.spec.template.metadata.labels[INSTANCE_LABEL] = 'db';
    return copy;
  });
  const mine = { ...OLD, [INSTANCE_LABEL]: 'db' };
  const mid = mysqlSync(
    {
      ...base(),
      children: objectMap(rolling),
      related: objectMap([pod('db-mysql-0', OLD, own), pod('db-mysql-1', mine, own)]),
    },
    FIXED_NOW,
  );
  for (const svc of services(mid.children))
    t.notOk(INSTANCE_LABEL in svc.spec.selector, `${svc.metadata.name} mid-roll`);
  t.notOk(scaleOwn(mid), 'status.selector mid-roll');

  // Every member carries it (a pod of another release does not hold the switch back): switched, and for good.
  const rolled = [pod('db-mysql-0', mine, own), pod('db-mysql-1', mine, own), pod('db-helm-mysql-0', OLD, helm)];
  const done = mysqlSync({ ...base(), children: objectMap(rolling), related: objectMap(rolled) }, FIXED_NOW);
  for (const svc of services(done.children))
    t.equal(svc.spec.selector[INSTANCE_LABEL], 'db', `${svc.metadata.name} switched`);
  t.ok(scaleOwn(done), 'status.selector switched with them');
  const switched = rolling.map((c) =>
    c.kind === 'Service'
      ? asObserved(done.children.find((d) => d.kind === 'Service' && d.metadata.name === c.metadata.name)!)
      : c,
  );
  const later = mysqlSync(
    {
      ...base(),
      children: objectMap(switched),
      related: objectMap([pod('db-mysql-0', OLD, own), pod('db-mysql-1', mine, own)]),
    },
    FIXED_NOW,
  );
  for (const svc of services(later.children))
    t.equal(svc.spec.selector[INSTANCE_LABEL], 'db', `${svc.metadata.name} for good`);
  t.ok(scaleOwn(later), 'status.selector for good');
});
