// A restore past its point of no return, then the EtcdCluster's status lost (a restore of the object from a
// Kubernetes backup, a status written over by a tool): the old members were dropped on the record that the check
// passed (Replacing), and that record was only in status. The hook must decide from what Metacontroller sends: an
// EtcdRestore still unfinished, no member pod, no member list. It must not bootstrap an empty cluster under the
// dropped members' names beside a new check, and when that second check fails (S3 answering an error for a moment,
// the Secret cleaned up since) it must not report "the cluster is as it was" over the data it dropped.
import t from 'tap';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { running, restoreObject } from '../fixtures/etcd-loop.js';

const condition = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);
const hasFetch = (pod: any) => (pod.spec.initContainers ?? []).some((c: any) => c.name === 'fetch-snapshot');

t.test('status lost after a restore dropped the old members: no empty bootstrap, no "untouched"', async (t) => {
  const loop = await running({ size: 3 });
  const r = restoreObject('r', '2026-07-01T00:00:00Z');
  loop.related = [r];
  loop.check = 'running';
  await loop.step();
  loop.check = { succeeded: true };
  await loop.step();
  t.match(loop.s().restore, { phase: 'Replacing' });
  t.same(loop.pods(), [], 'the old members are dropped');
  // The old members are gone; nothing answers. The status is lost.
  loop.etcd.up.clear();
  loop.etcd.members = [];
  loop.status = undefined;
  loop.check = 'running';
  await loop.step();
  const started = loop.children.filter((c) => c.kind === 'Pod' && c.metadata.name !== 'e-restore-check');
  t.same(
    started.filter((p) => !hasFetch(p)).map((p) => p.metadata.name),
    [],
    'no member started empty (without the snapshot) over the dropped data',
  );
  // The second check fails: S3 answered an error this time.
  loop.check = { succeeded: false, reason: 's3://bucket/ns/snap.db: InternalError: We encountered an internal error' };
  const res = await loop.step();
  t.not(loop.s().restore?.untouched, true, 'the restore is not recorded as having left the cluster untouched');
  t.notMatch(
    condition(res, 'Restore')?.message ?? '',
    /the cluster is as it was/,
    'no condition says the cluster is as it was',
  );
});
