// The record of failed additions (hooks/etcdcluster/additions.ts), function by function: what a new member is made
// from (its fingerprint), the record read back from the status or a member pod as untrusted data, a failed or ended
// member added to it, the back-off after pods their nodes ended, when additions stop and what Scaling then says, how
// a member that did not start failed. The whole loop is in failed-additions-stop.test.ts and
// additions-whose-pods-nodes-keep-ending-back-off-and-stop.test.ts.
import t from 'tap';
import {
  ADDITIONS_FAILED,
  type AdditionsFailed,
  additionSpec,
  additionsMemory,
  additionsStopped,
  endedBackoff,
  howItFailed,
  nextAdditionAt,
  RETRY_ADDITIONS,
  stoppedMessage,
  stoppedWhy,
  withAdditionsOnPods,
  withEndedAddition,
  withFailedAddition,
  withoutEnded,
  youngPod,
} from '../../hooks/etcdcluster/additions.js';
import type { EtcdClusterSpec } from '../../hooks/etcdcluster/schema.js';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';

const parent = (annotations?: Record<string, string>, status?: unknown, uid: string | undefined = 'uid-e') =>
  ({
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdCluster',
    metadata: { name: 'e', namespace: 'ns', ...(uid ? { uid } : {}), ...(annotations ? { annotations } : {}) },
    ...(status ? { status } : {}),
  }) as ParentObject;
const spec = (s: Record<string, unknown>) => s as unknown as EtcdClusterSpec;
const SPEC = spec({ size: 3, version: '3.6.9' });
const FP = additionSpec(parent(), SPEC);
const NOW = '2026-01-02T03:04:05Z';
const rec = (fields: Record<string, unknown> = {}) => ({
  uid: 'uid-e',
  spec: FP,
  members: ['e-3'],
  reason: 'Error, exit code 1',
  since: NOW,
  ...fields,
});
const pod = (annotations: Record<string, string> = {}, status?: unknown, created?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'e-0', namespace: 'ns', annotations, ...(created ? { creationTimestamp: created } : {}) },
  ...(status !== undefined ? { status } : {}),
});
const memoryOf = (status: unknown, pods: KubeObject[] = []) =>
  additionsMemory(parent(undefined, status === undefined ? undefined : { additionsFailed: status }), SPEC, pods);

t.test(
  'the back-off after new members whose pods their nodes ended: 10 s, doubled each time, at most 5 minutes',
  async (t) => {
    t.same([0, 1, 2, 3, 5, 6, 7, 8].map(endedBackoff), [10, 10, 20, 40, 160, 300, 300, 300]);
  },
);

t.test(
  'what a new member is made from: the spec but its size, paused and cluster domain, and the retry annotation',
  async (t) => {
    t.match(FP, /^[0-9a-f]{16}$/);
    t.equal(
      additionSpec(parent(), spec({ version: '3.6.9', size: 5, paused: true })),
      FP,
      'size and paused are no change',
    );
    t.equal(additionSpec(parent(), spec({ size: 3, version: '3.6.9', pod: { clusterDomain: 'x.local' } })), FP);
    t.equal(additionSpec(parent(), spec({ size: 3, version: '3.6.9', pod: { ClusterDomain: 'x.local' } })), FP);
    t.not(additionSpec(parent(), spec({ size: 3, version: '3.6.10' })), FP, 'another version is another spec');
    const withPod = (pod: Record<string, unknown>) => additionSpec(parent(), spec({ size: 3, version: '3.6.9', pod }));
    t.not(withPod({ resources: { limits: { cpu: '1' } } }), FP, 'resources are part of it');
    t.equal(
      withPod({ resources: { limits: { cpu: '1' } }, clusterDomain: 'a' }),
      withPod({ resources: { limits: { cpu: '1' } } }),
    );
    t.not(withPod({ resources: { limits: { cpu: '1' } } }), withPod({ resources: { limits: { cpu: '2' } } }));
    // The same spec whatever the order of its fields, at every level, lists too.
    t.equal(
      withPod({ labels: { a: '1', b: '2' }, tolerations: [{ key: 'k', operator: 'Exists' }] }),
      withPod({ tolerations: [{ operator: 'Exists', key: 'k' }], labels: { b: '2', a: '1' } }),
    );
    t.not(
      withPod({ tolerations: [{ key: 'k', operator: 'Exists' }, { key: 'j' }] }),
      withPod({ tolerations: [{ key: 'j' }, { key: 'k', operator: 'Exists' }] }),
      'the order of a list is kept',
    );
    t.equal(withPod({ nodeSelector: null }), withPod({ nodeSelector: null }), 'a null field is read, not thrown on');
    t.not(withPod({ nodeSelector: null }), FP);
    // The retry annotation: a new value asks for new attempts; none is the same as an empty one.
    t.not(additionSpec(parent({ [RETRY_ADDITIONS]: '1' }), SPEC), FP);
    t.not(
      additionSpec(parent({ [RETRY_ADDITIONS]: '1' }), SPEC),
      additionSpec(parent({ [RETRY_ADDITIONS]: '2' }), SPEC),
    );
    t.equal(additionSpec(parent({ [RETRY_ADDITIONS]: '' }), SPEC), FP);
    t.equal(additionSpec(parent({ other: 'x' }), SPEC), FP);
  },
);

