// A bootstrap whose first members never form a cluster (an image whose etcd exits at once, a wrong command reached
// through spec.pod, members that crash before they answer) starts over under new member names; after
// MAX_BOOTSTRAP_STARTS failed starts of one spec it stops (BootstrapFailed), its last pods kept, saying how they
// failed and how to try again, instead of making and deleting pods and claims for ever (docs/etcdcluster.md). The
// count lives in status and on the next start's pods: a status lost does not start it afresh. Each answer is fed
// back as the next observed state.
import t from 'tap';
import { BOOTSTRAP_FAILED, MAX_BOOTSTRAP_STARTS, RETRY_BOOTSTRAP } from '../../hooks/etcdcluster/bootstraps.js';
import { peerURL, clusterOf } from '../../hooks/etcdcluster/members.js';
import { decide } from '../../hooks/etcdcluster/plan.js';
import { answeredPod, FakeEtcd, Loop, PVC } from '../fixtures/etcd-loop.js';
import { parent, pod, range, spec } from '../fixtures/etcd-plan.js';

/** How the kubelet reports a member whose etcd exits at once: CrashLoopBackOff, its last exit and log lines. */
const crashed = (message: string) => ({
  containerStatuses: [
    {
      name: 'etcd',
      restartCount: 4,
      state: { waiting: { reason: 'CrashLoopBackOff' } },
      lastState: { terminated: { exitCode: 1, reason: 'Error', message } },
    },
  ],
});

/** Every member pod answered crashes so. */
function crashAll(loop: Loop, message = 'etcdmain: flag provided but not defined: -bogus') {
  for (const p of loop.pods()) loop.podStatus.set(p, crashed(message));
}

const condition = (loop: Loop, type: string) => loop.s().conditions.find((c: { type: string }) => c.type === type);

/** Steps until a bootstrap's pods are answered (the failed start's pods go first). */
async function nextStart(loop: Loop): Promise<string[]> {
  for (let i = 0; i < 4; i++) {
    await loop.step();
    if (loop.pods().length > 0) return loop.pods();
  }
  return loop.pods();
}

t.test('a bootstrap whose members keep exiting stops after its failed starts, its last pods kept', async (t) => {
  t.equal(MAX_BOOTSTRAP_STARTS, 3);
  const loop = new Loop({ size: 3, pod: { persistentVolumeClaimSpec: PVC } }, new FakeEtcd());
  const starts: string[][] = [await nextStart(loop)];
  for (let i = 0; i < 10 && loop.s().phase !== 'Failed'; i++) {
    crashAll(loop);
    await loop.step();
    if (loop.s().phase === 'Failed') break;
    t.same(loop.pods(), [], `start ${starts.length} failed: its pods go`);
    t.equal(loop.s().bootstrapFailed.starts, starts.length, 'the failed start is counted in status');
    t.match(condition(loop, 'Scaling').message, `(${starts.length} of 3 starts failed; the last: e-`);
    starts.push(await nextStart(loop));
    // The next start's pods carry the count (the status may be lost).
    const marked = loop.children.filter((c) => c.kind === 'Pod' && c.metadata.annotations?.[BOOTSTRAP_FAILED]);
    t.equal(marked.length, 3, 'every pod of the next start carries the record');
  }
  t.same(starts, [
    ['e-0', 'e-1', 'e-2'],
    ['e-3', 'e-4', 'e-5'],
    ['e-6', 'e-7', 'e-8'],
  ]);
  t.equal(loop.s().phase, 'Failed');
  t.equal(loop.s().reason, 'BootstrapFailed');
  t.equal(loop.s().bootstrapFailed.starts, 3);
  t.same(loop.pods(), ['e-6', 'e-7', 'e-8'], 'the last start kept, for its logs');
  t.same(loop.claims(), ['e-6', 'e-7', 'e-8'], 'and its claims');
  const available = condition(loop, 'Available');
  t.equal(available.status, 'False');
  t.equal(available.reason, 'BootstrapFailed');
  t.match(available.message, 'the bootstrap failed 3 times');
  t.match(available.message, 'e-6: Error, exit code 1: etcdmain: flag provided but not defined: -bogus');
  t.match(available.message, RETRY_BOOTSTRAP, 'says how to try again');
  t.equal(condition(loop, 'Scaling').status, 'False');
  t.notOk(loop.last.resyncAfterSeconds, 'no longer asks to be synced every few seconds');
  // Stable: the same observed state, the same answer, for as long as nothing changes.
  const status = structuredClone(loop.s());
  for (let i = 0; i < 3; i++) {
    await loop.step();
    t.same(loop.pods(), ['e-6', 'e-7', 'e-8']);
    t.same(loop.s().bootstrapFailed, status.bootstrapFailed);
    t.same(loop.s().conditions, status.conditions);
  }
  // The pods deleted by hand: still stopped, nothing started.
  loop.lose('e-6', 'e-7', 'e-8');
  await loop.step();
  t.same(loop.pods(), []);
  t.equal(loop.s().reason, 'BootstrapFailed');
});

