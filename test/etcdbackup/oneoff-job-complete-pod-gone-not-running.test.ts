// A one-off backup's record lives in its status and in its pod's termination message (issue 30.3). When both are
// lost — the EtcdBackup's status written over or restored without it, and the finished pod gone (its node replaced,
// terminated pods garbage-collected) — while its Job is still there, Complete: the hook reads no result, and the Job
// is kept as it is, so nothing ever runs that could find the snapshot again (the CLI would answer alreadyTaken).
// Ready then says "the backup Job is running" for good, about a Job that finished: the one-off backup taken before an
// upgrade never reads as succeeded again. Expected: never "running" for a Job that completed; its outcome found again
// (the Job run again finds its own snapshot) or said as unknown.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { backupPod, backupRequest, etcdCluster } from '../fixtures/backup.js';
import { backupSync } from '../fixtures/hooks.js';
import { FIXED_NOW, asObserved } from '../fixtures/requests.js';

t.test('a one-off backup whose status and pod are lost, its Job Complete: not reported running', async (t) => {
  const spec = { clusterName: 'example', s3: { path: 'bucket/ns/before-upgrade.db', awsSecret: 'aws' } };
  const step = (status: Record<string, unknown> | undefined, children: KubeObject[], now: Date) =>
    backupSync(
      backupRequest({
        spec,
        uid: 'uid-ns-nightly',
        ...(status ? { status } : {}),
        children,
        pods: [],
        clusters: [etcdCluster('example', 'ns')],
      }),
      'metaops:test',
      now,
    );
  const first = step(undefined, [], FIXED_NOW);
  const job = first.children.find((c) => c.kind === 'Job');
  t.ok(job, 'the Job is made');
  // The Job finished (its pod succeeded, then was deleted), the status was lost meanwhile.
  const done = asObserved(job!);
  done.metadata.creationTimestamp = FIXED_NOW.toISOString();
  done['status'] = {
    succeeded: 1,
    completionTime: FIXED_NOW.toISOString(),
    conditions: [{ type: 'Complete', status: 'True' }],
  };
  let status: Record<string, unknown> | undefined;
  let children = [done];
  let res = step(undefined, children, new Date(FIXED_NOW.getTime() + 3_600_000));
  for (let i = 1; i < 5; i++) {
    status = res.status as Record<string, unknown>;
    children = res.children.map((c) =>
      c.kind === 'Job' && c.metadata.name === done.metadata.name ? done : asObserved(c),
    );
    res = step(status, children, new Date(FIXED_NOW.getTime() + 3_600_000 + i * 60_000));
  }
  const ready = ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');
  t.comment(JSON.stringify(ready));
  t.notMatch(ready, { reason: 'Running' }, 'a Job that completed is not said to be running');
  // What is known, and no more: the Job completed; no snapshot is recorded as taken without its result.
  t.match(ready, {
    status: 'False',
    reason: 'ResultUnknown',
    message: /completed.*s3:\/\/bucket\/ns\/before-upgrade\.db/,
  });
  t.not((res.status as any).succeeded, true, 'not reported succeeded: no result says which snapshot it wrote');
  t.notOk((res.status as any).key, 'no key recorded as taken');
  t.same(
    res.children.filter((c) => c.kind === 'Job').map((c) => c.metadata.name),
    [done.metadata.name],
    'the Job kept as it is: nothing runs again on its own',
  );
  t.equal(res.resyncAfterSeconds, undefined, 'quiet at rest: nothing is polled while nothing changes');
});

// The same Job kept after s3.path is edited to another bucket (a Job is never changed, OnDelete): its finished pod
// says it took the snapshot at the old path, which is not the one asked; before, Ready said "the backup Job is running"
// for good. It says which path the Job ran for, and that none is known at the path asked.
t.test('a one-off Job that completed for the path before s3.path was edited: not reported running', async (t) => {
  let spec: Record<string, unknown> = {
    clusterName: 'example',
    s3: { path: 'bucket/ns/before-upgrade.db', awsSecret: 'aws' },
  };
  const step = (status: Record<string, unknown> | undefined, children: KubeObject[], pods: KubeObject[]) =>
    backupSync(
      backupRequest({
        spec,
        uid: 'uid-ns-nightly',
        ...(status ? { status } : {}),
        children,
        pods,
        clusters: [etcdCluster('example', 'ns')],
      }),
      'metaops:test',
      FIXED_NOW,
    );
  const first = step(undefined, [], []);
  const done = asObserved(first.children.find((c) => c.kind === 'Job')!);
  done['status'] = { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] };
  const pod = backupPod(
    'nightly',
    'ns',
    {
      succeeded: true,
      bucket: 'bucket',
      key: 'ns/before-upgrade.db',
      etcdRevision: 42,
      lastSuccessDate: '2026-01-01T00:00:00Z',
      backupUid: 'uid-ns-nightly',
    },
    '2026-01-01T00:00:00Z',
  );
  const taken = step(first.status as Record<string, unknown>, [done], [pod]);
  t.match(taken.status, { succeeded: true, bucket: 'bucket', key: 'ns/before-upgrade.db' });
  spec = { ...spec, s3: { path: 'dr-bucket/ns/before-upgrade.db', awsSecret: 'aws' } };
  let res = step(taken.status as Record<string, unknown>, [done], [pod]);
  res = step(res.status as Record<string, unknown>, [done], [pod]);
  const ready = ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');
  t.comment(JSON.stringify(ready));
  t.match(ready, {
    status: 'False',
    reason: 'ResultUnknown',
    message: /completed for s3:\/\/bucket\/ns\/before-upgrade\.db, not for s3:\/\/dr-bucket\/ns\/before-upgrade\.db/,
  });
  t.not((res.status as any).succeeded, true, 'nothing claimed in s3://dr-bucket');
});

// The Job's status is seen Complete before its pod's end is (two caches, one a little behind): the result is on its
// way, not lost. No ResultUnknown (and no Warning Event) for that moment: still running, looked at again soon.
t.test('a one-off Job seen Complete while its pod is still seen running: not said lost', async (t) => {
  const spec = { clusterName: 'example', s3: { path: 'bucket/ns/before-upgrade.db', awsSecret: 'aws' } };
  const step = (status: Record<string, unknown> | undefined, children: KubeObject[], pods: KubeObject[]) =>
    backupSync(
      backupRequest({
        spec,
        uid: 'uid-ns-nightly',
        ...(status ? { status } : {}),
        children,
        pods,
        clusters: [etcdCluster('example', 'ns')],
      }),
      'metaops:test',
      new Date(FIXED_NOW.getTime() + 60_000),
    );
  const first = step(undefined, [], []);
  const done = asObserved(first.children.find((c) => c.kind === 'Job')!);
  done['status'] = {
    succeeded: 1,
    completionTime: FIXED_NOW.toISOString(),
    conditions: [{ type: 'Complete', status: 'True' }],
  };
  const pod = backupPod('nightly', 'ns', {}, FIXED_NOW.toISOString());
  pod['status'] = {
    phase: 'Running',
    containerStatuses: [{ name: 'backup', state: { running: { startedAt: FIXED_NOW.toISOString() } } }],
  };
  const res = step(first.status as Record<string, unknown>, [done], [pod]);
  const ready = ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');
  t.notMatch(ready, { reason: 'ResultUnknown' }, 'its pod has not ended yet as far as the hook sees: not lost');
  t.ok(res.resyncAfterSeconds, 'looked at again soon, while the result is on its way');
});
