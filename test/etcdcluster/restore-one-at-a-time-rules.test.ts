// The rules that keep one restore at a time and never replay one (plan/restore-queue.ts, etcdcommon's record
// predicates, the EtcdRestore hook's outcomes), each at its boundary: which phases are past the point of no return,
// which record replaced the members, which EtcdRestore is the one a cluster already carried out, when an older
// EtcdRestore is ended and how.
import t from 'tap';
import { alreadyRestored, pastNoReturn, replacedMembers, type RestoreState } from '../../hooks/etcdcommon/index.js';
import { behindRunning, withWaiting } from '../../hooks/etcdcluster/plan/restore-queue.js';
import type { Decision, Observation } from '../../hooks/etcdcluster/plan.js';
import { restoreObject, restoreStatus } from '../fixtures/etcd-loop.js';

const PHASES = ['Checking', 'Replacing', 'Restoring', 'Restored', 'Failed'] as const;

t.test('past the point of no return: Replacing and Restoring only', async (t) => {
  for (const phase of PHASES) t.equal(pastNoReturn({ phase }), phase === 'Replacing' || phase === 'Restoring', phase);
  t.equal(pastNoReturn(undefined), false, 'no record');
});

t.test(
  'a record replaced the members: past the drop, restored, or failed after it; not checked nor refused',
  async (t) => {
    for (const phase of PHASES) t.equal(replacedMembers({ phase }), phase !== 'Checking', phase);
    t.equal(replacedMembers({ phase: 'Failed', refused: true }), false, 'refused by its check');
    t.equal(replacedMembers({ phase: 'Failed', untouched: true }), false, 'untouched (a record before `refused`)');
    t.equal(replacedMembers({ phase: 'Failed', noMembers: true }), true, 'failed after a drop, no member left');
    t.equal(replacedMembers(undefined), false, 'no record');
  },
);

t.test('the restore already carried out: Restored, the same name, path and endpoint', async (t) => {
  const record: Partial<RestoreState> = { name: 'r', phase: 'Restored', s3: { path: 'b/ns/k', awsSecret: 'aws' } };
  t.ok(alreadyRestored(record, 'r', { path: 'b/ns/k' }), 'the same name and snapshot');
  t.ok(alreadyRestored(record, 'r', { path: 'b/ns/k', endpoint: '' }), 'no endpoint is the empty one');
  t.notOk(alreadyRestored(record, 'r2', { path: 'b/ns/k' }), 'another name restores again on purpose');
  t.notOk(alreadyRestored(record, 'r', { path: 'b/ns/k2' }), 'another snapshot');
  t.notOk(alreadyRestored(record, 'r', { path: 'b/ns/k', endpoint: 'http://minio:9000' }), 'another endpoint');
  t.ok(
    alreadyRestored({ ...record, s3: { path: 'b/ns/k', endpoint: 'http://m' } }, 'r', {
      path: 'b/ns/k',
      endpoint: 'http://m',
    }),
    'the same endpoint',
  );
  t.notOk(alreadyRestored(record, 'r', undefined), 'no source');
  for (const phase of PHASES.filter((p) => p !== 'Restored'))
    t.notOk(alreadyRestored({ ...record, phase }, 'r', { path: 'b/ns/k' }), `${phase}: not carried out`);
  t.notOk(alreadyRestored(undefined, 'r', { path: 'b/ns/k' }), 'no record');
  t.notOk(alreadyRestored({ name: 'r', phase: 'Restored' }, 'r', { path: 'b/ns/k' }), 'a record without its source');
});

const SOURCE = { s3: { path: 'b/ns/k' }, image: 'metaops:test' };
const RECORD = (phase: RestoreState['phase']): RestoreState => ({ uid: 'uid-r', name: 'r', phase });
const obs = (extra: Partial<Observation>): Observation =>
  ({ pods: [], terminating: [], health: {}, ...extra }) as Observation;