t.test('a bootstrap whose status is lost mid-way keeps its count of failed starts', async (t) => {
  const loop = new Loop({ size: 1 }, new FakeEtcd());
  await nextStart(loop);
  crashAll(loop);
  await loop.step();
  t.same(await nextStart(loop), ['e-1']);
  crashAll(loop);
  await loop.step();
  t.same(await nextStart(loop), ['e-2']);
  // The status is lost while the third start runs (its pod carries the count: 2).
  loop.status = undefined;
  await loop.step();
  t.same(loop.pods(), ['e-2'], 'the start under way is waited for');
  t.equal(loop.s().phase, 'Creating');
  t.equal(loop.s().bootstrapFailed.starts, 2, 'the count found again on the pod');
  loop.status = undefined;
  crashAll(loop);
  await loop.step();
  t.equal(loop.s().reason, 'BootstrapFailed', 'the third failed start stops it, status lost or not');
  t.same(loop.pods(), ['e-2']);
  // Lost again once stopped: still stopped (the pod carries the record).
  loop.status = undefined;
  await loop.step();
  t.equal(loop.s().reason, 'BootstrapFailed');
  t.same(loop.pods(), ['e-2']);
  t.equal(loop.s().bootstrapFailed.starts, 3);
});

t.test('a stopped bootstrap tries again once the spec changes', async (t) => {
  const loop = new Loop({ size: 1 }, new FakeEtcd());
  await nextStart(loop);
  for (let i = 0; i < 3; i++) {
    crashAll(loop);
    await loop.step();
    if (loop.s().phase !== 'Failed') await nextStart(loop);
  }
  t.equal(loop.s().reason, 'BootstrapFailed');
  t.same(loop.pods(), ['e-2']);
  // A setting of spec.pod fixed (not the image): a new start at once, counted afresh.
  loop.spec = { ...loop.spec, pod: { labels: { fixed: 'yes' } } };
  await loop.step();
  t.same(loop.pods(), [], 'the stopped start goes');
  t.equal(loop.s().phase, 'Creating');
  t.notOk(loop.s().bootstrapFailed, 'no failed start of this spec yet');
  t.same(await nextStart(loop), ['e-3']);
  t.equal(answeredPod(loop, 'e-3')?.metadata.annotations?.[BOOTSTRAP_FAILED], undefined);
  // It fails again: one of three with this spec, not a stop.
  crashAll(loop);
  await loop.step();
  t.equal(loop.s().phase, 'Creating');
  t.equal(loop.s().bootstrapFailed.starts, 1);
  // A version fixed in the spec counts afresh too.
  t.same(await nextStart(loop), ['e-4']);
  loop.spec = { ...loop.spec, version: '3.5.1' };
  await loop.step();
  t.same(loop.pods(), []);
  t.notOk(loop.s().bootstrapFailed, 'a start of another spec is not counted');
});

