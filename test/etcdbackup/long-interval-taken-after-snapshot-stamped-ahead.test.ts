// A periodic EtcdBackup whose interval is longer than a day (its CronJob fires hourly) takes a snapshot only once
// the newest of its own is that old (hooks/etcdbackup/backup.ts tooSoon). "That old" is read from the stamp in the
// snapshot's name, written by the clock of the node the Job ran on. One run on a node whose clock was ahead leaves a
// snapshot that looks younger than the interval until real time passes its stamp: every run meanwhile takes nothing
// and says succeeded (skipped), so the cluster goes without backups for as long as that clock was ahead.
import t from 'tap';
import { FakeS3, fakeGateway } from '../fixtures/fake-s3.js';
import { backupAt } from '../fixtures/periodic-backup.js';

const DAY = 86_400;
const at = (day: number, hour = 0) => new Date(Date.UTC(2026, 0, day, hour));

const run = (s3: FakeS3, url: string, now: Date) =>
  backupAt(s3, url, now, { maxBackups: 0, minIntervalSeconds: 3 * DAY });

t.test(
  'an every-3-days backup is taken again 3 days after a run on a node whose clock was a month ahead',
  async (t) => {
    const s3 = new FakeS3();
    const state = { revision: 100, clusterId: '1111111111111111111' };
    const gw = await fakeGateway(t, state);
    t.match(await run(s3, gw.url, at(1)), { succeeded: true, skipped: undefined });
    // Three days later the Job lands on a node whose clock is a month ahead: it takes one, stamped February 4.
    state.revision += 100;
    t.match(await run(s3, gw.url, new Date(Date.UTC(2026, 1, 4))), { succeeded: true, skipped: undefined });
    // The clock is right again (or the Job lands elsewhere): the next snapshots fall due on January 7, 10, 13...
    const days: string[] = [];
    for (const day of [7, 10, 13, 16]) {
      state.revision += 100;
      const r = await run(s3, gw.url, at(day, 1));
      t.equal(r.succeeded, true);
      if (r.skipped) days.push(`January ${day}: ${r.skipped}`);
    }
    t.same(days, [], 'a snapshot taken on each due day');
  },
);