t.test("the record read from the status: this cluster's, of this spec, every field of its type", async (t) => {
  t.same(memoryOf(rec()), { uid: 'uid-e', spec: FP, record: rec() });
  t.same(memoryOf(undefined), { uid: 'uid-e', spec: FP }, 'no record');
  const none = [
    null,
    'x',
    rec({ uid: 'uid-other' }),
    rec({ spec: 'ffffffffffffffff' }),
    rec({ reason: 5 }),
    rec({ since: 5 }),
    rec({ members: 'e-3' }),
    rec({ members: ['e-3', 4] }),
    rec({ members: [] }),
    rec({ members: [], ended: { count: 0, at: NOW } }),
  ];
  for (const r of none) t.same(memoryOf(r).record, undefined, JSON.stringify(r));
  t.same(
    memoryOf(rec({ members: [], ended: { count: 2, at: NOW } })).record,
    rec({ members: [], ended: { count: 2, at: NOW } }),
    'pods ended, no failed member: a record',
  );
  for (const ended of [{ count: 1.5, at: NOW }, { count: '2', at: NOW }, { count: -1, at: NOW }, { count: 2 }, null])
    t.same(memoryOf(rec({ ended })).record, rec(), `ended ${JSON.stringify(ended)} not read`);
  t.same(memoryOf(rec({ ended: { count: 99, at: NOW } })).record, rec({ ended: { count: 8, at: NOW } }), 'count bound');
  t.same(memoryOf(rec({ ended: { count: 1, at: `${'9'.repeat(50)}` } })).record!.ended, {
    count: 1,
    at: `${'9'.repeat(37)}...`,
  });
  const long = memoryOf(
    rec({
      members: ['a', 'b', 'c', `d\n${'x'.repeat(70)}`],
      reason: 'r'.repeat(250),
      since: `${NOW}\t${'z'.repeat(50)}`,
    }),
  ).record!;
  t.same(long.members, ['b', 'c', `d ${'x'.repeat(59)}...`], 'the last 3, each cut and cleaned');
  t.equal(long.reason, `${'r'.repeat(197)}...`);
  t.equal(long.since, `${NOW} ${'z'.repeat(16)}...`);
  t.same(Object.keys(long).sort(), ['members', 'reason', 'since', 'spec', 'uid'], 'no field but its own');
  const noUid = additionsMemory(parent(undefined, { additionsFailed: rec({ uid: '' }) }, ''), SPEC, []);
  t.same(noUid, { uid: '', spec: FP, record: rec({ uid: '' }) }, 'a parent without a UID reads one without');
});

