// A new cluster with storage bootstraps its members together: their claims are answered first and their pods at the
// next sync (a member pod is answered only once its claim is observed as the cluster's own). Between that answer and
// Metacontroller's create, another owner made a claim under one member's name (a StatefulSet `x` of template `data`
// names its claims `data-x-<i>`): that claim's create is refused (AlreadyExists) and never becomes the cluster's.
//
// A bootstrap is held there, as it is when the name was taken before its answer (docs/etcdcluster.md: the bootstrap's
// members are held when one of their names is taken; a restore, whose old members are gone, and a scale-up take free
// names instead): nothing was served and nothing is lost while it waits, Ready=False PersistentVolumeClaimNameTaken
// names the holder, no member pod is made (none on the other owner's claim), the claims it made are kept, and once
// the other owner's claim is gone the same bootstrap goes on under its names and the cluster comes up.
import t from 'tap';
import '../../main/operators.js';
import { clusterOf, peerURL } from '../../hooks/etcdcluster/members.js';
import { FakeEtcd, Loop, PVC, statefulSetClaim } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const condition = (s: any, type: string) => (s?.conditions ?? []).find((c: any) => c.type === type);

/**
 * The bootstrap's pods start: etcd lists every initial member (e-0..e-2, named once its pod runs), and each pod made
 * answers.
 */
function bootstrapServes(loop: Loop): void {
  if (loop.pods().length === 0) return;
  const c = clusterOf(loop.parent(), loop.parent().spec as any);
  if (loop.etcd.members.length === 0)
    loop.etcd.members = ['e-0', 'e-1', 'e-2'].map((name, i) => ({
      id: String(1 + i),
      name: '',
      peerURLs: [peerURL(c, name)],
      clientURLs: [],
      isLearner: false,
    }));
  for (const p of loop.pods()) loop.etcd.up.add(p);
}

t.test(
  'a bootstrap one of whose claim names another owner took between its answer and the create is held, then goes on',
  async (t) => {
    const loop = new Loop({ size: 3, pod: { persistentVolumeClaimSpec: PVC } }, new FakeEtcd());
    await loop.step();
    t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], "the bootstrap's claims answered first");
    t.same(loop.pods(), [], 'no pod before its claim is observed');
    loop.related.push(statefulSetClaim('e-2'));
    const refused = () =>
      (loop.children = loop.children.filter((c) => !(c.kind === 'PersistentVolumeClaim' && c.metadata.name === 'e-2')));
    refused();
    for (let i = 0; i < 10; i++) {
      loop.now = new Date(FIXED_NOW.getTime() + (i + 1) * 60_000);
      await loop.step();
      refused();
    }
    t.match(
      condition(loop.s(), 'Ready'),
      { status: 'False', reason: 'PersistentVolumeClaimNameTaken', message: /^PersistentVolumeClaim e-2 belongs to/ },
      'held, naming the claim and its holder',
    );
    t.same(loop.pods(), [], "no member pod made while held (none on the other owner's claim)");
    t.same(loop.claims(), ['e-0', 'e-1'], 'the claims it made are kept');
    // The other owner's claim is deleted: the same bootstrap goes on under its names.
    loop.related = [];
    for (let i = 10; i < 20; i++) {
      loop.now = new Date(FIXED_NOW.getTime() + (i + 1) * 60_000);
      await loop.step();
      bootstrapServes(loop);
    }
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the bootstrap made under its own names');
    t.equal(condition(loop.s(), 'Ready')?.status, 'True', `Ready (${JSON.stringify(condition(loop.s(), 'Ready'))})`);
  },
);
