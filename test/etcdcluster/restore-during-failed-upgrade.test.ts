// A restore checks before it acts (issue 30.5) and a failed upgrade stops (issue 30.4). An upgrade to 3.5.99 failed
// (its image cannot be pulled, or its etcd exits): the cluster is held on 3.5.0, the version that runs, as long as
// spec.version asks for 3.5.99. The user then restores a backup (the reason for the upgrade, or a clean copy).
// The restore drops every member that runs; the members it starts must run the version the cluster runs, not the one
// the hook knows fails: on 3.5.99 every restored member waits on its image (or crashes), the restore ends
// RestoreFailed past its deadline with no member left, where the old members ran fine.
import t from 'tap';
import { failureLasts, running, restoreObject, type Loop } from '../fixtures/etcd-loop.js';

const IMAGE = (v: string) => `quay.io/coreos/etcd:v${v}`;
const images = (loop: Loop) =>
  Object.fromEntries(
    loop.children.filter((c) => c.kind === 'Pod').map((p: any) => [p.metadata.name, p.spec.containers[0].image]),
  ) as Record<string, string>;

t.test(
  'a restore while a failed upgrade holds the cluster: the restored members run the version that ran',
  async (t) => {
    const loop = await running({ size: 3 });
    loop.spec = { ...loop.spec, version: '3.5.99' };
    await loop.step();
    const moved = Object.entries(images(loop)).find(([, img]) => img === IMAGE('3.5.99'))?.[0];
    t.ok(moved, `a member is upgraded: ${moved}`);
    loop.etcd.up.delete(moved!);
    loop.phase.set(moved!, 'Pending');
    loop.podStatus.set(moved!, {
      containerStatuses: [{ name: 'etcd', state: { waiting: { reason: 'ImagePullBackOff' } } }],
    });
    // (The refused pull lasts: UPGRADE_FAIL_SECONDS by the status's clock.)
    await failureLasts(loop, (failed) => t.notOk(failed, 'not failed at the first refused pull seen'));
    t.match(loop.s().upgradeFailed, { version: '3.5.99', from: '3.5.0' }, 'the upgrade failed: held on 3.5.0');
    loop.phase.delete(moved!);
    loop.podStatus.delete(moved!);
    loop.etcd.up.add(moved!);
    await loop.step();
    t.same(Object.values(images(loop)), Array(3).fill(IMAGE('3.5.0')), 'every member on 3.5.0');

    loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
    loop.check = 'running';
    await loop.step();
    loop.check = { succeeded: true };
    await loop.step();
    t.match(loop.s().restore, { phase: 'Replacing' });
    let restored: any[] = [];
    for (let i = 0; i < 4 && restored.length === 0; i++) {
      await loop.step();
      restored = loop.children.filter(
        (c: any) => c.kind === 'Pod' && (c.spec.initContainers ?? []).some((x: any) => x.name === 'fetch-snapshot'),
      );
    }
    t.equal(restored.length, 3, 'the restored members are made');
    for (const p of restored) {
      t.equal(p.spec.containers[0].image, IMAGE('3.5.0'), `${p.metadata.name} runs the version the cluster ran`);
      const step = p.spec.initContainers.find((x: any) => x.name === 'restore-snapshot');
      t.equal(step.image, IMAGE('3.5.0'), `${p.metadata.name}'s restore step runs an image that can be pulled`);
    }
  },
);

t.test(
  'a restore while a failed change of spec.repository holds the cluster: the restored members run the image that ran',
  async (t) => {
    const BAD = 'mirror.example.invalid/etcd:v3.5.0';
    const loop = await running({ size: 3 });
    loop.spec = { ...loop.spec, repository: 'mirror.example.invalid/etcd' };
    await loop.step();
    const moved = Object.entries(images(loop)).find(([, img]) => img === BAD)?.[0];
    t.ok(moved, `a member is moved: ${moved}`);
    loop.etcd.up.delete(moved!);
    loop.phase.set(moved!, 'Pending');
    loop.podStatus.set(moved!, {
      containerStatuses: [{ name: 'etcd', state: { waiting: { reason: 'ImagePullBackOff' } } }],
    });
    // (The refused pull lasts: UPGRADE_FAIL_SECONDS by the status's clock.)
    await failureLasts(loop, (failed) => t.notOk(failed, 'not failed at the first refused pull seen'));
    t.match(loop.s().upgradeFailed, { image: BAD, fromImage: IMAGE('3.5.0') }, 'held on the image that ran');
    loop.phase.delete(moved!);
    loop.podStatus.delete(moved!);
    loop.etcd.up.add(moved!);
    await loop.step();
    loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
    loop.check = 'running';
    await loop.step();
    loop.check = { succeeded: true };
    await loop.step();
    let restored: any[] = [];
    for (let i = 0; i < 4 && restored.length === 0; i++) {
      await loop.step();
      restored = loop.children.filter(
        (c: any) => c.kind === 'Pod' && (c.spec.initContainers ?? []).some((x: any) => x.name === 'fetch-snapshot'),
      );
    }
    t.equal(restored.length, 3, 'the restored members are made');
    for (const p of restored)
      t.equal(p.spec.containers[0].image, IMAGE('3.5.0'), `${p.metadata.name} runs the image the cluster ran`);
  },
);
