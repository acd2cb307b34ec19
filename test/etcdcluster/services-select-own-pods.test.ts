// An EtcdCluster `e` beside other pods in its namespace that carry etcd-operator's labels `app=etcd,
// etcd_cluster=e` (an etcd-operator's leftovers, a Helm chart's etcd, pods made by hand; issue 31: parents side by
// side). They are not its members: its peer (headless) and client Services send them no traffic and give them no
// member DNS name, its disruption budget does not count them, and the scale subresource's selector does not name
// them. Its member pods carry `etcdcluster.metaops.io/instance: <name>`, a label only metaops sets (a spec.pod.labels
// key under metaops.io is dropped). A cluster made by an earlier metaops gets the label on its running members in
// place (a label is metadata: no member is restarted, replaced or changed otherwise), and its Services, budget and
// selector keep selecting etcd-operator's labels until every member pod carries it (a member never loses its DNS
// name or its clients), then select on it for good. Each answer fed back as the next observed state.
import t from 'tap';
import { INSTANCE_LABEL } from '../../hooks/etcdcluster/members.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { running, type Loop } from '../fixtures/etcd-loop.js';

const LEGACY = { app: 'etcd', etcd_cluster: 'e' };
const OWN = { ...LEGACY, [INSTANCE_LABEL]: 'e' };

/** Whether a selector selects a pod carrying these labels. */
const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

const kind = (children: KubeObject[], k: string) => children.filter((c) => c.kind === k) as any[];
const selectors = (children: KubeObject[]) => [
  ...kind(children, 'Service').map((s) => [`Service ${s.metadata.name}`, s.spec.selector]),
  ...kind(children, 'PodDisruptionBudget').map((b) => [`budget ${b.metadata.name}`, b.spec.selector.matchLabels]),
];
const podLabels = (loop: Loop) =>
  Object.fromEntries(kind(loop.children, 'Pod').map((p) => [p.metadata.name, p.metadata.labels[INSTANCE_LABEL]]));

/** A cluster as an earlier metaops left it: member pods without the label, Services and budget on etcd-operator's. */
function fromBefore(loop: Loop): void {
  loop.children = loop.children.map((c) => {
    const copy = structuredClone(c) as any;
    if (c.kind === 'Pod') delete copy.metadata.labels[INSTANCE_LABEL];
    if (c.kind === 'Service') copy.spec.selector = { ...LEGACY };
    if (c.kind === 'PodDisruptionBudget') copy.spec.selector = { matchLabels: { ...LEGACY } };
    return copy;
  });
  loop.status = { ...loop.s(), selector: 'app=etcd,etcd_cluster=e' };
}

t.test("a new cluster's Services and budget select only its own member pods", async (t) => {
  const loop = await running({ size: 3 });
  t.same(podLabels(loop), { 'e-0': 'e', 'e-1': 'e', 'e-2': 'e' }, 'every member pod carries the label');
  const foreign = { ...LEGACY, etcd_node: 'e-0' };
  for (const [what, selector] of selectors(loop.children)) {
    t.same(selector, OWN, `${what} selects on the label`);
    t.notOk(selects(selector, foreign), `${what} does not select another pod labelled ${JSON.stringify(foreign)}`);
  }
  t.equal(loop.s().selector, `app=etcd,etcd_cluster=e,${INSTANCE_LABEL}=e`, 'the scale selector names it too');
});

t.test('spec.pod.labels cannot set the label (another cluster could take its pods into its Services)', async (t) => {
  const loop = await running({ size: 1, pod: { labels: { [INSTANCE_LABEL]: 'other', team: 'a' } } });
  const pod = kind(loop.children, 'Pod')[0];
  t.equal(pod.metadata.labels[INSTANCE_LABEL], 'e');
  t.equal(pod.metadata.labels.team, 'a');
});

t.test('a cluster from before the label: members labelled in place, the Services switch once all are', async (t) => {
  const loop = await running({ size: 3 });
  fromBefore(loop);
  const before = structuredClone(kind(loop.children, 'Pod'));
  const first = await loop.step();
  t.same(loop.etcd.calls, [], 'no membership change');
  t.same(podLabels(loop), { 'e-0': 'e', 'e-1': 'e', 'e-2': 'e' }, 'every member pod is answered with the label');
  for (const p of kind(first.children, 'Pod')) {
    const was = before.find((b) => b.metadata.name === p.metadata.name)!;
    const { [INSTANCE_LABEL]: _label, ...rest } = p.metadata.labels;
    t.same(rest, was.metadata.labels, `${p.metadata.name}: no other label changed`);
    t.same(p.spec, was.spec, `${p.metadata.name}: its spec is as it was (changed in place, not restarted)`);
    t.same(p.metadata.annotations, was.metadata.annotations, `${p.metadata.name}: annotations as they were`);
  }
  for (const [what, selector] of selectors(first.children))
    t.same(selector, LEGACY, `${what} still selects the running members (they are not labelled yet)`);
  t.equal((first.status as any).selector, 'app=etcd,etcd_cluster=e');

  // Fed back: every member carries the label now. Switched.
  const second = await loop.step();
  for (const [what, selector] of selectors(second.children)) t.same(selector, OWN, `${what} switched`);
  t.equal((second.status as any).selector, `app=etcd,etcd_cluster=e,${INSTANCE_LABEL}=e`);
  t.same(loop.etcd.calls, [], 'no membership change');
  t.match(
    (second.status as any).conditions.find((c: any) => c.type === 'Available'),
    { status: 'True' },
  );

  // For good: a member whose label is gone (removed by hand) gets it back, the Services stay on it.
  const pod = loop.children.find((c) => c.kind === 'Pod' && c.metadata.name === 'e-1') as any;
  delete pod.metadata.labels[INSTANCE_LABEL];
  const third = await loop.step();
  for (const [what, selector] of selectors(third.children)) t.same(selector, OWN, `${what} for good`);
  t.equal(podLabels(loop)['e-1'], 'e', 'labelled again');
});

t.test('mid-way (one member not labelled yet): the Services wait', async (t) => {
  const loop = await running({ size: 3 });
  fromBefore(loop);
  // e-0 and e-1 carry it (labelled by an answer already applied), e-2 not yet.
  for (const c of loop.children as any[])
    if (c.kind === 'Pod' && c.metadata.name !== 'e-2') c.metadata.labels[INSTANCE_LABEL] = 'e';
  const res = await loop.step();
  for (const [what, selector] of selectors(res.children)) t.same(selector, LEGACY, `${what} waits for e-2`);
  t.same(podLabels(loop), { 'e-0': 'e', 'e-1': 'e', 'e-2': 'e' });
});
