// Issue 30.4: a member that fails on the version it was upgraded to marks the upgrade failed; one kill of its etcd
// (an OOM kill, a container-runtime restart) or one refused pull (a registry's rate limit) does not. The rule
// (hooks/etcdcluster/upgrade.ts, detectFailure): a member upgraded in place whose etcd exited, or whose image is
// refused (ErrImagePull, ImagePullBackOff), fails the upgrade once that has lasted UPGRADE_FAIL_SECONDS by its exit
// clock (UPGRADE_EXITED_AT, set on the pod by the first sync that saw the exit or the refusal: never the time it spent
// pulling; never earlier than its upgrade, UPGRADED_AT; a time ahead of now read as now); an image that can never be
// pulled (InvalidImageName, ErrImageNeverPull) fails it at once. Each case at the bound: just under, at.
import t from 'tap';
import {
  detectFailure,
  UPGRADE_EXITED_AT,
  UPGRADE_FAIL_SECONDS,
  UPGRADE_PAUSED,
  UPGRADED_AT,
  UPGRADED_FROM,
} from '../../hooks/etcdcluster/upgrade.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { etcdPod } from '../fixtures/etcd.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const IMAGE = 'quay.io/coreos/etcd:v3.5.1';
const ago = (s: number) => new Date(FIXED_NOW.getTime() - s * 1000).toISOString().replace('.000Z', 'Z');
const waitingOn = (reason: string) => ({
  phase: reason.startsWith('Err') || reason.endsWith('Name') || reason.startsWith('Image') ? 'Pending' : 'Running',
  containerStatuses: [{ name: 'etcd', restartCount: 1, state: { waiting: { reason } } }],
});

/** Member e-1 on 3.5.1, upgraded in place from 3.5.0 `upgradedAgo` seconds ago, its etcd waiting for `reason`. */
function upgraded(reason: string, upgradedAgo = 60, extra: Record<string, string> = {}): KubeObject {
  const pod = etcdPod(1, waitingOn(reason), { version: '3.5.1' });
  pod.metadata.creationTimestamp = ago(7200);
  pod.metadata.annotations = {
    ...pod.metadata.annotations,
    [UPGRADED_FROM]: '3.5.0',
    [UPGRADED_AT]: ago(upgradedAgo),
    ...extra,
  };
  return pod;
}

const status = (member: Record<string, unknown>, quorumOk = true) => ({
  memberList: [
    { name: 'e-0', healthy: true },
    { name: 'e-1', healthy: false, ...member },
  ],
  quorum: { members: 3, healthy: 2, needed: 2, ok: quorumOk, down: ['e-1'] },
});

const detect = (pod: KubeObject, previous: unknown, healthy: string[] = []) =>
  detectFailure({
    pods: [etcdPod(0, { phase: 'Running' }, { version: '3.5.0' }), pod],
    targetImage: IMAGE,
    target: '3.5.1',
    running: '3.5.0',
    previous,
    now: FIXED_NOW,
    healthy: new Set(['e-0', ...healthy]),
  });

const UNDER = UPGRADE_FAIL_SECONDS - 1;

t.test('the bound is 20 seconds', async (t) => {
  t.equal(UPGRADE_FAIL_SECONDS, 20);
});

/** The member upgraded in place, its exit first seen by a sync `s` seconds ago (UPGRADE_EXITED_AT). */
const exited = (reason: string, s: number, upgradedAgo = 60, extra: Record<string, string> = {}) =>
  upgraded(reason, upgradedAgo, { [UPGRADE_EXITED_AT]: ago(s), ...extra });

for (const reason of ['CrashLoopBackOff', 'ErrImagePull', 'ImagePullBackOff'])
  t.test(`${reason} of a member upgraded in place fails the upgrade once it has lasted, not before`, async (t) => {
    t.equal(detect(upgraded(reason), {}), undefined, 'first seen (no exit clock on the pod): waits');
    t.equal(
      detect(upgraded(reason), status({ unhealthySince: ago(200) })),
      undefined,
      'first seen, down long before (its pull, under the 5 minutes a member may take): no exit clock',
    );
    t.equal(detect(exited(reason, UNDER), {}), undefined, 'just under the bound');
    t.match(
      detect(exited(reason, UPGRADE_FAIL_SECONDS), {}),
      { member: 'e-1', reason, version: '3.5.1', from: '3.5.0' },
      'at the bound',
    );
    t.match(detect(exited(reason, 600, 900), {}), { reason }, 'long past it');
    t.equal(
      detect(exited(reason, 600, 900), {}, ['e-1']),
      undefined,
      'a member that serves fails nothing, whatever its clock',
    );
    t.equal(
      detect(exited(reason, 600, 900, { [UPGRADE_PAUSED]: ago(600) }), {}),
      undefined,
      'nor while the others’ outage pauses its upgrade clock',
    );
  });

t.test('an exit of a member that was killed once (its etcd then exits no more) fails nothing', async (t) => {
  const serving = etcdPod(1, { phase: 'Running' }, { version: '3.5.1' });
  serving.metadata.annotations = { ...serving.metadata.annotations, [UPGRADED_FROM]: '3.5.0', [UPGRADED_AT]: ago(60) };
  t.equal(detect(serving, status({ unhealthySince: ago(10) })), undefined);
});

t.test('an image that can never be pulled fails the upgrade at once', async (t) => {
  for (const reason of ['InvalidImageName', 'ErrImageNeverPull'])
    t.match(detect(upgraded(reason), {}), { member: 'e-1', reason }, `${reason}: no clock needed`);
});

t.test('the exit clock is never read earlier than the upgrade, ', async (t) => {
  t.equal(detect(exited('CrashLoopBackOff', 100, UNDER), {}), undefined, 'upgraded just under the bound ago');
  t.match(
    detect(exited('CrashLoopBackOff', 100, UPGRADE_FAIL_SECONDS), {}),
    { reason: 'CrashLoopBackOff' },
    'upgraded at the bound ago',
  );
});

t.test('where quorum is lost, the exit clock is read all the same', async (t) => {
  const lost = status({}, false);
  t.equal(detect(upgraded('CrashLoopBackOff', 60), lost), undefined, 'no exit seen yet: waits');
  t.equal(detect(exited('CrashLoopBackOff', UNDER, 60), lost), undefined, 'just under the bound');
  t.match(detect(exited('CrashLoopBackOff', UPGRADE_FAIL_SECONDS, 60), lost), { reason: 'CrashLoopBackOff' });
});

t.test('a member made on the target meanwhile (an addition, not upgraded in place)', async (t) => {
  const added = (reason: string) => {
    const pod = etcdPod(1, waitingOn(reason), { version: '3.5.1' });
    pod.metadata.creationTimestamp = ago(7200);
    return pod;
  };
  // Its addition is cancelled at its first exit: waiting would see each one made again exit once.
  t.match(detect(added('CrashLoopBackOff'), {}), { reason: 'CrashLoopBackOff' }, 'its etcd exits: at once');
  // Its addition waits for a pull: the addition's clock (pendingSince) is read.
  t.equal(detect(added('ErrImagePull'), {}), undefined, 'a refused pull first seen: waits');
  t.equal(detect(added('ErrImagePull'), status({ pendingSince: ago(UNDER) })), undefined, 'just under the bound');
  t.match(detect(added('ErrImagePull'), status({ pendingSince: ago(UPGRADE_FAIL_SECONDS) })), {
    reason: 'ErrImagePull',
  });
});
