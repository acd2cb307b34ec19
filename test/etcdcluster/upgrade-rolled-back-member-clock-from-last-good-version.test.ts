// Issue 30.4: a member given back the last good version after a failed upgrade is replaced when it keeps failing
// there too (upgrade-rolled-back-member-failing-on-last-good-version-replaced.test.ts), but only for its time on that
// version: while its etcd container still reports the image that failed (the kubelet has not run the image given
// back yet) no clock runs, and from when it first reports the last good version it has UNHEALTHY_REPLACE_SECONDS as
// any member has. Its time crash-looping on the failed version counts for nothing. Each answer fed back as the next
// observed state.
import t from 'tap';
import { images, running, upgradeFirst } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const crashingOn = (image: string) => ({
  containerStatuses: [{ name: 'etcd', image, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } }],
});

t.test('a member given back the last good version is replaced only for its time there', async (t) => {
  const loop = await running({ size: 3 });
  const up = await upgradeFirst(loop);
  const moved = up.moved;
  let i = up.i;
  t.ok(moved, `a member is upgraded in place: ${moved}`);
  // Its etcd exits on 3.5.1; its container status keeps reporting that image for 30 minutes after it was given back
  // 3.5.0 (the kubelet has not started the image given back).
  loop.etcd.up.delete(moved!);
  loop.podStatus.set(moved!, crashingOn('quay.io/coreos/etcd:v3.5.1'));
  const step = async () => {
    loop.now = new Date(FIXED_NOW.getTime() + i++ * 60_000);
    await loop.step();
  };
  for (let k = 0; k < 30; k++) await step();
  t.match(loop.s().upgradeFailed, { member: moved, from: '3.5.0' }, 'the upgrade failed on it');
  t.equal(images(loop)[moved!], 'quay.io/coreos/etcd:v3.5.0', 'given back 3.5.0');
  t.same(loop.etcd.calls, [], 'not replaced while it has not run 3.5.0 (30 minutes unhealthy on 3.5.1)');
  // Now it runs 3.5.0, and exits there too.
  loop.podStatus.set(moved!, crashingOn('quay.io/coreos/etcd:v3.5.0'));
  for (let k = 0; k < 9; k++) await step();
  t.same(loop.etcd.calls, [], 'not replaced within 10 minutes of running 3.5.0');
  let said: string | undefined;
  for (let k = 0; k < 4; k++) {
    await step();
    said ??= loop.s().conditions.find((c: any) => c.reason === 'ReplacingUnhealthyMember')?.message;
  }
  const id = loop.etcd.members.find((m) => m.name === moved)?.id ?? '2';
  t.comment(`calls ${loop.etcd.calls.join(' ')}`);
  t.ok(loop.etcd.calls.includes(`remove ${id}`), 'replaced once it failed on 3.5.0 for over 10 minutes');
  const added = loop.pods().find((p) => !['e-0', 'e-1', 'e-2'].includes(p));
  t.equal(added && images(loop)[added], 'quay.io/coreos/etcd:v3.5.0', 'its replacement runs the last good version');
  t.match(said, /given back quay\.io\/coreos\/etcd:v3\.5\.0 after the failed upgrade and has not served on it since/);
});