t.test('the record read from the member pods when the status lost it: the one naming more', async (t) => {
  const on = (r: unknown) => pod({ [ADDITIONS_FAILED]: JSON.stringify(r) });
  t.same(memoryOf(undefined, [on(rec())]).record, rec(), 'from a pod');
  t.same(memoryOf(undefined, [on(rec({ uid: 'x' }))]).record, undefined, "another cluster's");
  t.same(memoryOf(undefined, [pod({ [ADDITIONS_FAILED]: '{"uid":' })]).record, undefined, 'not JSON: none');
  t.same(memoryOf(undefined, [pod({ [ADDITIONS_FAILED]: '' })]).record, undefined);
  const big = rec({ reason: 'r'.repeat(2048) });
  t.same(memoryOf(undefined, [on(big)]).record, undefined, 'an annotation past 2048 characters is not read');
  const just = rec({ reason: 'r'.repeat(2048 - JSON.stringify(rec({ reason: '' })).length) });
  t.equal(JSON.stringify(just).length, 2048);
  t.ok(memoryOf(undefined, [on(just)]).record, 'one of 2048 is');
  const two = rec({ members: ['e-3', 'e-4'] });
  t.same(memoryOf(rec(), [on(two)]).record, two, 'the pod names more than the status');
  t.same(memoryOf(two, [on(rec())]).record, two, 'the status names more than the pod');
  const ended = (count: number) => rec({ ended: { count, at: NOW } });
  t.same(memoryOf(ended(1), [on(ended(3))]).record, ended(3), 'as many members: the more ended pods');
  t.same(memoryOf(ended(3), [on(ended(1))]).record, ended(3));
  t.same(memoryOf(rec(), [on(ended(2))]).record, ended(2), 'a count of ended pods beats none');
  t.same(memoryOf(ended(2), [on(rec())]).record, ended(2));
});

t.test('a failed addition added to the record: once per member, the last three, the reason cleaned', async (t) => {
  const fresh = withFailedAddition({ uid: 'uid-e', spec: FP }, { member: 'e-3', reason: 'Error\n, exit 1', now: NOW });
  t.same(fresh, { uid: 'uid-e', spec: FP, members: ['e-3'], since: NOW, reason: 'Error , exit 1' });
  const memory = { uid: 'uid-e', spec: FP, record: rec({ members: ['e-3', 'e-4', 'e-5'] }) };
  t.same(withFailedAddition(memory, { member: 'e-4', reason: 'again', now: 'later' }), {
    ...rec({ members: ['e-3', 'e-4', 'e-5'] }),
    reason: 'again',
  });
  t.same(withFailedAddition(memory, { member: 'e-6', reason: 'r'.repeat(300), now: 'later' }), {
    ...rec({ members: ['e-4', 'e-5', 'e-6'] }),
    reason: `${'r'.repeat(197)}...`,
  });
});

t.test('a member whose pod its node ended: counted apart, bounded, with its time', async (t) => {
  const fresh = withEndedAddition({ uid: 'uid-e', spec: FP }, { member: 'e-3', reason: 'OutOfcpu', now: NOW });
  t.same(fresh, { uid: 'uid-e', spec: FP, members: [], since: NOW, reason: 'OutOfcpu', ended: { count: 1, at: NOW } });
  const again = withEndedAddition(
    { uid: 'uid-e', spec: FP, record: fresh },
    { member: 'e-4', reason: 'x'.repeat(300), now: 'later' },
  );
  t.same(again.ended, { count: 2, at: 'later' });
  t.equal(again.reason, `${'x'.repeat(197)}...`);
  t.equal(again.since, NOW);
  const full = rec({ ended: { count: 8, at: NOW } }) as AdditionsFailed;
  t.same(withEndedAddition({ uid: 'uid-e', spec: FP, record: full }, { member: 'e', reason: 'r', now: NOW }).ended, {
    count: 8,
    at: NOW,
  });
  // A member at rest at size: the count goes; the failed members stay.
  t.same(withoutEnded(full), rec(), 'failed members stay');
  t.equal(withoutEnded(rec({ members: [], ended: { count: 2, at: NOW } }) as AdditionsFailed), undefined);
  t.same(withoutEnded(rec() as AdditionsFailed), rec());
  t.equal(withoutEnded(undefined), undefined);
});

