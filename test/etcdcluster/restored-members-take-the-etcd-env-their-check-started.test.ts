// A restore checks before it acts (issue 30.5): the check pod starts etcd as the restored members will (etcd-start:
// their image, a member's flags, spec.pod.etcdEnv) and only a check whose etcd served lets the old members be
// dropped; an etcdEnv edited while the check runs makes a new check pod (etcd.metaops.io/check-etcd-start). But
// nothing records what the check started: the restored members are made later (after the old members are dropped:
// Replacing, a sync or more, the old pods' grace period) from the spec as it is then. An etcdEnv edited in that window
// (a GitOps tool syncing the EtcdCluster, a hand edit: `ETCD_SNAPSHOT_COUNT=8G`, which etcd refuses at start)
// reaches every restored member unchecked: the running members are already gone, the restored ones all exit at
// start, and the cluster has no member until the restore's deadline says RestoreFailed.
//
// Must hold: the restored members start with the etcd env their check started (or the restore does not go on with
// an env it did not check). Each answer fed back as the next observed state.
import t from 'tap';
import { restoreObject, running, answeredPod } from '../fixtures/etcd-loop.js';

t.test("the restored members' etcd takes the env their check's etcd started with", async (t) => {
  const loop = await running({ size: 3, version: '3.6.9', pod: { etcdEnv: [{ name: 'GOMAXPROCS', value: '2' }] } });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  await loop.step();
  const check: any = loop.checkPod();
  const checked = check.spec.containers.find((c: any) => c.name === 'etcd-start').env;
  await loop.step();
  t.match(loop.s().restore, { phase: 'Replacing' }, 'the check passed: the old members are dropped');
  // The EtcdCluster edited now, after the verdict, before the restored members are made.
  loop.spec = { ...loop.spec, pod: { etcdEnv: [{ name: 'ETCD_SNAPSHOT_COUNT', value: '8G' }] } };
  loop.etcd.members = [];
  loop.etcd.up.clear();
  for (let i = 0; i < 3; i++) await loop.step();
  const restored = loop.pods();
  t.ok(restored.length > 0 || loop.s().restore?.phase !== 'Restoring', `restored members: ${restored.join(', ')}`);
  for (const name of restored) {
    const env = (answeredPod(loop, name) as any).spec.containers.find((c: any) => c.name === 'etcd').env;
    t.same(env, checked, `${name}'s etcd env is the one its check started: ${JSON.stringify(env)}`);
  }
});

// The same window for the images the check ran: a repository (a mirror) or busyboxImage edited after the check passed
// reaches no restored member unchecked; they take what the check ran, and the edit reaches pods made later.
t.test('the restored members take the images their check ran, whatever the spec says after it passed', async (t) => {
  const loop = await running({ size: 3, version: '3.6.9' });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  await loop.step();
  const check: any = loop.checkPod();
  const etcdImage = check.spec.containers.find((c: any) => c.name === 'etcd-start').image;
  const busybox = check.spec.initContainers.find((c: any) => c.name === 'busybox-image').image;
  await loop.step();
  t.match(loop.s().restore, { phase: 'Replacing' }, 'the check passed: the old members are dropped');
  loop.spec = {
    ...loop.spec,
    repository: 'mirror.example.com/etcd',
    pod: { ...(loop.spec as any).pod, busyboxImage: 'registry.example.com/busybox:9' },
  };
  loop.etcd.members = [];
  loop.etcd.up.clear();
  for (let i = 0; i < 3; i++) await loop.step();
  const restored = loop.pods();
  t.ok(restored.length > 0, `restored members: ${restored.join(', ')}`);
  for (const name of restored) {
    const spec = (answeredPod(loop, name) as any).spec;
    t.equal(spec.containers.find((c: any) => c.name === 'etcd').image, etcdImage, `${name}'s etcd image was checked`);
    t.equal(
      spec.initContainers.find((c: any) => c.name === 'check-dns').image,
      busybox,
      `${name}'s busybox image was checked`,
    );
  }
});
