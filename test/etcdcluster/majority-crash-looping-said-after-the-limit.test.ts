// Two of three members whose etcd keeps exiting (CrashLoopBackOff) keep the quorum away: for the first 10 minutes
// (UNHEALTHY_REPLACE_SECONDS) that is the outage it may be (QuorumLost, synced every few seconds); past them it is
// said as a crash loop with the way out (MajorityCrashLooping), whether etcd answers through the survivor or not
// at all, with nothing deleted and no membership change; once the members start again the cluster is Available.
import t from 'tap';
import { running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const CRASHING = {
  containerStatuses: [
    {
      name: 'etcd',
      restartCount: 7,
      lastState: { terminated: { exitCode: 2, reason: 'Error' } },
      state: { waiting: { reason: 'CrashLoopBackOff' } },
    },
  ],
};
const available = (loop: any) => (loop.s().conditions as any[]).find((c) => c.type === 'Available');

for (const survivorAnswers of [true, false]) {
  t.test(
    `two of three crash-looping, ${survivorAnswers ? 'the survivor answering' : 'no member answering'}: QuorumLost for 10 minutes, then the crash loop said, then Available once they start`,
    async (t) => {
      const loop = await running({ size: 3 });
      loop.etcd.up.delete('e-0');
      loop.etcd.up.delete('e-1');
      if (!survivorAnswers) loop.etcd.up.delete('e-2');
      for (const name of ['e-0', 'e-1']) loop.podStatus.set(name, CRASHING);
      for (const minute of [0, 5, 9]) {
        loop.now = new Date(FIXED_NOW.getTime() + minute * 60_000);
        const res = await loop.step();
        t.match(available(loop), { status: 'False', reason: 'QuorumLost' }, `minute ${minute}: QuorumLost`);
        t.equal(res.resyncAfterSeconds, 5, `minute ${minute}: synced again soon`);
      }
      loop.now = new Date(FIXED_NOW.getTime() + 11 * 60_000);
      const res = await loop.step();
      t.match(available(loop), {
        status: 'False',
        reason: 'MajorityCrashLooping',
        message:
          /^e-0 \(CrashLoopBackOff, 7 restarts, last exit: Error, exit code 2\), e-1 .*keep exiting: 2 of 3 members cannot start.*lost since 2026-01-02T03:04:05Z.*EtcdRestore/,
      });
      t.match(
        (loop.s().conditions as any[]).find((c) => c.type === 'Recovering'),
        { status: 'False', reason: 'MajorityCrashLooping' },
        'nothing is being recovered by the operator',
      );
      t.equal(res.resyncAfterSeconds, undefined, 'synced when a pod changes, not every few seconds');
      t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'every pod kept');
      t.same(loop.etcd.calls, [], 'no membership change');
      // One starts again: quorum is back.
      loop.podStatus.delete('e-0');
      loop.etcd.up.add('e-0');
      loop.etcd.up.add('e-2');
      loop.now = new Date(FIXED_NOW.getTime() + 12 * 60_000);
      await loop.step();
      t.match(available(loop), { status: 'True', reason: 'Degraded' }, 'back at quorum');
    },
  );
}

t.test(
  'a single member crash-looping past the limit while the others keep quorum is no crash-loop verdict',
  async (t) => {
    const loop = await running({ size: 3 });
    loop.etcd.up.delete('e-1');
    loop.podStatus.set('e-1', CRASHING);
    for (const minute of [0, 11]) {
      loop.now = new Date(FIXED_NOW.getTime() + minute * 60_000);
      await loop.step();
      t.not(available(loop).reason, 'MajorityCrashLooping');
      t.equal(available(loop).status, 'True');
    }
  },
);
