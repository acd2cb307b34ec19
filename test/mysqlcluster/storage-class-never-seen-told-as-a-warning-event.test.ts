// A new MySQLCluster whose spec.storage.storageClassName names no StorageClass (a typo: "fast-sdd" for "fast-ssd")
// makes no StatefulSet and waits: Ready=False, Progressing=False and ClaimsHeld=True, all StorageClassNotSeen
// ("not created yet, or not yet sent by Metacontroller"). It waits for good: no progress deadline ends it and no
// Event is told at any time, so `kubectl describe mysqlcluster` and `kubectl get events` show nothing while the
// database never starts (issue 31, 7: every kind says what goes wrong in kubectl describe; failures are Warnings).
// For a new cluster the class was asked for in the customize answer of its first generation, so a class still not
// sent minutes later is one that does not exist (or was made since: the Warning would say which to check).
import t from 'tap';
import { conditionEvents } from '../../lib/events.js';
import { MYSQLCLUSTER_EVENTS } from '../../hooks/mysqlcluster/index.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { request } from '../fixtures/requests.js';

t.test('a new MySQLCluster naming a StorageClass that does not exist says so in a Warning event', async (t) => {
  const start = new Date('2026-01-02T03:04:05Z');
  let status: Record<string, unknown> | undefined;
  const warnings: string[] = [];
  for (const minutes of [0, 1, 5, 11, 30, 120]) {
    const r = request('mysqlcluster', {
      size: 3,
      version: '8.0.36',
      storage: { size: '10Gi', storageClassName: 'fast-sdd' },
    });
    if (status) r.parent.status = status;
    const res = mysqlSync(r, new Date(start.getTime() + minutes * 60_000));
    t.notOk(
      res.children.some((c) => c.kind === 'StatefulSet'),
      `${minutes} min: no StatefulSet (nothing can be provisioned)`,
    );
    for (const e of conditionEvents(r.parent, res.status, MYSQLCLUSTER_EVENTS))
      if (e.type === 'Warning') warnings.push(`${minutes} min: ${e.reason}: ${e.note}`);
    status = res.status as Record<string, unknown>;
  }
  t.ok(warnings.length > 0, 'a Warning event says the cluster waits on a StorageClass that is not there');
});

t.test('a MySQLCluster scaled up while its StorageClass is not seen says so in a Warning event', async (t) => {
  // The cluster runs (Ready), and its claims' class is no longer sent: the new members wait (ClaimsHeld=True).
  const parent = request('mysqlcluster', {
    size: 1,
    version: '8.0.36',
    storage: { size: '10Gi', storageClassName: 'fast' },
  }).parent;
  const status = {
    conditions: [{ type: 'ClaimsHeld', status: 'False', reason: 'AsExpected', message: 'no claim is held back' }],
  };
  const next = {
    conditions: [
      {
        type: 'ClaimsHeld',
        status: 'True',
        reason: 'StorageClassNotSeen',
        message: 'members 1, 2 wait: "fast" not seen',
      },
    ],
  };
  t.match(
    conditionEvents({ ...parent, status }, next, MYSQLCLUSTER_EVENTS),
    [{ type: 'Warning', reason: 'StorageClassNotSeen', note: /ClaimsHeld: members 1, 2 wait/ }],
    'ClaimsHeld=True StorageClassNotSeen is a Warning',
  );
  t.same(conditionEvents({ ...parent, status: next }, next, MYSQLCLUSTER_EVENTS), [], 'told once');
});