t.test('a newer EtcdRestore is set aside only while another is past its point of no return', async (t) => {
  const newer = { uid: 'uid-r2', name: 'r2', source: SOURCE };
  const recorded = { uid: 'uid-r', name: 'r', source: SOURCE };
  for (const phase of PHASES) {
    const r = behindRunning(RECORD(phase), obs({ restore: newer, recordedRestore: recorded }));
    const past = phase === 'Replacing' || phase === 'Restoring';
    t.equal(r.waiting, past ? 'r2' : undefined, `${phase}: r2 ${past ? 'waits' : 'is taken'}`);
    t.same(r.obs.restore, past ? recorded : newer, `${phase}: the restore that acts`);
  }
  const own = behindRunning(RECORD('Restoring'), obs({ restore: recorded, recordedRestore: recorded }));
  t.same([own.waiting, own.obs.restore], [undefined, recorded], 'the running restore itself: nothing waits');
  const none = behindRunning(RECORD('Restoring'), obs({}));
  t.same([none.waiting, none.obs.restore], [undefined, undefined], 'no EtcdRestore: nothing waits');
  const noRecord = behindRunning(undefined, obs({ restore: newer }));
  t.same([noRecord.waiting, noRecord.obs.restore], [undefined, newer], 'no record: the newest is taken');
  const other = { uid: 'uid-x', name: 'x', source: SOURCE };
  const without = behindRunning(RECORD('Replacing'), obs({ restore: newer, recordedRestore: other }));
  t.same(
    [without.waiting, 'restore' in without.obs],
    ['r2', false],
    'no checked source recorded for the running restore: nothing acts in its name (its phases decide)',
  );
});

t.test('the cluster says which EtcdRestore waits, and for which', async (t) => {
  const d = {
    conditions: [
      { type: 'Available', status: false, reason: 'Restoring', message: 'm' },
      { type: 'Restore', status: true, reason: 'CheckingSnapshot', message: 'old' },
    ],
    restore: RECORD('Restoring'),
  } as unknown as Decision;
  t.equal(withWaiting(d, undefined, RECORD('Restoring')), d, 'nothing waits: the decision as it is');
  const w = withWaiting(d, 'r2', RECORD('Restoring'));
  t.same(w.conditions, [
    { type: 'Available', status: false, reason: 'Restoring', message: 'm' },
    {
      type: 'Restore',
      status: true,
      reason: 'RestoreWaiting',
      message:
        'EtcdRestore r2 waits: EtcdRestore r dropped the old members and restores the cluster from its snapshot; r2 is checked once that restore has ended',
    },
  ]);
  const noRecord = withWaiting({ conditions: [] } as unknown as Decision, 'r2', RECORD('Replacing'));
  t.match(
    noRecord.conditions[0]?.message,
    /EtcdRestore r dropped/,
    "the running restore named from the status's record",
  );
  const nothing = withWaiting({ conditions: [] } as unknown as Decision, 'r2', undefined);
  t.match(nothing.conditions[0]?.message, /EtcdRestore {2}dropped/, 'no name known: none invented');
});

/** The EtcdRestore hook's Ready condition and outcome for `r` against a cluster whose record is `record`. */
function told(r: ReturnType<typeof restoreObject>, record: Partial<RestoreState>) {
  const s = restoreStatus(r, { restore: record }, '2026-06-01T00:00:00Z') as any;
  const ready = s.conditions.find((c: any) => c.type === 'Ready');
  return { succeeded: s.succeeded, reason: ready.reason, message: String(s.reason ?? ready.message) };
}

