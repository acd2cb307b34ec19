// Issue 30.5 ("a restore checks before it acts") and 30.6 (check-dns, spec.pod.busyboxImage). A restored member
// pod runs two images nothing running uses before the restore: spec.pod.busyboxImage (its check-dns step; member pods
// made before check-dns existed, or before busyboxImage was edited, keep their spec: a pod's init containers never
// change in place) and this project's image for its fetch step. The restore's check runs only this project's image.
// With a busyboxImage the nodes cannot pull (an air-gapped registry without it, a typo, Docker Hub's pull limit on
// the default busybox:1.28.0-glibc), the check passes, the running members are dropped, every restored member waits
// in Init:ImagePullBackOff, and 15 minutes later the restore ends RestoreFailed with no member at all. What the
// restored members need to start is known before the drop; the running cluster is the price of not checking it.
// The test kubelet here: every pod whose spec names the image that cannot be pulled waits on it (the check pod too,
// if it does), other pods run as the loop says.
// Each answer fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { RESTORE_CHECK_SECONDS, RESTORE_SECONDS, restoreCheckPod, sameCheck } from '../../hooks/etcdcluster/restore.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { restoreHook, restoreObject, running, type Loop } from '../fixtures/etcd-loop.js';
import { etcdParent, etcdSpec } from '../fixtures/etcd.js';
import { FIXED_NOW, asObserved } from '../fixtures/requests.js';

const BAD = 'registry.internal/busybox:1.28.0-glibc';
const later = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);
const images = (p: KubeObject) =>
  ['initContainers', 'containers'].flatMap((k) =>
    (((p['spec'] as any)?.[k] ?? []) as Array<{ name: string; image: string }>).map((c) => c),
  );

/** Pods whose spec names BAD wait on it, as a kubelet that cannot pull it reports them. */
function cannotPull(loop: Loop): void {
  for (const p of loop.children.filter((c) => c.kind === 'Pod')) {
    const bad = images(p).find((c) => c.image === BAD);
    if (!bad) continue;
    const waiting = { name: bad.name, state: { waiting: { reason: 'ImagePullBackOff' } } };
    loop.podStatus.set(p.metadata.name!, {
      phase: 'Pending',
      initContainerStatuses: [waiting],
      containerStatuses: [{ name: 'etcd', state: { waiting: { reason: 'PodInitializing' } } }],
    });
    if (p.metadata.name === 'e-restore-check') loop.check = 'running';
  }
}

t.test('a restore whose members cannot start (busyboxImage cannot be pulled) leaves the running members', async (t) => {
  const loop = await running({ size: 3 });
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2']);
  // busyboxImage edited to one the nodes cannot pull: the running members' pods keep the spec they were made with.
  loop.spec = { ...loop.spec, pod: { busyboxImage: BAD } };
  await loop.step();
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the running members untouched by the edit');
  const r = restoreObject('r', '2026-07-01T00:00:00Z');
  loop.related = [r];
  const end = RESTORE_CHECK_SECONDS + RESTORE_SECONDS + 120;
  let old = true;
  for (let s = 0; s <= end; s += 30) {
    loop.now = later(s);
    await loop.step();
    if (old && !loop.pods().includes('e-0')) {
      // The old members are dropped: etcd goes with them.
      old = false;
      loop.etcd.members = [];
      loop.etcd.up.clear();
    }
    cannotPull(loop);
    restoreHook(loop, r);
    if ((r['status'] as any)?.succeeded !== undefined) break;
  }
  t.equal((r['status'] as any)?.succeeded, false, `the restore fails: ${(r['status'] as any)?.reason}`);
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the running members were never dropped for it');
  t.not(loop.s().phase, 'Failed', `the cluster runs (${loop.s().phase}/${loop.s().reason})`);
});

t.test(
  'the check pod starts the busyboxImage the restored members will run; an edit of it makes a new check',
  async (t) => {
    const source = { s3: { path: 'b/k' }, image: 'metaops:test' };
    const pod = (busyboxImage?: string) =>
      restoreCheckPod(etcdParent({}), etcdSpec(busyboxImage ? { pod: { busyboxImage } } : {}), source, 'u');
    t.match((pod() as any).spec.initContainers, [{ name: 'busybox-image', image: 'busybox:1.28.0-glibc' }]);
    t.match((pod(BAD) as any).spec.initContainers, [
      { name: 'busybox-image', image: BAD, securityContext: { allowPrivilegeEscalation: false } },
    ]);
    t.ok(sameCheck(asObserved(pod(BAD)), pod(BAD)), 'the same check');
    t.notOk(sameCheck(asObserved(pod()), pod(BAD)), 'a check of another busyboxImage proves nothing for this one');
  },
);
