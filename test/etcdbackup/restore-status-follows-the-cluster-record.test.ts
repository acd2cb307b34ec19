// What an EtcdRestore says of itself, read from its own status and from its EtcdCluster's record of a restore
// (hooks/etcdbackup/restore.ts): the cluster it asks for, when it is too old to act, where the cluster is with it or
// with another restore, what it keeps for good (membersDropped, checked), and when its answer is final (no resync,
// no reason). Each status is one sync of the hook against a cluster whose status a test sets.
import t from 'tap';
import { customize } from '../../hooks/etcdbackup/restore.js';
import { pinPath } from '../../hooks/etcdcommon/pin.js';
import type { CompositeSyncResponse, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { restoreObject } from '../fixtures/etcd-loop.js';
import { restoreSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';

const CREATED = '2026-07-01T00:00:00Z';
const SHA = 'a'.repeat(64);

/** The hook's answer for `r` against EtcdCluster e in ns (status `status`, made at `clusterCreated`), or none. */
function answer(r: KubeObject, status: unknown, clusterCreated?: string, present = true): CompositeSyncResponse {
  const cluster = {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdCluster',
    metadata: { name: 'e', namespace: 'ns', ...(clusterCreated ? { creationTimestamp: clusterCreated } : {}) },
    status,
  };
  return restoreSync(
    {
      controller: {},
      parent: r as ParentObject,
      related: objectMap(present ? [cluster] : [], 'v1', ['EtcdCluster.etcd.database.coreos.com/v1beta2']),
    },
    FIXED_NOW,
  );
}
const statusOf = (res: CompositeSyncResponse) => res.status as Record<string, any>;
const ready = (res: CompositeSyncResponse) => statusOf(res)['conditions'].find((c: any) => c.type === 'Ready');
/** The cluster's record of the restore `name` (UID uid-<name>), made at `created`. */
const record = (name: string, fields: Record<string, unknown>, created = CREATED) => ({
  restore: { uid: `uid-${name}`, name, created, ...fields },
});

t.test('the cluster an EtcdRestore asks for: the one its spec names, in its own namespace', async (t) => {
  const r = restoreObject('r', CREATED);
  t.same(customize({ controller: {}, parent: r as ParentObject }).relatedResources, [
    { apiVersion: 'etcd.database.coreos.com/v1beta2', resource: 'etcdclusters', namespace: 'ns', names: ['e'] },
  ]);
  const noNamespace = restoreObject('r', CREATED);
  delete (noNamespace.metadata as any).namespace;
  t.match(customize({ controller: {}, parent: noNamespace as ParentObject }).relatedResources, [
    { namespace: '', names: ['e'] },
  ]);
  t.same(customize({ controller: {} }).relatedResources, [], 'a request without a parent asks for nothing');
  const noSpec = restoreObject('r', CREATED);
  delete noSpec['spec'];
  t.same(customize({ controller: {}, parent: noSpec as ParentObject }).relatedResources, [], 'nor one without spec');
});

t.test(
  'an EtcdRestore made more than 5 s before its cluster is too old; within 5 s, or without a time, it is not',
  async (t) => {
    const at = (s: number) => new Date(Date.parse(CREATED) + s * 1000).toISOString().replace('.000', '');
    const older = answer(restoreObject('r', CREATED), {}, at(6));
    t.match(statusOf(older), { succeeded: false });
    t.match(ready(older), { status: 'False', reason: 'OlderThanCluster' });
    for (const s of [5, 1, 0, -60]) {
      const res = answer(restoreObject('r', CREATED), {}, at(s));
      t.equal(statusOf(res)['succeeded'], undefined, `made ${s} s before its cluster: not final`);
      t.match(ready(res), { reason: 'Pending' }, `made ${s} s before its cluster: waits for it`);
    }
    t.match(ready(answer(restoreObject('r', CREATED), {})), { reason: 'Pending' }, 'a cluster without a time');
    const timeless = restoreObject('r', CREATED);
    delete (timeless.metadata as any).creationTimestamp;
    t.match(ready(answer(timeless, {}, at(60))), { reason: 'Pending' }, 'a restore without a time');
  },
);

t.test('a restore recorded as succeeded says so for good: Ready, no reason, no resync', async (t) => {
  const res = answer(restoreObject('r', CREATED, { succeeded: true }), {});
  t.same(res.children, []);
  t.equal(res.resyncAfterSeconds, undefined);
  t.equal(statusOf(res)['succeeded'], true);
  t.equal(statusOf(res)['reason'], undefined);
  t.match(ready(res), {
    status: 'True',
    reason: 'Restored',
    message: 'EtcdCluster e was restored from the snapshot bucket/ns/snap.db',
  });
});

t.test('a restore recorded as failed without a reason says that the restore failed', async (t) => {
  const res = answer(restoreObject('r', CREATED, { succeeded: false }), {});
  t.equal(res.resyncAfterSeconds, undefined);
  t.match(statusOf(res), { succeeded: false, reason: 'the restore failed' });
  t.match(ready(res), { status: 'False', reason: 'RestoreFailed', message: 'the restore failed' });
});

t.test('a status.succeeded that is not a boolean records nothing: the restore goes on', async (t) => {
  for (const succeeded of ['true', 1, {}]) {
    const res = answer(restoreObject('r', CREATED, { succeeded }), record('r', { phase: 'Checking' }));
    t.equal(statusOf(res)['succeeded'], undefined, JSON.stringify(succeeded));
    t.match(ready(res), { status: 'False', reason: 'Checking' });
    t.equal(res.resyncAfterSeconds, 10);
  }
});

t.test('without its cluster the restore says so and looks again', async (t) => {
  const res = answer(restoreObject('r', CREATED), {}, undefined, false);
  t.match(ready(res), { reason: 'ClusterNotFound', message: 'EtcdCluster e does not exist in this namespace' });
  t.match(statusOf(res), { reason: 'EtcdCluster e does not exist in this namespace' });
  t.equal(res.resyncAfterSeconds, 10);
});

t.test(
  "the cluster's record of this restore: its phase while it runs, membersDropped once it is past its check",
  async (t) => {
    const checking = answer(restoreObject('r', CREATED), record('r', { phase: 'Checking' }));
    t.match(ready(checking), { status: 'False', reason: 'Checking', message: 'EtcdCluster e: Checking' });
    t.equal(statusOf(checking)['membersDropped'], undefined, 'nothing dropped while it is checked');
    t.equal(statusOf(checking)['succeeded'], undefined);
    t.equal(checking.resyncAfterSeconds, 10);
    for (const phase of ['Replacing', 'Restoring']) {
      const res = answer(restoreObject('r', CREATED), record('r', { phase }));
      t.match(ready(res), { reason: phase, message: `EtcdCluster e: ${phase}` });
      t.equal(statusOf(res)['membersDropped'], true, phase);
      t.equal(statusOf(res)['succeeded'], undefined, phase);
    }
    const noPhase = answer(restoreObject('r', CREATED), record('r', {}));
    t.match(ready(noPhase), { reason: 'Pending' }, 'a record without a phase: pending');
  },
);

t.test('restored: from the snapshot the cluster recorded, else the one the spec names', async (t) => {
  const recorded = answer(restoreObject('r', CREATED), record('r', { phase: 'Restored', s3: { path: 'b/ns/x.db' } }));
  t.match(ready(recorded), {
    status: 'True',
    reason: 'Restored',
    message: 'EtcdCluster e runs from the snapshot b/ns/x.db',
  });
  t.match(statusOf(recorded), { succeeded: true, membersDropped: true });
  t.equal(statusOf(recorded)['reason'], undefined);
  t.equal(recorded.resyncAfterSeconds, undefined);
  const bare = answer(restoreObject('r', CREATED), record('r', { phase: 'Restored' }));
  t.match(ready(bare), { message: 'EtcdCluster e runs from the snapshot bucket/ns/snap.db' });
});

t.test('failed after its members were dropped: the reason the cluster gives, and the members dropped', async (t) => {
  const res = answer(restoreObject('r', CREATED), record('r', { phase: 'Failed', reason: 'init step: no space' }));
  const said = 'the snapshot could not be restored: init step: no space';
  t.match(ready(res), { status: 'False', reason: 'RestoreFailed', message: said });
  t.match(statusOf(res), { succeeded: false, reason: said, membersDropped: true });
  t.equal(res.resyncAfterSeconds, undefined);
});

t.test("another restore's record: this one waits, and drops nothing of its own", async (t) => {
  // q was made before r: the cluster finishes q (past its point of no return) before it checks r.
  const earlier = '2026-06-30T00:00:00Z';
  for (const phase of ['Replacing', 'Restoring']) {
    const res = answer(restoreObject('r', CREATED), record('q', { phase }, earlier));
    t.match(ready(res), {
      reason: 'Waiting',
      message:
        'EtcdCluster e is being restored by EtcdRestore q (its old members dropped): this one is checked once that restore has ended',
    });
    t.equal(statusOf(res)['membersDropped'], undefined, `q ${phase}: r dropped nothing`);
    t.equal(statusOf(res)['succeeded'], undefined);
  }
  // q, made before r, restored the cluster: r is not superseded by it, the cluster takes r next.
  for (const phase of ['Restored', 'Failed']) {
    const res = answer(restoreObject('r', CREATED), record('q', { phase }, earlier));
    t.match(ready(res), { reason: 'Pending', message: 'waiting for EtcdCluster e to start the restore' }, phase);
    t.equal(statusOf(res)['succeeded'], undefined, `q ${phase} before r: r not ended`);
    t.equal(statusOf(res)['membersDropped'], undefined);
  }
});

t.test('once its own status says its members were dropped, that stays, whatever the cluster records', async (t) => {
  // The cluster's record of r lost; a newer restore q taken and refused by its check meanwhile: r is not ended by
  // it (r's own status says r dropped the members; the cluster carries r on from its restored members).
  const newer = '2026-07-02T00:00:00Z';
  const refusedQ = record('q', { phase: 'Failed', refused: true, untouched: true }, newer);
  const dropped = answer(restoreObject('r', CREATED, { membersDropped: true }), refusedQ);
  t.equal(statusOf(dropped)['membersDropped'], true);
  t.equal(statusOf(dropped)['succeeded'], undefined, 'not ended by a newer restore that took nothing');
  t.not(ready(dropped).reason, 'NotTaken');
  // Without that, r is ended: q was taken instead of it.
  const fresh = answer(restoreObject('r', CREATED), refusedQ);
  t.match(statusOf(fresh), { succeeded: false });
  t.match(ready(fresh), { reason: 'NotTaken' });
  t.equal(statusOf(fresh)['membersDropped'], undefined);
  // The Ready condition r's status wrote while past its point of no return says the same.
  for (const reason of ['Replacing', 'Restoring']) {
    const res = answer(restoreObject('r', CREATED, { conditions: [{ type: 'Ready', reason }] }), {});
    t.equal(statusOf(res)['membersDropped'], true, `Ready ${reason}`);
  }
  const notSo = [
    { conditions: [{ type: 'Progressing', reason: 'Restoring' }] },
    { conditions: [null, { type: 'Ready', reason: 'Checking' }] },
    { conditions: { type: 'Ready', reason: 'Restoring' } },
    { membersDropped: 'true' },
  ];
  for (const status of notSo) {
    const res = answer(restoreObject('r', CREATED, status), {});
    t.equal(statusOf(res)['membersDropped'], undefined, JSON.stringify(status));
  }
});

t.test('what the check verified is kept in the restore once its members were dropped', async (t) => {
  const path = 'bucket/ns/snap.db';
  const checked = { s3: { path }, snapshot: { sha256: SHA, pinnedPath: pinPath(path, 'uid-r') } };
  const fromCluster = answer(restoreObject('r', CREATED), record('r', { phase: 'Replacing', ...checked }));
  t.same(statusOf(fromCluster)['checked'], checked, "from the cluster's record");
  const checking = answer(restoreObject('r', CREATED), record('r', { phase: 'Checking', ...checked }));
  t.equal(statusOf(checking)['checked'], undefined, 'not while it is checked');
  // The cluster's record lost: the restore's own record stays, its pin read against its UID.
  const kept = answer(restoreObject('r', CREATED, { membersDropped: true, checked }), {});
  t.same(statusOf(kept)['checked'], checked, 'its own record kept');
  const first = answer(
    restoreObject('r', CREATED, { checked }),
    record('r', { phase: 'Replacing', s3: { path: 'bucket/ns/other.db' } }),
  );
  t.same(statusOf(first)['checked'], checked, 'the record written first is kept');
});
