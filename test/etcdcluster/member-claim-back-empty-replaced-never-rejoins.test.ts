// A member with storage whose pod is lost is made again on its claim with --initial-cluster-state=existing. When the
// volume behind the claim comes back empty (a replaced local disk, a volume restored from the wrong snapshot, a data
// directory removed by hand), etcd would take the member's old ID from its peers with an empty raft log and vote as
// if it remembered what it acknowledged: a write a majority acknowledged can be lost. So the pod made again first
// checks its claim holds the member's data (its `check-data` step), and a member whose check says its data is missing
// is never started under its old ID: it is removed while the quorum holds without it, and replaced by a new member
// under a new name; while the quorum is lost nothing is removed, and the status says why. A check that proves
// nothing (its image not pulled, a directory it cannot read, another exit) is no data lost. Each answer fed back as
// the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { ETCDCLUSTER_EVENTS } from '../../hooks/etcdcluster/events.js';
import type { KubeObject } from '../../lib/index.js';
import { answeredPod, PVC, running } from '../fixtures/etcd-loop.js';

const MISSING =
  "etcd member data missing: no /var/etcd/data/member/snap and /var/etcd/data/member/wal/*.wal on the member's volume; etcd is not started under the member's old ID";

/** A pod whose data check keeps failing as `terminated` says (the kubelet runs it again after a back-off). */
const checkFails = (terminated: Record<string, unknown>) => ({
  phase: 'Pending',
  initContainerStatuses: [
    {
      name: 'check-data',
      restartCount: 2,
      state: { waiting: { reason: 'CrashLoopBackOff' } },
      lastState: { terminated },
    },
  ],
  containerStatuses: [
    { name: 'etcd', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } },
  ],
});
const dataMissing = checkFails({ exitCode: 66, reason: 'Error', message: MISSING });

const initNames = (p: KubeObject | undefined) =>
  ((p?.['spec'] as any)?.initContainers ?? []).map((c: any) => c.name as string);
const condition = (loop: { s(): any }, type: string) => loop.s().conditions.find((c: any) => c.type === type);
/** Whether a pod's check-data step passes its first run (a fresh pod's: it records the start on member-started). */
const freshCheck = (pod: any) => {
  const step = pod.spec.initContainers.find((c: any) => c.name === 'check-data');
  return {
    first: /if \[ ! -e \/var\/lib\/etcd-member\/started \]/.test(step?.command?.[2] ?? ''),
    volume: pod.spec.volumes.some((v: any) => v.name === 'member-started' && v.emptyDir),
  };
};
const idOf = (loop: { s(): any }, name: string) => loop.s().memberList.find((m: any) => m.name === name)?.id;

t.test('a member pod made again on its claim checks the claim holds its data; a fresh member does not', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  // A member made fresh on a claim checks it only from the second run of its steps on (its sandbox made again): its
  // first run records the start on an emptyDir of the pod's own and passes on the empty volume.
  t.same(initNames(answeredPod(loop, 'e-0')), ['check-dns', 'check-data'], 'a bootstrap member checks after DNS');
  t.match(freshCheck(answeredPod(loop, 'e-0')), { first: true, volume: true }, 'it starts on an empty volume first');
  loop.lose('e-2');
  await loop.step();
  const pod = answeredPod(loop, 'e-2');
  t.same(initNames(pod), ['check-data', 'check-dns'], 'the member made again checks its data first');
  const check = (pod!['spec'] as any).initContainers[0];
  t.equal(check.image, 'busybox:1.28.0-glibc', 'with the busybox image of the DNS wait (etcd images have no shell)');
  t.match(check.command[2], /member\/snap/, 'it looks for the member directory');
  t.match(check.command[2], /member\/wal\/\*\.wal/, 'and a write-ahead log');
  t.match(check.command[2], /exit 66/, 'and says data missing by its exit');
  t.same(check.volumeMounts, [{ name: 'etcd-data', mountPath: '/var/etcd', readOnly: true }], 'reading the claim');
  t.equal(check.terminationMessagePolicy, 'FallbackToLogsOnError', 'its words are its message');
  t.match((pod!['spec'] as any).containers[0].command, ['/usr/local/bin/etcd'], 'then etcd');
  t.ok(
    (pod!['spec'] as any).containers[0].command.includes('--initial-cluster-state=existing'),
    'as the member it was',
  );
  // A scale-up's new member joins with an empty data directory: no check.
  loop.spec = { ...loop.spec, size: 4 };
  loop.etcd.up.add('e-2');
  for (let i = 0; i < 4; i++) await loop.step();
  t.ok(loop.etcd.calls.includes('add e-3'), 'a member is added');
  t.same(initNames(answeredPod(loop, 'e-3')), ['check-dns', 'check-data'], 'the new member checks after DNS');
  t.match(freshCheck(answeredPod(loop, 'e-3')), { first: true, volume: true }, 'it starts on its empty volume first');
});

