// A one-off backup whose Job completed while no result of it is read says ResultUnknown, not Running
// (hooks/etcdbackup/sync.ts resultLost). The Job says it completed in two ways, each enough alone: its Complete
// condition, or its count of succeeded pods (set first, before the condition, by the Job controller). A Job with
// neither is still running. The pods that ended say nothing of a result (no termination message) once they ended,
// whichever way the kubelet says so (the pod's phase, or the backup container terminated while the pod still reads
// Running): the result is lost then, not on its way. The condition says when the Job completed, when the Job says.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { backupRequest, etcdCluster } from '../fixtures/backup.js';
import { backupSync } from '../fixtures/hooks.js';
import { FIXED_NOW, asObserved } from '../fixtures/requests.js';

const spec = { clusterName: 'example', s3: { path: 'bucket/ns/before-upgrade.db', awsSecret: 'aws' } };
const later = new Date(FIXED_NOW.getTime() + 3_600_000);

const step = (children: KubeObject[], pods: KubeObject[]) =>
  backupSync(
    backupRequest({ spec, uid: 'uid-ns-nightly', children, pods, clusters: [etcdCluster('example', 'ns')] }),
    'metaops:test',
    later,
  );

/** The one-off Job the first sync makes, observed with `status`; the Ready condition and resync of the next sync. */
function after(jobStatus: Record<string, unknown>, pods: KubeObject[] = []) {
  const job = asObserved(step([], []).children.find((c) => c.kind === 'Job')!);
  job.metadata.creationTimestamp = FIXED_NOW.toISOString();
  job['status'] = jobStatus;
  const res = step([job], pods);
  const ready = ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');
  return { ready, resync: res.resyncAfterSeconds, job: job.metadata.name };
}

/** A pod of the backup Job that ended without a result: its phase `phase`, its backup container `state`. */
const endedPod = (phase: string, state: Record<string, unknown>): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'nightly-backup-x',
      namespace: 'ns',
      labels: { 'app.kubernetes.io/name': 'etcdbackup', 'app.kubernetes.io/instance': 'nightly' },
    },
    status: { phase, containerStatuses: [{ name: 'backup', state }] },
  }) as KubeObject;

t.test('a Job Complete by its condition alone: the result unknown, not running', async (t) => {
  const { ready, resync } = after({ conditions: [{ type: 'Complete', status: 'True' }] });
  t.match(ready, { status: 'False', reason: 'ResultUnknown' });
  t.equal(resync, undefined, 'nothing polled');
});

t.test('a Job with a succeeded pod counted, before its Complete condition: the result unknown', async (t) => {
  const { ready } = after({ succeeded: 1 });
  t.match(ready, { status: 'False', reason: 'ResultUnknown' });
});

t.test('a Job with neither sign is running, and is looked at again soon', async (t) => {
  for (const status of [
    { active: 1 },
    { active: 1, succeeded: 0 },
    { active: 1, conditions: [{ type: 'Complete', status: 'False' }] },
    { active: 1, conditions: [{ type: 'Suspended', status: 'True' }] },
  ]) {
    const { ready, resync } = after(status);
    t.notMatch(ready, { reason: 'ResultUnknown' }, JSON.stringify(status));
    t.ok(resync, `${JSON.stringify(status)}: resynced soon`);
  }
});

t.test('the condition says when the Job completed, when its status says', async (t) => {
  const at = '2026-01-01T05:06:07Z';
  const { ready, job } = after({ succeeded: 1, completionTime: at });
  t.match(ready.message, `the backup Job ${job} completed at ${at}, but its result is lost`);
  const { ready: untimed } = after({ succeeded: 1 });
  t.match(untimed.message, `the backup Job ${job} completed, but its result is lost`);
});

t.test('a Job Complete whose pod ended with no result, however the kubelet says it ended: lost', async (t) => {
  const complete = { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] };
  const exited = { terminated: { exitCode: 0, finishedAt: FIXED_NOW.toISOString() } };
  for (const [how, pod] of [
    ['the pod Succeeded', endedPod('Succeeded', exited)],
    ['the pod Failed', endedPod('Failed', {})],
    ['the backup container terminated, the pod still Running', endedPod('Running', exited)],
  ] as const) {
    const { ready, resync } = after(complete, [pod]);
    t.match(ready, { status: 'False', reason: 'ResultUnknown' }, how);
    t.equal(resync, undefined, `${how}: nothing polled`);
  }
});
