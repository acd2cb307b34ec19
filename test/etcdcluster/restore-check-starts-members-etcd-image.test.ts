// A restore checks before it acts (issue 30.5): the check pod already starts the restored members' busyboxImage so
// that an image the nodes cannot pull is found before any running member is dropped
// (restore-members-images-checked-before-drop.test.ts). The restored members' etcd image (their restore-snapshot
// step and their etcd container) is the other image they need, and it is spec.repository's: edited in the same
// apply as the EtcdRestore (a move to a private mirror with a typo, one that lacks the tag), nothing running has
// pulled it. The members are dropped, every restored member waits on its image, RestoreFailed with no member left.
import t from 'tap';
import { running, restoreObject } from '../fixtures/etcd-loop.js';

for (const [what, change] of [
  ['spec.repository', { repository: 'mirror.example.invalid/etcd' }],
  ['spec.version (a tag that does not exist)', { version: '3.5.99' }],
] as const)
  t.test(
    `a restore whose members' etcd image no running member runs (${what} edited with it): the check starts that image before any member is dropped`,
    async (t) => {
      const loop = await running({ size: 3 });
      loop.spec = { ...loop.spec, ...change };
      loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
      loop.check = 'running';
      const checkImages = new Set<string>();
      const seeCheck = () => {
        const check = loop.children.find((c: any) => c.kind === 'Pod' && c.metadata.name === 'e-restore-check') as any;
        for (const c of [...(check?.spec.initContainers ?? []), ...(check?.spec.containers ?? [])])
          checkImages.add(c.image);
      };
      await loop.step();
      seeCheck();
      loop.check = { succeeded: true };
      await loop.step();
      seeCheck();
      let restored: any[] = [];
      for (let i = 0; i < 6 && restored.length === 0; i++) {
        await loop.step();
        seeCheck();
        restored = loop.children.filter(
          (c: any) => c.kind === 'Pod' && (c.spec.initContainers ?? []).some((x: any) => x.name === 'fetch-snapshot'),
        );
      }
      t.equal(restored.length, 3, 'the restored members are made');
      t.comment(`the check pod ran: ${[...checkImages].join(', ')}`);
      for (const p of restored) {
        const step = p.spec.initContainers.find((x: any) => x.name === 'restore-snapshot');
        for (const image of new Set([step.image, p.spec.containers[0].image]))
          t.ok(
            checkImages.has(image),
            `${p.metadata.name} needs ${image}: started by the check before the running members were dropped`,
          );
      }
    },
  );