t.test('a member whose claim came back empty is removed and replaced under a new name', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  const oldId = idOf(loop, 'e-2');
  loop.lose('e-2');
  await loop.step();
  t.ok(loop.pods().includes('e-2'), 'its pod is made again on its claim');
  // Its check finds the volume empty: etcd never starts.
  loop.podStatus.set('e-2', dataMissing);
  await loop.step();
  t.same(loop.etcd.calls, [`remove ${oldId}`], 'the member is removed from etcd (quorum holds without it)');
  t.match(condition(loop, 'Recovering'), {
    status: 'True',
    reason: 'MemberDataLost',
    message:
      /member e-2 came back on a claim holding none of its data \(etcd member data missing: .*\): not started under its old member ID; removing member e-2/,
  });
  t.ok(ETCDCLUSTER_EVENTS.warnings.has('MemberDataLost'), 'a Warning event says so');
  t.notOk(loop.pods().includes('e-2'), 'its pod goes');
  for (let i = 0; i < 6; i++) await loop.step();
  t.notOk(loop.claims().includes('e-2'), 'its (empty) claim goes with the member');
  t.ok(loop.etcd.calls.includes('add e-3'), 'a new member under a new name replaces it');
  t.notOk(
    loop.etcd.members.some((m) => m.id === oldId),
    'the old member ID is no member any more',
  );
  t.notOk(
    loop.etcd.calls.some((c) => c === 'add e-2'),
    'never added again under its old name',
  );
});

t.test('while the quorum is lost a member whose claim came back empty is said, not removed', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  const oldId = idOf(loop, 'e-1');
  // e-0 is down (its node), e-1's pod is lost and its claim comes back empty, e-2 answers alone.
  loop.etcd.up.delete('e-0');
  loop.phase.set('e-0', 'Running');
  loop.lose('e-1');
  await loop.step();
  loop.podStatus.set('e-1', dataMissing);
  for (let i = 0; i < 4; i++) await loop.step();
  t.same(loop.etcd.calls, [], 'no member is removed without a quorum');
  t.match(condition(loop, 'Available'), { status: 'False', reason: 'QuorumLost' });
  t.match(condition(loop, 'Recovering'), {
    status: 'True',
    reason: 'MemberDataLost',
    message: /e-1 came back on a claim holding none of its data .*replaced once a quorum holds without it/,
  });
  t.ok(loop.pods().includes('e-1'), 'its pod is kept, etcd not started (the check keeps failing)');
  t.ok(loop.claims().includes('e-1'), 'its claim is kept');
  // e-0 comes back: quorum holds (e-0 and e-2), and e-1 is replaced.
  loop.etcd.up.add('e-0');
  await loop.step();
  t.same(loop.etcd.calls, [`remove ${oldId}`], 'removed once the quorum holds without it');
  for (let i = 0; i < 6; i++) await loop.step();
  t.ok(loop.etcd.calls.includes('add e-3'), 'and replaced by a new member');
});

t.test('etcd silent: a member whose claim came back empty is said, nothing removed', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  loop.lose('e-1');
  await loop.step();
  loop.podStatus.set('e-1', dataMissing);
  loop.etcd.listError = new Error('etcdserver: request timed out');
  for (let i = 0; i < 3; i++) await loop.step();
  t.same(loop.etcd.calls, [], 'no membership change');
  t.match(condition(loop, 'Recovering'), { status: 'True', reason: 'MemberDataLost', message: /e-1 came back/ });
  t.ok(loop.pods().includes('e-1') && loop.claims().includes('e-1'), 'its pod and claim are kept');
});

