// The upgrade record on member pods (etcd.metaops.io/upgraded-from) is the hook's own. A
// spec.pod.annotations entry of that name is copied into every member pod; a member that then crashes on the version
// the cluster runs (an OOM kill, no upgrade under way) is taken as a failed upgrade and "rolled back" to the version
// the annotation names: a downgrade etcd refuses (spec.version 3.4.0 would be UpgradeRefused), made by the hook.
import t from 'tap';
import { CRASHING, images, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';

const condition = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);

t.test('spec.pod.annotations naming upgraded-from: a crash at the running version is no failed upgrade', async (t) => {
  const loop = await running({ size: 3, pod: { annotations: { 'etcd.metaops.io/upgraded-from': '3.3.0' } } });
  const pods = loop.children.filter((c) => c.kind === 'Pod');
  for (const p of pods)
    t.not(p.metadata.annotations?.['etcd.metaops.io/upgraded-from'], '3.3.0', `${p.metadata.name}: no forged record`);
  loop.etcd.up.delete('e-1');
  loop.podStatus.set('e-1', CRASHING);
  for (let i = 0; i < 3; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + (10 + i) * 60_000);
    await loop.step();
  }
  t.notMatch(condition(loop.last, 'Upgrading') ?? {}, { reason: 'UpgradeFailed' }, 'no failed upgrade');
  t.equal(images(loop)['e-1'], 'quay.io/coreos/etcd:v3.5.0', 'e-1 stays on the version the cluster runs');
});

t.test("spec.pod.annotations naming the operator's own are dropped, and a condition says so", async (t) => {
  const loop = await running({
    size: 1,
    pod: { annotations: { 'etcd.database.coreos.com/restore-uid': 'x', team: 'a' } },
  });
  const pod = loop.children.find((c) => c.kind === 'Pod')!;
  t.equal(pod.metadata.annotations?.['etcd.database.coreos.com/restore-uid'], undefined, 'no forged restore record');
  t.equal(pod.metadata.annotations?.['team'], 'a', "the tenant's own annotation is set");
  t.match(condition(loop.last, 'PodAnnotationsAccepted'), { status: 'False', reason: 'OwnAnnotationsDropped' });
});
