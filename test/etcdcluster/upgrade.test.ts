// Issue 30.4: a failed upgrade stops. A member that fails on the version it was upgraded to (its etcd keeps
// exiting, its image cannot be pulled, it stays unhealthy past UPGRADE_MEMBER_SECONDS) marks the upgrade failed:
// Upgrading=False/UpgradeFailed and a Warning event, the member back on the version the cluster ran (in place: the
// same member, no remove + add), no further member upgraded, Available telling how many failures are tolerated.
// Each answer fed back as the next observed state. On real etcd: test/real/etcd-restarts-real.test.ts.
import t from 'tap';
import {
  UPGRADE_FAIL_SECONDS,
  UPGRADE_MEMBER_SECONDS,
  detectFailure,
  recordedFailure,
} from '../../hooks/etcdcluster/upgrade.js';
import { crashLooping } from '../../hooks/etcdcluster/pods.js';
import { EtcdError } from '../../hooks/etcdcommon/etcd.js';
import type { EventSpec } from '../../lib/events.js';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { failureLasts, running, type Loop } from '../fixtures/etcd-loop.js';
import { etcdPod } from '../fixtures/etcd.js';
import { etcdSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';

const condition = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);
const images = (loop: Loop) =>
  Object.fromEntries(
    loop.children.filter((c) => c.kind === 'Pod').map((p: any) => [p.metadata.name, p.spec.containers[0].image]),
  );
const IMAGE = (v: string) => `quay.io/coreos/etcd:v${v}`;
const CRASHING = { containerStatuses: [{ name: 'etcd', state: { waiting: { reason: 'CrashLoopBackOff' } } }] };

/** Starts an upgrade to `version` and returns the member it moved first. */
async function upgradeFirst(loop: Loop, version: string): Promise<string> {
  loop.spec = { ...loop.spec, version };
  await loop.step();
  const moved = Object.entries(images(loop)).find(([, img]) => img === IMAGE(version));
  if (!moved) throw new Error(`no member moved to ${version}: ${JSON.stringify(images(loop))}`);
  return moved[0];
}

t.test('a member whose etcd keeps exiting on the new version: the upgrade halts, the member goes back', async (t) => {
  const loop = await running({ size: 3 });
  const name = await upgradeFirst(loop, '3.5.1');
  t.equal(condition(loop.last, 'Upgrading').reason, 'UpgradingMember');
  // Its etcd exits at every start on 3.5.1.
  loop.etcd.up.delete(name);
  loop.podStatus.set(name, CRASHING);
  // The first sync that sees it down fails nothing: one exit may be one kill (the status's clock starts).
  await loop.step();
  t.notOk((loop.last.status as any).upgradeFailed, 'not failed at the first exit seen');
  t.equal(loop.last.resyncAfterSeconds, 5, 'called again while it waits');
  t.equal(images(loop)[name], IMAGE('3.5.1'), 'still on the new version while it waits');
  // It keeps exiting: UPGRADE_FAIL_SECONDS later by the status's clock, the upgrade has failed.
  loop.now = new Date(loop.now.getTime() + UPGRADE_FAIL_SECONDS * 1000);
  const events: EventSpec[] = [];
  const first = await etcdSync(
    {
      controller: {},
      parent: loop.parent(),
      children: objectMap(loop.observed(), 'v1', ['Pod.v1', 'Service.v1', 'PersistentVolumeClaim.v1']),
    },
    { etcd: loop.etcd, now: loop.now, note: (e) => events.push(e) },
  );
  t.match(condition(first, 'Upgrading'), {
    status: 'False',
    reason: 'UpgradeFailed',
    message: `member ${name} failed on 3.5.1 (CrashLoopBackOff): the upgrade is halted, ${name} runs 3.5.0 again and no other member is upgraded; set spec.version to 3.5.0 to roll back, or to a version that works`,
  });
  t.match(
    events.find((e) => e.reason === 'UpgradeFailed'),
    { type: 'Warning', note: /failed on 3\.5\.1/ },
    'a Warning event says so',
  );
  t.match((first.status as any).upgradeFailed, { version: '3.5.1', from: '3.5.0', member: name });
  const back = first.children.find((c) => c.kind === 'Pod' && c.metadata.name === name) as any;
  t.equal(back.spec.containers[0].image, IMAGE('3.5.0'), 'the member gets the image it ran, in place');
  t.equal(back.metadata.annotations['etcd.version'], '3.5.0');
  t.match(condition(first, 'Available'), {
    status: 'True',
    reason: 'Degraded',
    message: `2 of 3 members healthy (down: ${name}): one more failure loses quorum`,
  });
  // Fed back: the member runs again on 3.5.0; the upgrade stays halted, no other member moves, nothing removed.
  loop.last = first;
  loop.status = first.status as any;
  loop.children = first.children;
  loop.podStatus.delete(name);
  loop.etcd.up.add(name);
  for (let i = 0; i < 4; i++) {
    const res = await loop.step();
    t.same(Object.values(images(loop)), Array(3).fill(IMAGE('3.5.0')), `sync ${i + 1}: every member on 3.5.0`);
    t.match(condition(res, 'Upgrading'), { status: 'False', reason: 'UpgradeFailed' });
    t.match(condition(res, 'Available'), { status: 'True', reason: 'QuorumAvailable' }, 'at full strength');
    t.equal(res.resyncAfterSeconds, undefined, 'at rest');
  }
  t.same(loop.etcd.calls, [], 'no member removed or added');
  // A member added meanwhile takes the version the cluster runs.
  loop.spec = { ...loop.spec, size: 4 };
  await loop.step();
  t.equal(images(loop)['e-3'], IMAGE('3.5.0'), 'a new member on 3.5.0, not on the version that failed');
  t.same(loop.etcd.calls, ['add e-3']);
  loop.spec = { ...loop.spec, size: 3 };
  loop.etcd.members = loop.etcd.members.filter((m) => !m.peerURLs[0]!.includes('//e-3.'));
  loop.etcd.calls.length = 0;
  await loop.step();
  // Rolling back: spec.version to the version that runs clears the failure.
  loop.spec = { ...loop.spec, version: '3.5.0' };
  const rolled = await loop.step();
  t.match(condition(rolled, 'Upgrading'), { status: 'False', reason: 'AtVersion' });
  t.notOk((rolled.status as any).upgradeFailed, 'the record goes');
  // Another version: the upgrade starts again, one member at a time.
  const next = await upgradeFirst(loop, '3.5.2');
  t.ok(next, `upgrading again: ${next} first`);
  t.notOk((loop.last.status as any).upgradeFailed);
});