t.test('a data check that proves nothing is no data lost', async (t) => {
  const cases: Array<[string, Record<string, unknown>]> = [
    [
      'its image cannot be pulled',
      {
        phase: 'Pending',
        initContainerStatuses: [{ name: 'check-data', state: { waiting: { reason: 'ImagePullBackOff' } } }],
      },
    ],
    ['it cannot read the data directory (exit 1)', checkFails({ exitCode: 1, message: 'cannot read /var/etcd/data' })],
    ['it was killed (exit 137)', checkFails({ exitCode: 137, reason: 'OOMKilled', message: '' })],
    ['exit 66 without its words', checkFails({ exitCode: 66, message: 'something else' })],
    ['its words without exit 66', checkFails({ exitCode: 2, message: MISSING })],
    ['a message of another type', checkFails({ exitCode: 66, message: { toString: 1 } })],
    ['it runs', { phase: 'Pending', initContainerStatuses: [{ name: 'check-data', state: { running: {} } }] }],
    [
      'another step said so',
      {
        phase: 'Pending',
        initContainerStatuses: [
          {
            name: 'istio-init',
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: { terminated: { exitCode: 66, message: MISSING } },
          },
        ],
      },
    ],
  ];
  for (const [what, status] of cases) {
    const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
    loop.lose('e-2');
    await loop.step();
    loop.podStatus.set('e-2', status);
    for (let i = 0; i < 3; i++) await loop.step();
    t.same(loop.etcd.calls, [], `${what}: no member removed`);
    t.notMatch(condition(loop, 'Recovering'), { reason: 'MemberDataLost' }, `${what}: no data said lost`);
    t.ok(loop.pods().includes('e-2') && loop.claims().includes('e-2'), `${what}: its pod and claim kept`);
  }
  // A pod made without the step (before this version), whose status says the step failed: not read.
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  const made = loop.children.find((c) => c.kind === 'Pod' && c.metadata.name === 'e-2')!['spec'] as any;
  made.initContainers = made.initContainers.filter((c: any) => c.name !== 'check-data');
  loop.podStatus.set('e-2', dataMissing);
  loop.etcd.up.delete('e-2');
  for (let i = 0; i < 3; i++) await loop.step();
  t.same(loop.etcd.calls, [], 'a pod without the check: no member removed for a status it cannot have');
});

t.test('a member that never started, made on its claim with the check, is made again without it', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  // A learner added (etcd gives it no name until it starts) whose pod carries the check (made on its claim while
  // etcd was silent, the status lost): its volume is empty, as it should be.
  loop.spec = { ...loop.spec, size: 4 };
  for (let i = 0; i < 3 && !loop.pods().includes('e-3'); i++) await loop.step();
  t.ok(loop.pods().includes('e-3'), 'e-3 is added');
  const pod = loop.children.find((c) => c.kind === 'Pod' && c.metadata.name === 'e-3')!;
  const spec = pod['spec'] as any;
  spec.initContainers = [{ name: 'check-data', image: 'busybox:1.28.0-glibc' }, ...spec.initContainers];
  loop.podStatus.set('e-3', dataMissing);
  await loop.step();
  t.notOk(loop.pods().includes('e-3'), 'its pod is dropped');
  t.notOk(
    loop.etcd.calls.some((c) => c.startsWith('remove')),
    'the member is not removed',
  );
  loop.podStatus.delete('e-3');
  await loop.step();
  t.same(initNames(answeredPod(loop, 'e-3')), ['check-dns', 'check-data'], 'made again fresh');
  t.match(freshCheck(answeredPod(loop, 'e-3')), { first: true }, 'without the check of data: it has no data to find');
});

t.test(
  'the data check, run by a shell: missing data exits 66 with its words; a member data directory passes',
  async (t) => {
    const { checkData } = await import('../../hooks/etcdcluster/members.js');
    const { dataMissing: said } = await import('../../hooks/etcdcluster/pods.js');
    const { execFileSync } = await import('node:child_process');
    const { mkdirSync, mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const step = checkData({ size: 3, version: '3.5.0' } as any) as { command: string[] };
    const run = (volume: string) => {
      try {
        execFileSync('/bin/sh', ['-c', step.command[2]!.replaceAll('/var/etcd', volume)], { stdio: 'pipe' });
        return { exitCode: 0, message: '' };
      } catch (err) {
        const e = err as { status: number; stdout: Buffer };
        return { exitCode: e.status, message: e.stdout.toString('utf8') };
      }
    };
    const pod = (terminated: Record<string, unknown>) =>
      ({ metadata: { name: 'e-2' }, spec: { initContainers: [step] }, ...{ status: checkFails(terminated) } }) as any;
    const empty = mkdtempSync(join(tmpdir(), 'check-data-'));
    const ended = run(empty);
    t.equal(ended.exitCode, 66, 'an empty volume: exit 66');
    t.match(
      said(pod(ended)),
      /^etcd member data missing: no .*member\/snap and .*member\/wal\/\*\.wal/,
      'read as such',
    );
    const walOnly = mkdtempSync(join(tmpdir(), 'check-data-'));
    mkdirSync(join(walOnly, 'data', 'member', 'snap'), { recursive: true });
    mkdirSync(join(walOnly, 'data', 'member', 'wal'), { recursive: true });
    const noWal = run(walOnly);
    t.equal(noWal.exitCode, 66, 'a wal directory without a log file: missing');
    t.match(noWal.message, /member\/wal\/\*\.wal/);
    writeFileSync(join(walOnly, 'data', 'member', 'wal', '0000000000000000-0000000000000000.wal'), 'x');
    t.equal(run(walOnly).exitCode, 0, "a member's snap directory and write-ahead log: etcd starts");
  },
);
