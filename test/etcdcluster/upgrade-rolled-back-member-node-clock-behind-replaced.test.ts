// Issue 30.4: a member given back the last good version after a failed upgrade, that keeps exiting there too (data
// the crash damaged, its disk, its node), is replaced once it has failed on that version for 10 minutes
// (upgrade-rolled-back-member-clock-from-last-good-version.test.ts): it is seen running the image given back when its
// container reports that image, reports none, or started since. Here its container runtime reports the image by its
// digest (the Kubernetes API: containerStatuses[].image may not match the pod spec's), and its node's clock runs an
// hour behind the hook's (the kubelet stamps startedAt with the node's clock): each start of its etcd on 3.5.0 is
// stamped before the failure was recorded. It runs 3.5.0 all the same, and keeps exiting there: it has its 10 minutes
// from when it ran 3.5.0, not from when the wall clock caught up with its node's (the cluster at 2 of 3 meanwhile,
// one failure from losing quorum, for as long as the node's clock is behind).
import t from 'tap';
import { images, running, upgradeFirst } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const DIGEST = 'sha256:0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9';
const stamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

for (const [clock, offset] of [
  ['right', 0],
  ['an hour behind', -3600_000],
] as const) {
  t.test(`a member given back 3.5.0 that keeps exiting there, its node's clock ${clock}: replaced`, async (t) => {
    const loop = await running({ size: 3 });
    const up = await upgradeFirst(loop);
    const moved = up.moved;
    let i = up.i;
    t.ok(moved, `a member is upgraded in place: ${moved}`);
    const id = loop.etcd.members.find((m) => m.name === moved)?.id ?? '2';
    loop.etcd.up.delete(moved!);
    // Its etcd exits on 3.5.1 (its status reports that image), then on 3.5.0 once given it back (reported by digest;
    // each start stamped by the node's clock).
    const crashing = (image: string, startedAt: number) => ({
      containerStatuses: [
        {
          name: 'etcd',
          image,
          restartCount: 5,
          state: { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: {
            terminated: {
              exitCode: 2,
              reason: 'Error',
              startedAt: stamp(startedAt + offset),
              finishedAt: stamp(startedAt + offset + 1000),
            },
          },
        },
      ],
    });
    let failedAt: number | undefined;
    let removedAt: number | undefined;
    for (let k = 0; k < 150; k++, i++) {
      loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
      const givenBack = images(loop)[moved!] === 'quay.io/coreos/etcd:v3.5.0';
      loop.podStatus.set(
        moved!,
        givenBack
          ? crashing(DIGEST, loop.now.getTime() - 30_000)
          : crashing('quay.io/coreos/etcd:v3.5.1', loop.now.getTime() - 30_000),
      );
      await loop.step();
      if (loop.s().upgradeFailed?.member === moved) failedAt ??= k;
      for (const p of loop.pods()) if (!['e-0', 'e-1', 'e-2'].includes(p)) loop.etcd.up.add(p);
      if (loop.etcd.calls.includes(`remove ${id}`)) {
        removedAt = k;
        break;
      }
    }
    t.ok(failedAt !== undefined, 'the upgrade failed on it');
    t.comment(`calls ${loop.etcd.calls.join(' ') || 'none'}; failed at minute ${failedAt}, removed at ${removedAt}`);
    t.ok(
      removedAt !== undefined && failedAt !== undefined && removedAt - failedAt <= 20,
      'replaced within 20 minutes of the failure: its 10 minutes failing on 3.5.0 count from when it ran it',
    );
  });
}