t.test('an image that cannot be pulled, or a member unhealthy too long, fails the upgrade the same way', async (t) => {
  const loop = await running({ size: 3 });
  const name = await upgradeFirst(loop, '3.5.99');
  loop.etcd.up.delete(name);
  loop.phase.set(name, 'Pending');
  loop.podStatus.set(name, {
    containerStatuses: [{ name: 'etcd', state: { waiting: { reason: 'ImagePullBackOff' } } }],
  });
  const res = await failureLasts(loop, (failed) => t.notOk(failed, 'not failed at the first refused pull seen'));
  t.match(condition(res, 'Upgrading'), { reason: 'UpgradeFailed', message: /failed on 3\.5\.99 \(ImagePullBackOff\)/ });
  t.equal(images(loop)[name], IMAGE('3.5.0'));

  const slow = await running({ size: 3 });
  const m = await upgradeFirst(slow, '3.5.1');
  slow.etcd.up.delete(m); // it runs, but never answers as healthy
  await slow.step();
  t.notOk((slow.last.status as any).upgradeFailed, 'waited for at first');
  slow.now = new Date(FIXED_NOW.getTime() + (UPGRADE_MEMBER_SECONDS - 10) * 1000);
  await slow.step();
  t.notOk((slow.last.status as any).upgradeFailed, 'not before the limit');
  slow.now = new Date(FIXED_NOW.getTime() + (UPGRADE_MEMBER_SECONDS + 10) * 1000);
  await slow.step();
  t.match(condition(slow.last, 'Upgrading'), {
    reason: 'UpgradeFailed',
    message: /failed on 3\.5\.1 \(unhealthy since /,
  });
  t.equal(images(slow)[m], IMAGE('3.5.0'), 'back on 3.5.0');
  t.same(slow.etcd.calls, [], 'not replaced: rolled back');
});

t.test('a one-member cluster whose member fails on the new version: rolled back while quorum is lost', async (t) => {
  const loop = await running({ size: 1 });
  await upgradeFirst(loop, '3.5.1');
  loop.etcd.up.delete('e-0');
  loop.etcd.listError = new EtcdError('no quorum', 'Unreachable');
  loop.podStatus.set('e-0', CRASHING);
  // (No member's unhealthy clock runs without quorum: the upgrade's own clock, UPGRADED_AT, is read.)
  const res = await failureLasts(loop, (failed) => t.notOk(failed, 'not failed at the first exit seen'));
  t.match(condition(res, 'Upgrading'), { reason: 'UpgradeFailed' });
  t.equal(images(loop)['e-0'], IMAGE('3.5.0'), 'back on the version it ran, even without quorum');
  t.match(condition(res, 'Available'), { status: 'False', reason: 'QuorumLost' });
});

t.test('a member crash-looping on the version the cluster runs is no upgrade failure', async (t) => {
  const loop = await running({ size: 3 });
  loop.etcd.up.delete('e-2');
  loop.podStatus.set('e-2', CRASHING);
  const res = await loop.step();
  t.notOk((res.status as any).upgradeFailed);
  t.notOk(condition(res, 'Upgrading'), 'no upgrade said');
  t.same(Object.values(images(loop)), Array(3).fill(IMAGE('3.5.0')), 'nothing changed on it');
  t.same(loop.etcd.calls, [], 'restarted in place by the kubelet: no remove + add');
  t.match(condition(res, 'Available'), { reason: 'Degraded', message: /down: e-2/ });
});

t.test('detectFailure and recordedFailure, field by field', async (t) => {
  const base = {
    targetImage: IMAGE('3.5.1'),
    target: '3.5.1',
    running: '3.5.0',
    previous: {},
    now: FIXED_NOW,
  };
  const crashing = etcdPod(1, { phase: 'Running', ...CRASHING }, { version: '3.5.1' });
  t.match(detectFailure({ ...base, pods: [etcdPod(0), crashing] }), {
    version: '3.5.1',
    from: '3.5.0',
    member: 'e-1',
    reason: 'CrashLoopBackOff',
    since: '2026-01-02T03:04:05Z',
  });
  t.equal(detectFailure({ ...base, pods: [crashing], running: '3.5.1' }), undefined, 'no upgrade under way');
  t.equal(detectFailure({ ...base, pods: [crashing], running: undefined }), undefined, 'the running version unknown');
  t.equal(detectFailure({ ...base, pods: [etcdPod(1, { phase: 'Running' }, { version: '3.5.1' })] }), undefined);
  t.equal(
    detectFailure({ ...base, pods: [etcdPod(1, { phase: 'Running', ...CRASHING })] }),
    undefined,
    'not on the target image',
  );
  t.match(detectFailure({ ...base, pods: [etcdPod(1, { phase: 'Failed' }, { version: '3.5.1' })] }), {
    reason: 'its etcd exited',
  });
  const since = (s: string) => ({ memberList: [{ name: 'e-1', unhealthySince: s }, null, { name: 3 }] });
  const up = etcdPod(1, { phase: 'Running' }, { version: '3.5.1' });
  const limit = new Date(FIXED_NOW.getTime() - UPGRADE_MEMBER_SECONDS * 1000).toISOString();
  t.equal(detectFailure({ ...base, pods: [up], previous: since(limit) }), undefined, 'at the limit');
  const past = new Date(FIXED_NOW.getTime() - UPGRADE_MEMBER_SECONDS * 1000 - 1000).toISOString();
  t.match(detectFailure({ ...base, pods: [up], previous: since(past) }), { reason: `unhealthy since ${past}` });
  const { now: _now, ...noClock } = base;
  t.equal(detectFailure({ ...noClock, now: undefined, pods: [up], previous: since(past) }), undefined);
  t.match(detectFailure({ ...noClock, now: undefined, pods: [crashing] }), { since: 'unknown' });
  const rec = { version: '3.5.1', from: '3.5.0', member: 'e-1', reason: 'CrashLoopBackOff', since: 'x' };
  const Q = 'quay.io/coreos/etcd:v3.5.1';
  t.same(recordedFailure({ upgradeFailed: rec }, '3.5.1', Q), rec, 'a record without its image: bound to the version');
  t.equal(recordedFailure({ upgradeFailed: rec }, '3.5.2', Q), undefined, 'another version asked');
  t.equal(recordedFailure({}, '3.5.1', Q), undefined);
  t.equal(recordedFailure(undefined, '3.5.1', Q), undefined);
  for (const field of ['from', 'member', 'reason'])
    t.equal(recordedFailure({ upgradeFailed: { ...rec, [field]: '' } }, '3.5.1', Q), undefined, `no ${field}`);
  const withImages = { ...rec, image: Q, fromImage: 'quay.io/coreos/etcd:v3.5.0' };
  t.same(recordedFailure({ upgradeFailed: withImages }, '3.5.1', Q), withImages, 'the image the spec names');
  t.equal(
    recordedFailure({ upgradeFailed: withImages }, '3.5.1', 'mirror.example.com/etcd:v3.5.1'),
    undefined,
    'another repository: the hold is lifted',
  );
  t.same(
    recordedFailure({ upgradeFailed: { ...withImages, fromImage: 'quay.io/coreos/etcd:v9.9.9' } }, '3.5.1', Q),
    { ...rec, image: Q },
    'a from-image that is not the from version (edited by hand) is not run',
  );
  t.ok(crashLooping(crashing));
  t.notOk(crashLooping(etcdPod(1)));
  t.ok(crashLooping(etcdPod(1, { phase: 'Succeeded' })));
  t.notOk(
    crashLooping(
      etcdPod(1, {
        phase: 'Running',
        containerStatuses: [{ name: 'other', state: CRASHING.containerStatuses[0]!.state }],
      }),
    ),
    'another container',
  );
});
