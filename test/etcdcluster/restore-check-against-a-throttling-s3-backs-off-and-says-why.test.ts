// A restore's check whose every run ends on S3's `SlowDown` ("Please reduce your request rate": S3 throttling the
// bucket's prefix) proves nothing of the snapshot and is made again within its deadline (RESTORE_CHECK_SECONDS). Made
// again at once, each new check pod fetches the whole snapshot again from an S3 that asked for fewer requests: the
// check is made again with a back-off, as the kubelet runs a restored member's step again (10 s, doubling). Past the
// deadline the refusal says what the last run ended on (S3's SlowDown), whichever sync the deadline falls on, never
// that the check's pod "was not created". Metacontroller syncs every 5 s (the hook's resync while checking); each
// answer is fed back as the next observed state.
import t from 'tap';
import { RESTORE_CHECK_SECONDS } from '../../hooks/etcdcluster/restore.js';
import { restoreObject, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const CHECK = 'e-restore-check';
const SLOW_DOWN = 's3://bucket/ns/snap.db: SlowDown: Please reduce your request rate.';
const throttled = {
  phase: 'Failed',
  containerStatuses: [
    {
      name: 'check',
      restartCount: 0,
      state: {
        terminated: {
          exitCode: 1,
          reason: 'Error',
          message: JSON.stringify({ succeeded: false, reason: SLOW_DOWN }),
        },
      },
    },
  ],
};

/** Every check run ends on SlowDown; syncs every 5 s until the restore ends. Returns the check pods made. */
async function throttledRestore() {
  const loop = await running({ size: 3 });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  loop.podStatus.set(CHECK, throttled);
  let made = 0;
  let there = false;
  for (let s = 0; s <= 2 * RESTORE_CHECK_SECONDS && (s === 0 || loop.s().restore?.phase === 'Checking'); s += 5) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
    await loop.step();
    const has = loop.checkPod() !== undefined;
    if (has && !there) made++;
    there = has;
  }
  return { loop, made };
}

t.test('a check that S3 throttles is made again with a back-off, not at every other sync', async (t) => {
  const { made } = await throttledRestore();
  t.ok(made <= 10, `check pods made (each fetching the whole snapshot) within the deadline: ${made}`);
});

t.test('a check that S3 throttled until its deadline is refused naming what its last run ended on', async (t) => {
  const { loop } = await throttledRestore();
  t.match(loop.s().restore, { phase: 'Failed', refused: true, untouched: true });
  t.match(loop.s().restore?.reason, /SlowDown/, `the refusal names S3's answer: ${loop.s().restore?.reason}`);
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the running members are kept');
});
