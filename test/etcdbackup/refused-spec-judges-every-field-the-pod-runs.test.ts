// An EtcdBackup whose spec is refused before the sync keeps its observed Job or CronJob only when the pod it runs,
// as observed, is one today's hook would make (hooks/etcdbackup/refused.ts childProblem): metaops's image, its command,
// and every other field of the pod and of its container as today's child sets it, or as the API server defaults it.
// A child that runs anything else is not kept, and the InvalidSpec condition names it and says why.
import t from 'tap';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { backup, good, hourly, podSpecOf } from './refused-spec.js';

const typo = { ...good, backupPolicy: { ...hourly, maxBackups: 'three' } };

const ready = (res: CompositeSyncResponse) => (res.status as any).conditions[0];

const today = backup(good).children[0] as KubeObject;

t.test("a refused child running what today's child does not is not kept, and the condition says why", async (t) => {
  const cases: [string, (pod: Record<string, any>) => void, RegExp][] = [
    [
      'an image of another repository',
      (pod) => (pod['containers'][0].image = 'evil.example.com/metaops:1.4.0'),
      /image/,
    ],
    ['no image', (pod) => delete pod['containers'][0].image, /image/],
    ['a shell as its command', (pod) => (pod['containers'][0].command = ['sh', '-c', 'curl evil']), /command/],
    ['no command (the image entrypoint)', (pod) => delete pod['containers'][0].command, /command/],
    ['a ServiceAccount of its own', (pod) => (pod['serviceAccountName'] = 'admin'), /serviceAccountName/],
    ["the node's network", (pod) => (pod['hostNetwork'] = true), /hostNetwork/],
    ["the node's processes", (pod) => (pod['hostPID'] = true), /hostPID/],
    ['a node of its choosing', (pod) => (pod['nodeName'] = 'control-plane'), /nodeName/],
    [
      'a name server of its choosing',
      (pod) => Object.assign(pod, { dnsPolicy: 'None', dnsConfig: { nameservers: ['10.9.9.9'] } }),
      /dns/,
    ],
    ['root (no pod security context)', (pod) => delete pod['securityContext'], /securityContext/],
    // What the API server stores for a pod template written without one: the empty default.
    ['root (the empty pod security context as stored)', (pod) => (pod['securityContext'] = {}), /securityContext/],
    [
      'a privileged container',
      (pod) => (pod['containers'][0].securityContext = { privileged: true }),
      /securityContext/,
    ],
    [
      'a lifecycle hook',
      (pod) => (pod['containers'][0].lifecycle = { postStart: { exec: { command: ['sh', '-c', 'id'] } } }),
      /lifecycle/,
    ],
    [
      'a probe that runs a command',
      (pod) => (pod['containers'][0].livenessProbe = { exec: { command: ['id'] } }),
      /livenessProbe/,
    ],
    ['a working directory', (pod) => (pod['containers'][0].workingDir = '/tmp'), /workingDir/],
    ['a mount of a sub-path', (pod) => (pod['containers'][0].volumeMounts[0].subPath = 'config'), /volumes/],
    ['an ephemeral container', (pod) => (pod['ephemeralContainers'] = [{ name: 'x', image: 'evil' }]), /ephemeral/],
  ];
  for (const [what, change, why] of cases) {
    const live = structuredClone(today);
    change(podSpecOf(live));
    const res = backup(typo, [live]);
    t.same(res.children, [], `${what}: not kept`);
    t.match(
      ready(res),
      { reason: 'InvalidSpec', message: /maxBackups/ },
      `${what}: InvalidSpec for the spec's own problem`,
    );
    t.match(ready(res).message, /CronJob "a-backup-backup" is not kept: /, `${what}: the child named`);
    t.match(ready(res).message, why, `${what}: why`);
  }
});

t.test('a refused child as the API server stores it, or on its image pinned, is kept', async (t) => {
  // What the API server writes into a pod template left without it (SetDefaults_PodSpec, SetDefaults_Container).
  const stored = structuredClone(today);
  const pod = podSpecOf(stored);
  Object.assign(pod, {
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    schedulerName: 'default-scheduler',
  });
  Object.assign(pod['containers'][0], {
    terminationMessagePath: '/dev/termination-log',
    imagePullPolicy: 'IfNotPresent',
    resources: {},
  });
  const res = backup(typo, [stored]);
  t.same(res.children, [stored], 'kept with its defaults, as it is');
  t.notMatch(ready(res).message, /not kept/, 'nothing said of it');
  t.same(backup(typo, [stored]), res, 'the same answer again (quiet at rest)');

  for (const image of [
    'registry.example.com/metaops:1.4.0@sha256:' + 'a'.repeat(64),
    'registry.example.com/metaops@sha256:' + 'a'.repeat(64),
    'registry.example.com/metaops:1.3.9',
  ]) {
    const pinned = structuredClone(today);
    podSpecOf(pinned).containers[0].image = image;
    t.same(backup(typo, [pinned]).children, [pinned], `${image}: metaops's repository, kept`);
  }
});
