// A restore checks before it acts (issue 30.5): the check pod starts the restored members' images where the members
// will run (restore.ts checkPlacement: spec.pod's nodeSelector, tolerations and node affinity). Not the members'
// pod (anti-)affinity: one member to a node would keep the check pod, no member, off every node. A placement edited
// while the check runs makes a new check pod (the old one proved the images elsewhere); tolerations the API server
// adds to the pod it made (DefaultTolerationSeconds) do not, nor does a check pod made before placements were given,
// where spec.pod gives none.
import t from 'tap';
import { running, restoreObject } from '../fixtures/etcd-loop.js';

const nodeAffinity = {
  requiredDuringSchedulingIgnoredDuringExecution: {
    nodeSelectorTerms: [{ matchExpressions: [{ key: 'pool', operator: 'In', values: ['etcd'] }] }],
  },
};
const podAffinity = {
  preferredDuringSchedulingIgnoredDuringExecution: [
    {
      weight: 10,
      podAffinityTerm: { labelSelector: { matchLabels: { app: 'client' } }, topologyKey: 'kubernetes.io/hostname' },
    },
  ],
};
const checkPod = (loop: { children: any[] }) =>
  loop.children.find((c: any) => c.kind === 'Pod' && c.metadata.name === 'e-restore-check') as any;

t.test("the check pod gets the members' node affinity, not their pod (anti-)affinity", async (t) => {
  const loop = await running({ size: 3 });
  loop.settings = { podTolerations: ['dedicated'] }; // the server allows the taint the test places members by
  loop.spec = {
    ...loop.spec,
    pod: { ...(loop.spec.pod ?? {}), antiAffinity: true, affinity: { nodeAffinity, podAffinity } },
  };
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  loop.check = 'running';
  await loop.step();
  const check = checkPod(loop);
  t.ok(check, 'a check pod');
  t.same(check.spec.affinity, { nodeAffinity }, 'the node affinity only');
  t.notOk('nodeSelector' in check.spec);
  t.notOk('tolerations' in check.spec);
  t.equal(loop.s().restore.phase, 'Checking');
});

t.test('no placement in spec.pod: none on the check pod', async (t) => {
  const loop = await running({ size: 1 });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  loop.check = 'running';
  await loop.step();
  const check = checkPod(loop);
  for (const key of ['nodeSelector', 'tolerations', 'affinity']) t.notOk(key in check.spec, `no ${key}`);
  // A check pod made by a metaops that gave it no placement (no digest recorded) was placed as this one: kept.
  delete check.metadata.annotations['etcd.metaops.io/check-placement'];
  await loop.step();
  t.ok(checkPod(loop), 'the check pod made before is kept');
  t.notOk(checkPod(loop).metadata.annotations['etcd.metaops.io/check-placement'], 'answered as observed');
});

t.test('a placement edited while the check runs: a new check pod; tolerations the API server adds: none', async (t) => {
  const loop = await running({ size: 3 });
  loop.settings = { podTolerations: ['dedicated'] }; // the server allows the taint the test places members by
  const tolerations = [{ key: 'dedicated', operator: 'Equal', value: 'etcd', effect: 'NoSchedule' }];
  loop.spec = { ...loop.spec, pod: { ...(loop.spec.pod ?? {}), nodeSelector: { pool: 'etcd' }, tolerations } };
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  loop.check = 'running';
  await loop.step();
  // The API server's DefaultTolerationSeconds adds its own to the pod it made.
  const made = checkPod(loop);
  made.spec.tolerations = [
    ...tolerations,
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  ];
  await loop.step();
  t.same(checkPod(loop)?.spec.tolerations, made.spec.tolerations, 'the same check pod, answered as observed');

  loop.spec = { ...loop.spec, pod: { ...(loop.spec.pod as object), nodeSelector: { pool: 'etcd-arm64' } } };
  await loop.step();
  t.notOk(checkPod(loop), 'the check pod placed elsewhere is dropped');
  t.equal(loop.s().restore.phase, 'Checking', 'nothing dropped meanwhile');
  t.equal(loop.pods().length, 3, 'the members kept');
  await loop.step();
  t.same(checkPod(loop)?.spec.nodeSelector, { pool: 'etcd-arm64' }, 'a new check pod where the members will run');
  // It passes: the restore goes on.
  loop.check = { succeeded: true };
  await loop.step();
  t.equal(loop.s().restore.phase, 'Replacing');
});