t.test('a retry asked for with the same spec starts again (RETRY_BOOTSTRAP)', async (t) => {
  const record = { uid: 'uid-e', spec: '', starts: 3, reason: 'e-2: Error, exit code 1', since: 'then' };
  // The fingerprint of the spec without the retry annotation, as the stop recorded it.
  const stoppedParent = parent({ size: 1 }, { phase: 'Failed', reason: 'BootstrapFailed', lastMemberIndex: 2 });
  const { bootstrapSpec } = await import('../../hooks/etcdcluster/bootstraps.js');
  record.spec = bootstrapSpec(stoppedParent, spec({ size: 1 }));
  const obs = { pods: [pod(2, crashed('exit'))], terminating: [], health: {} };
  const stopped = decide(
    { ...stoppedParent, status: { ...stoppedParent.status, bootstrapFailed: record } },
    spec({ size: 1 }),
    obs,
  );
  t.equal(stopped.reason, 'BootstrapFailed');
  t.same(
    stopped.pods.map((p) => p.metadata.name),
    ['e-2'],
  );
  const retried = { ...stoppedParent, status: { ...stoppedParent.status, bootstrapFailed: record } };
  retried.metadata = { ...retried.metadata, annotations: { [RETRY_BOOTSTRAP]: '1' } };
  const again = decide(retried, spec({ size: 1 }), obs);
  t.equal(again.phase, 'Creating');
  t.same(again.pods, [], 'the stopped start goes, a new one follows');
  t.notOk(again.bootstrapFailed);
});

t.test('a bootstrap one of whose members answered is not started again', async (t) => {
  const d = decide(parent({ size: 3 }, { phase: 'Creating', lastMemberIndex: 2 }), spec({ size: 3 }), {
    pods: range(3).map((i) => pod(i, i === 0 ? crashed('exit') : {})),
    terminating: [],
    // e-1 answered with a cluster ID (then the hook lost it): the cluster may have formed.
    health: { 'e-1': { healthy: false, clusterId: 'abc' } },
  });
  t.same(
    d.pods.map((p) => p.metadata.name),
    ['e-0', 'e-1', 'e-2'],
    'nothing deleted',
  );
  t.equal(d.phase, 'Creating');
});

t.test('a bootstrap that forms on its second start runs, the record of the failed start gone', async (t) => {
  const etcd = new FakeEtcd();
  const loop = new Loop({ size: 3 }, etcd);
  await nextStart(loop);
  crashAll(loop);
  await loop.step();
  t.equal(loop.s().bootstrapFailed.starts, 1);
  const second = await nextStart(loop);
  t.same(second, ['e-3', 'e-4', 'e-5']);
  // The second start's members start and answer.
  const c = clusterOf(loop.parent(), loop.parent().spec as any);
  etcd.members = second.map((name, i) => ({
    id: String(10 + i),
    name,
    peerURLs: [peerURL(c, name)],
    clientURLs: [],
    isLearner: false,
  }));
  for (const p of second) etcd.up.add(p);
  for (let i = 0; i < 4 && loop.s().phase !== 'Running'; i++) await loop.step();
  await loop.step();
  t.equal(loop.s().phase, 'Running');
  t.notOk(loop.s().bootstrapFailed, 'no record once the cluster formed');
  t.same(loop.pods(), second);
  for (const p of second)
    t.equal(answeredPod(loop, p)?.metadata.annotations?.[BOOTSTRAP_FAILED], undefined, `${p} unmarked`);
});

