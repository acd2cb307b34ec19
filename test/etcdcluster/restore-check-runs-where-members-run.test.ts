// A restore checks before it acts (issue 30.5): the check pod starts the images the restored members need (their
// busyboxImage, their etcd image) "so that an image the nodes cannot pull or run is found before any member is
// dropped" (hooks/etcdcluster/restore.ts restoreCheckPod). Which nodes can pull or run an image depends on the node:
// an arm64 pool and an image built for amd64 only (exec format error), a pool with its own registry mirror or
// credentials. The members run where spec.pod places them (nodeSelector, tolerations, affinity); a check pod
// scheduled anywhere proves the images on some other node, and the members are dropped on its word.
import t from 'tap';
import { running, restoreObject } from '../fixtures/etcd-loop.js';

const placement = {
  nodeSelector: { 'kubernetes.io/arch': 'arm64', pool: 'etcd' },
  tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'etcd', effect: 'NoSchedule' }],
};

t.test('the restore check pod is placed where the restored members will run (spec.pod placement)', async (t) => {
  const loop = await running({ size: 3 });
  loop.settings = { podTolerations: ['dedicated'] }; // the server allows the taint the test places members by
  loop.spec = { ...loop.spec, version: '3.5.99', pod: { ...(loop.spec.pod ?? {}), ...placement } };
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  loop.check = 'running';
  await loop.step();
  const check = loop.children.find((c: any) => c.kind === 'Pod' && c.metadata.name === 'e-restore-check') as any;
  t.ok(check, 'a check pod');
  t.same(check?.spec.nodeSelector, placement.nodeSelector, "the members' nodeSelector");
  t.same(check?.spec.tolerations, placement.tolerations, "the members' tolerations");
});
