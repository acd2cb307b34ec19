// A periodic EtcdBackup is never taken more often than its backupIntervalInSecond asks, also when the interval is
// longer than a day (a cron schedule cannot say "every 3 days"): the hook's CronJob fired minute by minute over a
// month, each firing's Job run with exactly the arguments the hook wrote (main/cli.ts reads them) against a stand-in
// etcd gateway and an in-memory S3 that is the only memory from one run to the next (no status: a hook restarted, a
// status lost). The interval is bounded in the CRD, and the status says the schedule the backup keeps.
import t from 'tap';
import { runBackup, type BackupResult } from '../../hooks/etcdbackup/backup.js';
import { META, stampOf } from '../../hooks/etcdbackup/lineage.js';
import { EtcdBackupSpec } from '../../hooks/etcdbackup/schema.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { backupOptionsOf } from '../../main/cli.js';
import { backupPod, backupRequest, etcdCluster } from '../fixtures/backup.js';
import { podTemplateOf } from '../fixtures/backup-kubelet.js';
import { FakeS3, fakeGateway, s3Error } from '../fixtures/fake-s3.js';
import { backupSync } from '../fixtures/hooks.js';

const DAY = 86_400;
const CLUSTER_ID = '1311768467463790320'; // decimal, as the EtcdCluster records it (0x1234567890abcdf0)
const START = Date.UTC(2026, 0, 1);

const spec = (seconds: number) => ({
  clusterName: 'example',
  backupPolicy: { backupIntervalInSecond: seconds, maxBackups: 0 },
  s3: { path: 'bucket/ns/snap', awsSecret: 'aws' },
});

/** The hook's answer for a periodic EtcdBackup of `seconds`, its cluster recorded with its ID. */
function answer(seconds: number, status?: Record<string, unknown>, pods: KubeObject[] = []) {
  return backupSync(
    backupRequest({
      spec: spec(seconds),
      clusters: [etcdCluster('example', 'ns', { phase: 'Running', clusterID: CLUSTER_ID })],
      pods,
      ...(status ? { status } : {}),
    }),
    'metaops:test',
    new Date(START),
  );
}

/** The minutes (from START) in `days` at which a cron schedule of the forms the hook writes fires. */
function firings(cron: string, days: number): number[] {
  const [minute, hour, dom, month, dow] = cron.split(' ');
  if (`${dom} ${month} ${dow}` !== '* * *') throw new Error(`${cron}: a schedule this test cannot fire`);
  const matches = (field: string, v: number) =>
    field === '*' || (field.startsWith('*/') ? v % Number(field.slice(2)) === 0 : Number(field) === v);
  const out: number[] = [];
  for (let m = 0; m < days * 24 * 60; m++)
    if (matches(minute!, m % 60) && matches(hour!, Math.floor(m / 60) % 24)) out.push(m);
  return out;
}

/** The Job's backup command, as the CronJob's pod runs it, against the stand-ins, at `at`. */
async function fire(cron: KubeObject, s3: FakeS3, url: string, at: Date): Promise<BackupResult> {
  const args = podTemplateOf(cron).spec.containers[0].args as string[];
  return runBackup({ ...backupOptionsOf(args), endpoints: [url], timeoutMs: 2000, s3: s3.client, now: () => at });
}

for (const seconds of [1.5 * DAY, 2 * DAY, 3 * DAY, 7 * DAY, DAY + 3600]) {
  t.test(`an interval of ${seconds}s: a snapshot never sooner than that after the one before`, async (t) => {
    const res = answer(seconds);
    const cron = res.children.find((c) => c.kind === 'CronJob')!;
    t.ok(cron, 'a CronJob');
    const s3 = new FakeS3();
    const gw = { revision: 10, clusterId: CLUSTER_ID };
    const { url } = await fakeGateway(t, gw);
    const days = 30;
    const taken: number[] = [];
    for (const [i, minute] of firings((cron['spec'] as any).schedule, days).entries()) {
      // The Job's pod starts a few seconds after its firing, not always the same few.
      const at = START + minute * 60_000 + ((i * 7) % 40) * 1000;
      gw.revision += 3;
      const result = await fire(cron, s3, url, new Date(at));
      if (!result.succeeded) t.fail(`firing ${i}: ${result.reason}`);
      if (result.succeeded && !result.skipped) taken.push(at);
    }
    t.equal(s3.keys('bucket', 'ns/snap_v').length, taken.length, 'one object for each snapshot taken');
    const gaps = taken.slice(1).map((at, i) => (at - taken[i]!) / 1000);
    t.ok(
      gaps.every((g) => g >= seconds),
      `never more often than asked: the shortest gap ${Math.min(...gaps)}s, asked ${seconds}s`,
    );
    // Not less often than the schedule the status states: at most an hour (and the pod's start) late.
    t.ok(
      gaps.every((g) => g <= seconds + 3600 + 60),
      `at most an hour late: the longest gap ${Math.max(...gaps)}s`,
    );
    t.ok(taken.length >= Math.floor((days * DAY) / (seconds + 3660)), `${taken.length} snapshots in ${days} days`);
  });
}