t.test('an older EtcdRestore is ended only once the one taken replaced the members, or was refused', async (t) => {
  const older = restoreObject('r', '2026-07-01T00:00:00Z');
  const taken = (phase: RestoreState['phase'], extra: Partial<RestoreState> = {}) => ({
    uid: 'uid-r2',
    name: 'r2',
    phase,
    created: '2026-07-01T00:00:01Z',
    ...extra,
  });
  for (const phase of ['Replacing', 'Restoring', 'Restored', 'Failed'] as const)
    t.match(
      told(older, taken(phase)),
      { succeeded: false, reason: 'RestoreSuperseded', message: /restored by the newer EtcdRestore r2/ },
      `${phase}: superseded`,
    );
  t.match(told(older, taken('Checking')), { succeeded: undefined, reason: 'Pending' }, 'Checking: it waits');
  for (const extra of [{ refused: true }, { untouched: true }])
    t.match(
      told(older, taken('Failed', extra)),
      { succeeded: false, reason: 'NotTaken', message: /took the EtcdRestore r2 .* nothing was restored/ },
      `refused (${Object.keys(extra)[0]}): not taken, not superseded`,
    );
  // One second older than the one taken: the boundary of "made after it".
  const sameSecond = (name: string, uid = `uid-${name}`) => restoreObject(name, '2026-07-01T00:00:01Z', undefined, uid);
  t.match(
    told(sameSecond('r-b'), taken('Failed', { refused: true })),
    { succeeded: false, reason: 'NotTaken' },
    'the same second, another name (made with it): not taken',
  );
  t.match(
    told(sameSecond('r-b'), taken('Checking')),
    { succeeded: undefined, reason: 'Pending' },
    'the same second, another name, the one taken checked: it waits',
  );
  t.match(
    told(sameSecond('r2', 'uid-again'), taken('Failed', { refused: true })),
    { succeeded: undefined, reason: 'Pending' },
    'the same second, its name, after a refusal: recreated, taken next',
  );
  t.match(
    told(sameSecond('r2', 'uid-again'), taken('Restoring')),
    { succeeded: false, reason: 'RestoreSuperseded' },
    'the same second, its name, after a drop: not taken',
  );
  t.match(
    told(restoreObject('r3', '2026-07-01T00:00:02Z'), taken('Failed', { refused: true })),
    { succeeded: undefined, reason: 'Pending' },
    'one second newer than the one refused: taken next',
  );
});

t.test('a newer EtcdRestore waits while another is past its point of no return, and says for which', async (t) => {
  const newer = restoreObject('r2', '2026-07-02T00:00:00Z');
  const running = (phase: RestoreState['phase']) => ({
    uid: 'uid-r',
    name: 'r',
    phase,
    created: '2026-07-01T00:00:00Z',
  });
  for (const phase of ['Replacing', 'Restoring'] as const)
    t.match(
      told(newer, running(phase)),
      { succeeded: undefined, reason: 'Waiting', message: /being restored by EtcdRestore r .*checked once/ },
      `${phase}: it waits`,
    );
  for (const phase of ['Checking', 'Restored', 'Failed'] as const)
    t.match(told(newer, running(phase)), { succeeded: undefined, reason: 'Pending' }, `${phase}: pending`);
});

t.test('an EtcdRestore made again under the name of the restore carried out is refused, not replayed', async (t) => {
  const again = restoreObject('r', '2026-07-02T00:00:00Z', undefined, 'uid-again');
  const record = {
    uid: 'uid-r',
    name: 'r',
    phase: 'Restored' as const,
    created: '2026-07-01T00:00:00Z',
    s3: { path: 'bucket/ns/snap.db', awsSecret: 'aws' },
  };
  t.match(
    told(again, record),
    { succeeded: false, reason: 'AlreadyRestored', message: /already restored .* under a new name/ },
    'refused as already applied',
  );
  t.match(told(again, { ...record, phase: 'Restoring' }), { reason: 'Waiting' }, 'while it runs: waits');
  t.match(told(again, { ...record, s3: { path: 'bucket/ns/other.db' } }), { reason: 'Pending' }, 'another snapshot');
  const same = restoreObject('r', '2026-07-01T00:00:00Z');
  t.match(told(same, record), { succeeded: true, reason: 'Restored' }, 'the restore itself: restored');
});