t.test('the next addition after ended pods waits the back-off from the last, a time ahead read as now', async (t) => {
  const now = new Date('2026-01-02T03:04:05Z');
  const at = (count: number, when: string) => rec({ ended: { count, at: when } }) as AdditionsFailed;
  t.equal(nextAdditionAt(at(1, '2026-01-02T03:04:00Z'), now), '2026-01-02T03:04:10Z');
  t.equal(nextAdditionAt(at(3, '2026-01-02T03:04:00Z'), now), '2026-01-02T03:04:40Z');
  t.equal(nextAdditionAt(at(1, '2026-01-02T03:03:55Z'), now), undefined, 'exactly passed: now');
  t.equal(nextAdditionAt(at(1, '2026-01-02T03:03:56Z'), now), '2026-01-02T03:04:06Z');
  t.equal(nextAdditionAt(at(1, '2026-01-02T04:00:00Z'), now), '2026-01-02T03:04:15Z', 'a time ahead reads as now');
  t.equal(nextAdditionAt(at(1, 'never'), now), undefined);
  t.equal(nextAdditionAt(rec() as AdditionsFailed, now), undefined, 'no ended pods');
  t.equal(nextAdditionAt(undefined, now), undefined);
  t.equal(nextAdditionAt(at(1, '2026-01-02T03:04:00Z'), undefined), undefined);
});

t.test('a new member: its pod made less than an hour ago', async (t) => {
  const now = new Date('2026-01-02T03:04:05Z');
  t.equal(youngPod(pod({}, undefined, '2026-01-02T02:04:06Z'), now), true);
  t.equal(youngPod(pod({}, undefined, '2026-01-02T02:04:05Z'), now), false, 'an hour: not new');
  t.equal(youngPod(pod({}, undefined, '2026-01-02T04:00:00Z'), now), true, 'made ahead of now');
  t.equal(youngPod(pod({}), now), false, 'no time: not new');
  t.equal(youngPod(undefined, now), false);
});

t.test('additions stop at 3 failed members or 8 pods their nodes ended', async (t) => {
  t.equal(additionsStopped(rec({ members: ['a', 'b', 'c'] }) as AdditionsFailed), true);
  t.equal(additionsStopped(rec({ members: ['a', 'b'] }) as AdditionsFailed), false);
  t.equal(additionsStopped(rec({ members: [], ended: { count: 8, at: NOW } }) as AdditionsFailed), true);
  t.equal(additionsStopped(rec({ members: ['a', 'b'], ended: { count: 7, at: NOW } }) as AdditionsFailed), false);
  t.equal(additionsStopped(undefined), false);
});