t.test('the record of failed starts is read by type, from status or pods, and bounded', async (t) => {
  const { bootstrapMemory, bootstrapSpec, howStartFailed, withFailedStart } =
    await import('../../hooks/etcdcluster/bootstraps.js');
  const s = spec({ size: 1 });
  const p = parent({ size: 1 });
  const mine = bootstrapSpec(p, s);
  t.equal(bootstrapSpec(p, { ...s, paused: true }), mine, 'paused is no change of what a start is made from');
  t.equal(
    bootstrapSpec(p, { ...s, pod: { clusterDomain: 'cluster.local' } } as any),
    mine,
    'nor the cluster domain the server fills in',
  );
  t.not(bootstrapSpec(p, { ...s, pod: { labels: { a: 'b' } } } as any), mine);
  t.not(bootstrapSpec({ ...p, metadata: { ...p.metadata, annotations: { [RETRY_BOOTSTRAP]: 'x' } } }, s), mine);
  const uid = p.metadata.uid!;
  const good = { uid, spec: mine, starts: 2, reason: 'r', since: 's' };
  const withStatus = (r: unknown) => ({ ...p, status: { bootstrapFailed: r } });
  t.same(bootstrapMemory(withStatus(good), s, []).record, good);
  t.equal(bootstrapMemory(withStatus(good), s, []).onPods, false);
  for (const bad of [
    { ...good, uid: 'another' },
    { ...good, starts: '2' },
    { ...good, starts: 0 },
    { ...good, starts: 1.5 },
    { ...good, spec: 7 },
    null,
    'text',
  ])
    t.notOk(bootstrapMemory(withStatus(bad), s, []).record, `refused: ${JSON.stringify(bad)}`);
  const capped = bootstrapMemory(
    withStatus({ ...good, starts: 99, reason: `a\u0000b${'x'.repeat(300)}`, since: 5 }),
    s,
    [],
  );
  t.equal(capped.record?.starts, 3, 'starts capped');
  t.equal(capped.record?.reason.length, 200, 'reason bounded');
  t.match(capped.record?.reason, /^a b/, 'printable');
  t.equal(capped.record?.since, '5', 'a number read as text');
  // From the pods: only a record of this EtcdCluster that parses; of this spec first, then the one counting more.
  const marked = (v: string) => {
    const x = pod(0);
    x.metadata.annotations = { ...x.metadata.annotations, [BOOTSTRAP_FAILED]: v };
    return x;
  };
  const other = { ...good, spec: 'another', starts: 3 };
  const m = bootstrapMemory(p, s, [marked('{not json'), marked(JSON.stringify(other)), marked(JSON.stringify(good))]);
  t.same(m.record, good, "this spec's record before one counting more of another");
  t.equal(m.onPods, true);
  t.same(bootstrapMemory(p, s, [marked(JSON.stringify(other))]).record, other, 'another spec: still read (a change)');
  t.same(
    bootstrapMemory(p, s, [marked(JSON.stringify({ ...good, starts: 1 })), marked(JSON.stringify(good))]).record,
    good,
    'the one counting more',
  );
  const long = JSON.stringify({ ...good, reason: 'y'.repeat(2100) });
  t.equal(bootstrapMemory(p, s, [marked(long)]).onPods, false, 'an annotation past 2 KiB is not read');
  t.equal(bootstrapMemory(p, s, [marked(JSON.stringify({ ...good, uid: 'x' }))]).onPods, false);
  // The next count: from this spec's record, its first time kept; from none, at now.
  const next = withFailedStart({ uid, spec: mine, record: good, onPods: false }, 'why', 'now');
  t.same(next, { uid, spec: mine, starts: 3, reason: 'why', since: 's' });
  t.same(withFailedStart({ uid, spec: mine, record: other, onPods: false }, 'why', 'now'), {
    uid,
    spec: mine,
    starts: 1,
    reason: 'why',
    since: 'now',
  });
  // How a start failed: the first member by name whose etcd exited, the end of its log, bounded.
  const log = `${'start '.repeat(40)}the end`;
  const how = howStartFailed([pod(1, crashed('b')), pod(0, crashed(log)), pod(2)], 'fallback');
  t.match(how, /^e-0: Error, exit code 1: \.\.\./);
  t.match(how, /the end$/);
  t.equal(how.length, 'e-0: Error, exit code 1: '.length + 120);
  t.equal(howStartFailed([pod(0), pod(1)], 'fallback'), 'fallback', 'none exited');
  t.equal(howStartFailed([pod(0, crashed(''))], 'fallback'), 'e-0: Error, exit code 1', 'no message');
});
