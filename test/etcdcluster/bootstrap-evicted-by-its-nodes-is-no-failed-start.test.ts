// A bootstrap that keeps failing stops after 3 starts (hooks/etcdcluster/bootstraps.ts): "a start of the spec of the
// moment that failed (a member's etcd exited or keeps exiting, a member pod vanished) is counted", and once stopped
// (Failed / BootstrapFailed) nothing is started until the user changes the spec or sets the retry annotation, telling
// them to "fix the cause (spec.version, spec.repository, spec.pod)". The hook itself tells an etcd that exited from a
// pod its node ended (pods.ts etcdExited / endedByNode: an eviction under node pressure, a graceful node shutdown,
// `status.reason` Evicted, Shutdown, NodeShutdown, Terminated, OutOf...), but the bootstrap's count reads crashLooping,
// which takes both. So a cluster bootstrapping on nodes that evict its pods (node pressure that another tenant's
// pods cause on a shared node, spot nodes shut down, a node upgrade) stops for good after three such evictions, saying
// its etcd failed, and the evicted pods it keeps (phase Failed: they never run again) never form the cluster "after
// all" as the docs promise of a cause that goes away by itself.
//
// Must hold: member pods that their node ended (phase Failed with a status.reason) are not counted as failed starts
// of the spec: no BootstrapFailed after any number of them (the bootstrap starts over, as before the bound).
import t from 'tap';
import { CRASHED_ON_A_FLAG, FakeEtcd, Loop } from '../fixtures/etcd-loop.js';

const evicted = {
  phase: 'Failed',
  reason: 'Evicted',
  message: 'The node was low on resource: memory. Threshold quantity: 100Mi, available: 52Mi.',
  containerStatuses: [
    {
      name: 'etcd',
      restartCount: 0,
      state: { terminated: { exitCode: 137, reason: 'ContainerStatusUnknown' } },
    },
  ],
};

t.test('a bootstrap whose member pods are evicted by their nodes is not stopped as a failed bootstrap', async (t) => {
  const loop = new Loop({ size: 3 }, new FakeEtcd());
  const starts: string[][] = [];
  for (let i = 0; i < 16 && starts.length < 5; i++) {
    await loop.step();
    const pods = loop.pods();
    if (pods.length === 0 || starts.some((s) => s[0] === pods[0])) continue;
    starts.push(pods);
    // Every pod of this start is evicted by its node (memory pressure): its etcd never failed.
    for (const p of pods) loop.podStatus.set(p, evicted);
  }
  const s = loop.s();
  t.not(
    s.reason,
    'BootstrapFailed',
    `after ${starts.length} starts (${starts.map((x) => x.join(',')).join(' | ')}): ${s.phase} ${s.reason} ` +
      `${JSON.stringify(s.bootstrapFailed ?? null)}`,
  );
});

/** Steps until a bootstrap's pods are answered (the ended start's pods go first). */
async function nextStart(loop: Loop): Promise<string[]> {
  for (let i = 0; i < 4; i++) {
    await loop.step();
    if (loop.pods().length > 0) return loop.pods();
  }
  return loop.pods();
}

const scaling = (loop: Loop) => loop.s().conditions.find((c: { type: string }) => c.type === 'Scaling');

t.test(
  'a start its node ended is made again, said as such, and the failed starts counted before are kept',
  async (t) => {
    const loop = new Loop({ size: 3 }, new FakeEtcd());
    // A real failed start first: counted.
    for (const p of await nextStart(loop)) loop.podStatus.set(p, CRASHED_ON_A_FLAG);
    await loop.step();
    t.equal(loop.s().bootstrapFailed?.starts, 1, 'a start whose etcd exited is counted');
    // The next start's pods are evicted: made again, the count as it was, the message naming the eviction.
    const second = await nextStart(loop);
    t.equal(second.length, 3);
    loop.podStatus.set(second[1]!, evicted);
    await loop.step();
    t.same(loop.pods(), [], 'the start is made again');
    t.equal(loop.s().phase, 'Creating');
    t.equal(loop.s().bootstrapFailed?.starts, 1, 'not counted, and the earlier count kept');
    t.match(scaling(loop).message, `${second[1]}: Evicted`);
    t.match(scaling(loop).message, 'ended by its node');
    t.notMatch(scaling(loop).message, 'failed or the spec changed');
    // A start with one pod evicted and another whose etcd exited is counted, said by the one whose etcd exited.
    const third = await nextStart(loop);
    loop.podStatus.set(third[0]!, evicted);
    loop.podStatus.set(third[2]!, CRASHED_ON_A_FLAG);
    await loop.step();
    t.equal(loop.s().bootstrapFailed?.starts, 2, 'an etcd that exited is counted');
    t.match(loop.s().bootstrapFailed?.reason, new RegExp(`^${third[2]}: `), 'said by the member whose etcd exited');
  },
);
