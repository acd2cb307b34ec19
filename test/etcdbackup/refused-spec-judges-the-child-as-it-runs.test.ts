// An EtcdBackup whose spec is refused before the sync keeps of its observed Job or CronJob only what today's tenancy
// rules allow (hooks/etcdbackup/refused.ts). The child is judged by what it runs, not by the shape of its
// last-applied annotation: that annotation is text the tenant may write on its own children, and a kept child left
// out of it (no pod template in the annotation) keeps running with the pod template it has.
import t from 'tap';
import { LAST_APPLIED } from '../../lib/objects.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { backup, good, hourly, podSpecOf } from './refused-spec.js';

const B = 'team-b';
const typo = { ...good, backupPolicy: { ...hourly, maxBackups: 'three' } };

t.test('a refused child whose last-applied annotation names no pod template is not kept', async (t) => {
  const today = backup(good).children[0] as KubeObject;
  t.ok(today, 'the CronJob today');
  // An older metaops's CronJob writing into tenant B's prefix of the shared bucket.
  const older = structuredClone(today);
  const args: string[] = podSpecOf(older).containers[0].args;
  args[args.indexOf('--s3-path') + 1] = `shared/${B}/orders`;
  const cases: [string, unknown][] = [
    ['identity only', { apiVersion: today.apiVersion, kind: today.kind, metadata: { name: today.metadata.name } }],
    [
      'a spec without its job template',
      { apiVersion: today.apiVersion, kind: today.kind, metadata: { name: today.metadata.name }, spec: {} },
    ],
    [
      'a job template without its pod template',
      {
        apiVersion: today.apiVersion,
        kind: today.kind,
        metadata: { name: today.metadata.name },
        spec: { schedule: (today as any).spec.schedule, jobTemplate: { spec: {} } },
      },
    ],
  ];
  for (const [what, annotation] of cases) {
    const live = structuredClone(older);
    live.metadata.annotations = { ...live.metadata.annotations, [LAST_APPLIED]: JSON.stringify(annotation) };
    const res = backup(typo, [live]);
    t.match((res.status as any).conditions[0], { reason: 'InvalidSpec' }, `${what}: InvalidSpec`);
    // Kept in this shape, Metacontroller's apply changes nothing the annotation does not name: the CronJob would
    // keep writing into team-b's prefix for as long as the spec stays refused.
    t.same(res.children, [], `${what}: the CronJob writing into ${B}'s prefix is not kept`);
  }
});

t.test('a refused child is judged with what its last-applied annotation leaves out', async (t) => {
  const today = backup(good).children[0] as KubeObject;
  const cases: [string, (pod: Record<string, any>) => void][] = [
    // The layout before 04d78e2: the whole Secret as environment.
    ['the whole Secret as environment', (pod) => (pod['containers'][0].envFrom = [{ secretRef: { name: 'a-aws' } }])],
    ['a second container', (pod) => pod['containers'].push({ name: 'other', image: 'evil', command: ['sh'] })],
    ['an init container', (pod) => (pod['initContainers'] = [{ name: 'first', image: 'evil', command: ['sh'] }])],
    [
      "a volume of the node's and its mount",
      (pod) => {
        pod['volumes'] = [...(pod['volumes'] ?? []), { name: 'host', hostPath: { path: '/' } }];
        pod['containers'][0].volumeMounts = [
          ...(pod['containers'][0].volumeMounts ?? []),
          { name: 'host', mountPath: '/host' },
        ];
      },
    ],
  ];
  for (const [what, change] of cases) {
    const live = structuredClone(today);
    change(podSpecOf(live));
    // The annotation says what today's metaops would answer: the tenant rewrote it (or an older metaops's) to that.
    live.metadata.annotations = { ...live.metadata.annotations, [LAST_APPLIED]: JSON.stringify(today) };
    const res = backup(typo, [live]);
    t.match((res.status as any).conditions[0], { reason: 'InvalidSpec' }, `${what}: InvalidSpec`);
    t.same(res.children, [], `${what}: the CronJob is not kept (Metacontroller would leave ${what} in place)`);
  }
});
