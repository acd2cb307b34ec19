// A restore checks before it destroys, and deletion happens only on an explicit, recorded decision: an
// EtcdRestore restored the cluster; its restored members serve (Available, 3 of 3) and take
// writes. The EtcdRestore's own status does not say succeeded yet (its controller lags, is restarted, or its status
// was lost too: a namespace restored from a Kubernetes backup comes back without status). Then Metacontroller sends
// the EtcdCluster without its status. The observed state says the members serving ARE that restore's result (their
// pods carry its restore steps, etcd answers with a cluster ID this cluster made): dropping them and restoring the
// snapshot again throws away every write since. Each answer fed back as the next observed state.
import t from 'tap';
import { restoreObject, running } from '../fixtures/etcd-loop.js';
import { clusterOf, peerURL, RESTORED_BY } from '../../hooks/etcdcluster/members.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const later = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);

t.test('a restored cluster that serves is not restored again when its status is lost', async (t) => {
  const loop = await running({ size: 3 });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  for (let i = 0; i < 3; i++) await loop.step();
  t.same(loop.pods(), ['e-3', 'e-4', 'e-5'], 'restored members started');
  // They serve: etcd lists them, each answers.
  const c = clusterOf(loop.parent(), loop.parent().spec as any);
  loop.etcd.members = ['e-3', 'e-4', 'e-5'].map((n, i) => ({
    id: String(50 + i),
    name: n,
    peerURLs: [peerURL(c, n)],
    clientURLs: [],
    isLearner: false,
  }));
  loop.etcd.up = new Set(['e-3', 'e-4', 'e-5']);
  for (let i = 0; i < 2; i++) {
    loop.now = later(30 * (i + 1));
    await loop.step();
  }
  t.match(loop.s().restore, { name: 'r', phase: 'Restored' }, 'restored');
  t.match(
    loop.s().conditions.find((x: any) => x.type === 'Available'),
    { status: 'True' },
    'serving',
  );
  loop.status = undefined;
  for (let i = 0; i < 4; i++) {
    loop.now = later(120 + 60 * (i + 1));
    await loop.step();
    t.same(
      loop.pods(),
      ['e-3', 'e-4', 'e-5'],
      `sync ${i + 1}: the serving members are kept (${loop.pods().join(',')})`,
    );
  }
  t.notOk(loop.checkPod(), 'the snapshot is not checked again for a second restore');
});

t.test('the restore record on a member pod is never taken from spec.pod.annotations', async (t) => {
  const loop = await running({ size: 3, pod: { annotations: { [RESTORED_BY]: 'uid-r', team: 'a' } } });
  for (const p of loop.children.filter((c) => c.kind === 'Pod')) {
    t.notOk(p.metadata.annotations?.[RESTORED_BY], `${p.metadata.name}: no restore record on a member never restored`);
    t.equal(p.metadata.annotations?.['team'], 'a', 'the other annotations kept');
  }
  // So a restore whose EtcdRestore has no record yet, over these members, is a new restore: checked first.
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  await loop.step();
  t.match(loop.s().restore, { name: 'r', phase: 'Checking' }, 'checked as a new restore');
  t.ok(loop.checkPod(), 'its snapshot checked');
});