t.test("how a member that did not start failed: its etcd's exit, its wait, its pod's phase", async (t) => {
  const statuses = (containerStatuses: unknown, more: Record<string, unknown> = {}) =>
    pod({}, { containerStatuses, ...more });
  const etcd = (state: unknown, lastState?: unknown) => ({ name: 'etcd', state, ...(lastState ? { lastState } : {}) });
  t.equal(howItFailed(statuses([etcd({ terminated: { exitCode: 1, reason: 'Error' } })]), 'f'), 'Error, exit code 1');
  t.equal(howItFailed(statuses([etcd({ terminated: { exitCode: 137, reason: '' } })]), 'f'), 'exited, exit code 137');
  t.equal(howItFailed(statuses([etcd({ terminated: { exitCode: 2, reason: 7 } })]), 'f'), 'exited, exit code 2');
  t.equal(
    howItFailed(statuses([etcd({ terminated: { exitCode: 3, reason: `Oom\n${'k'.repeat(80)}` } })]), 'f'),
    `Oom ${'k'.repeat(57)}..., exit code 3`,
  );
  t.equal(
    howItFailed(statuses([etcd({ waiting: { reason: 'CrashLoopBackOff' } }, { terminated: { exitCode: 1 } })]), 'f'),
    'exited, exit code 1',
    'its last exit while it waits to start again',
  );
  t.equal(
    howItFailed(
      statuses([
        null,
        { name: 'proxy', state: { terminated: { exitCode: 9 } } },
        etcd({ waiting: { reason: 'ImagePullBackOff' } }),
      ]),
      'f',
    ),
    'ImagePullBackOff',
    "a sidecar's exit says nothing of etcd",
  );
  t.equal(howItFailed(statuses([etcd({ terminated: { exitCode: '1' } })]), 'f'), 'f', 'an exit code of another type');
  t.equal(howItFailed(statuses('etcd', { phase: 'Failed', reason: 'Evicted' }), 'f'), 'pod Failed (Evicted)');
  t.equal(howItFailed(pod({}, { phase: 'Pending', reason: '' }), 'f'), 'pod Pending');
  t.equal(howItFailed(pod({}, { phase: 'Failed', reason: 5 }), 'f'), 'pod Failed');
  t.equal(
    howItFailed(pod({}, { phase: 'Failed', reason: `Out\n${'c'.repeat(80)}` }), 'f'),
    `pod Failed (Out ${'c'.repeat(57)}...)`,
  );
  t.equal(howItFailed(pod({}, { phase: 'Running' }), 'still starting'), 'still starting');
  t.equal(howItFailed(pod({}), 'no status'), 'no status');
  t.equal(howItFailed(undefined, 'no pod'), 'no pod');
});

t.test('what Scaling says once additions stopped: why, what runs, how to resume', async (t) => {
  const failed = rec({ members: ['e-3', 'e-4', 'e-5'], since: NOW }) as AdditionsFailed;
  const resume =
    `Fix the cause (spec.pod resources, the image, the nodes) and change the spec, or set the annotation ${RETRY_ADDITIONS} ` +
    'on the EtcdCluster to a new value to try again; or set spec.size to ';
  t.equal(
    stoppedMessage(failed, 2, 5),
    `adding a member failed 3 times since ${NOW} (e-3, e-4, e-5; the last: Error, exit code 1): ` +
      `no member is added, the cluster runs 2 of 5 members (0 failures tolerated). ${resume}2`,
  );
  t.match(stoppedMessage(failed, 3, 5), /runs 3 of 5 members \(1 failure tolerated\)\. .*spec\.size to 3$/);
  t.match(stoppedMessage(failed, 5, 7), /\(2 failures tolerated\)/);
  t.match(stoppedMessage(failed, 0, 3), /\(0 failures tolerated\)/);
  const ended = rec({ members: ['e-3'], reason: 'OutOfcpu', ended: { count: 8, at: NOW } }) as AdditionsFailed;
  t.equal(
    stoppedWhy(ended),
    `the nodes ended the pods of 8 new members in a row before their etcd ran, since ${NOW} (the last: OutOfcpu)`,
  );
  t.equal(
    stoppedWhy(rec({ members: [] }) as AdditionsFailed),
    `the nodes ended the pods of 0 new members in a row before their etcd ran, since ${NOW} (the last: Error, exit code 1)`,
  );
});

t.test('the record goes on every member pod of the decision, and off them once none holds', async (t) => {
  const r = rec() as AdditionsFailed;
  const d = withAdditionsOnPods({ pods: [pod()], fallbackPods: [pod({ keep: 'x' })], additionsFailed: r, other: 1 });
  t.same(d.pods[0]!.metadata.annotations, { [ADDITIONS_FAILED]: JSON.stringify(r) });
  t.same(d.fallbackPods[0]!.metadata.annotations, { keep: 'x', [ADDITIONS_FAILED]: JSON.stringify(r) });
  t.equal(d.other, 1);
  const off = withAdditionsOnPods({
    pods: [pod({ [ADDITIONS_FAILED]: '{}', keep: 'x' })],
    fallbackPods: [pod({ [ADDITIONS_FAILED]: '{}' })],
  });
  t.same(off.pods[0]!.metadata.annotations, { keep: 'x' });
  t.same(off.fallbackPods[0]!.metadata.annotations, {});
});