t.test('the Job reads the last snapshot from S3, not from status: a hook restarted or a status lost', async (t) => {
  const res = answer(3 * DAY);
  const cron = res.children.find((c) => c.kind === 'CronJob')!;
  const s3 = new FakeS3();
  const { url } = await fakeGateway(t, { revision: 50, clusterId: CLUSTER_ID });
  const at = (hours: number) => new Date(START + hours * 3_600_000);
  // This EtcdBackup's snapshot of 10 hours ago, and another EtcdBackup's of an hour ago, on the same path.
  s3.put('bucket', `ns/snap_v40_${stampOf(at(-10))}`, 'x', { [META.uid]: 'uid-ns-nightly', [META.cluster]: 'x' });
  s3.put('bucket', `ns/snap_v45_${stampOf(at(-1))}`, 'x', { [META.uid]: 'uid-other', [META.cluster]: 'x' });
  const skipped = await fire(cron, s3, url, at(0));
  t.match(skipped, { succeeded: true, skipped: /snap_v40_/ }, 'its own snapshot of 10 hours ago holds it back');
  t.equal(s3.keys('bucket', 'ns/snap_v').length, 2, 'nothing written');
  const taken = await fire(cron, s3, url, at(62));
  t.match(taken, { succeeded: true, key: /^ns\/snap_v50_/ }, '72 hours after it, one is taken');
  t.notOk(taken.skipped);

  // A snapshot inside the interval whose metadata cannot be read could be this EtcdBackup's: none is taken, said.
  const s3b = new FakeS3();
  s3b.put('bucket', `ns/snap_v40_${stampOf(at(-10))}`, 'x', { [META.uid]: 'uid-ns-nightly' });
  s3b.fault = (command) => (command === 'HeadObject' ? s3Error('InternalError', 500, 'x') : undefined);
  const unsure = await fire(cron, s3b, url, at(0));
  t.match(unsure, { succeeded: false, reason: /could not be read/ });
  t.equal(s3b.keys('bucket', 'ns/snap_v').length, 1, 'nothing written');
});

t.test('a run that took no snapshot is not news: status keeps the last snapshot taken', async (t) => {
  const good = backupPod(
    'nightly',
    'ns',
    {
      succeeded: true,
      key: 'ns/snap_v40_2025-12-31T00-00-00Z',
      bucket: 'bucket',
      etcdRevision: 40,
      lastSuccessDate: '2025-12-31T00:00:00.000Z',
      backupUid: 'uid-ns-nightly',
    },
    '2025-12-31T00:00:10Z',
  );
  const skip = backupPod(
    'nightly',
    'ns',
    { succeeded: true, skipped: 'the newest snapshot ...', backupUid: 'uid-ns-nightly' },
    '2025-12-31T01:00:10Z',
  );
  const status = answer(3 * DAY, undefined, [good, skip]).status as any;
  t.match(status, { succeeded: true, key: 'ns/snap_v40_2025-12-31T00-00-00Z', etcdRevision: 40 });
  t.match(
    status.conditions.find((c: any) => c.type === 'Ready'),
    { status: 'True', reason: 'BackupSucceeded' },
  );
});

t.test('the status says the schedule kept, and when the cron schedule is not the interval asked', async (t) => {
  const hourly = answer(3600).status as any;
  t.equal(hourly.schedule, '0 * * * *');
  t.notOk(hourly.scheduleNote, 'an interval a cron schedule keeps exactly: no note');
  const rounded = answer(45 * 60).status as any;
  t.equal(rounded.schedule, '0 * * * *');
  t.match(rounded.scheduleNote, /every 1 hour.*2700s/);
  const long = answer(3 * DAY);
  const status = long.status as any;
  const cron = long.children.find((c) => c.kind === 'CronJob')!;
  t.equal(status.schedule, (cron['spec'] as any).schedule, 'the schedule of its CronJob');
  t.match(status.scheduleNote, /hourly/);
  t.match(status.scheduleNote, /at least 3 days/);
  t.match(status.conditions.find((c: any) => c.type === 'Ready').message, /at least 3 days/);
});

t.test('the interval is at most 365 days, in the CRD and in the hook', async (t) => {
  const field = (EtcdBackupSpec.properties.backupPolicy as any).properties.backupIntervalInSecond;
  t.equal(field.maximum, 365 * DAY);
  const res = answer(365 * DAY + 1);
  t.match((res.status as any).conditions[0], { reason: 'InvalidSpec', message: /backupIntervalInSecond/ });
  t.same(res.children, [], 'no CronJob');
  t.ok(answer(365 * DAY).children.length === 1, '365 days is accepted');
});
