// Issue 30, "coreos compatibility where users read it: the etcd_node pod label". etcd-operator labelled every member
// pod etcd_node=<pod name>; this version labels the pods it makes (members.ts memberPod), and a running member's pod
// can take a new label in place (a label is metadata, which Metacontroller updates in place: sync.ts
// withMemberLabels sets it with INSTANCE_LABEL). Member pods made before this version (restartPolicy Never) must not
// wait to be moved to restart in place for it, as some are never moved ("moved once the cluster has storage, 3 members, or etcd
// 3.4+ with 2", plan/members.ts): a single-member cluster without storage keeps its pod for as long as it runs, and a
// selector on etcd_node (`kubectl get pod -l etcd_node=e-0`, a coreos-era dashboard, alert or backup script) finds
// no member of it, ever.
// Each answer fed back as the next observed state.
import t from 'tap';
import { running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test('a running member pod made before the etcd_node label, never moved, carries it', async (t) => {
  const loop = await running({ size: 1 });
  // As the version before made it: restartPolicy Never, no etcd_node.
  for (const c of loop.children.filter((x) => x.kind === 'Pod')) {
    (c as any).spec.restartPolicy = 'Never';
    delete (c.metadata.labels as Record<string, string>)['etcd_node'];
  }
  for (let i = 1; i <= 60; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
    await loop.step();
  }
  const pods = loop.children.filter((c) => c.kind === 'Pod') as any[];
  t.comment(
    JSON.stringify(pods.map((p) => [p.metadata.name, p.spec.restartPolicy, p.metadata.labels?.['etcd_node'] ?? null])),
  );
  t.same(loop.pods(), ['e-0'], 'the same pod, kept (not moved: one member without storage)');
  t.equal(pods[0]?.metadata.labels?.['etcd_node'], 'e-0', 'after an hour it carries etcd_node=e-0');
});
