// The starts of a bootstrap whose member pods their nodes ended (hooks/etcdcluster/bootstraps.ts `ended`), its
// functions called directly: the record's `ended` read by type and bounded (a count of 1 to MAX_ENDED_BOOTSTRAPS, a
// time as text), counted on from this spec's record and kept by a failed start, the bootstrap stopped at
// MAX_ENDED_BOOTSTRAPS of them, the message that says so, and the next start waited for after the last one (a time
// recorded ahead of now read as now).
import t from 'tap';
import { endedBackoff } from '../../hooks/etcdcluster/additions.js';
import {
  type BootstrapFailed,
  bootstrapMemory,
  bootstrapSpec,
  bootstrapStopped,
  bootstrapStoppedMessage,
  MAX_ENDED_BOOTSTRAPS,
  nextStartAt,
  withEndedStart,
  withFailedStart,
} from '../../hooks/etcdcluster/bootstraps.js';
import type { EtcdClusterSpec } from '../../hooks/etcdcluster/schema.js';
import type { ParentObject } from '../../lib/index.js';

const UID = 'uid-e';
const SPEC = { size: 3, version: '3.5.0', repository: 'quay.io/coreos/etcd' } as unknown as EtcdClusterSpec;
const AT = '2026-01-01T00:10:00Z';

function parent(status?: Record<string, unknown>): ParentObject {
  return {
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdCluster',
    metadata: { name: 'e', namespace: 'ns', uid: UID },
    spec: {},
    ...(status ? { status } : {}),
  };
}
const record = (r: Partial<BootstrapFailed> = {}): BootstrapFailed => ({
  uid: UID,
  spec: bootstrapSpec(parent(), SPEC),
  starts: 0,
  reason: 'r',
  since: '2026-01-01T00:00:00Z',
  ended: { count: 2, at: AT },
  ...r,
});
const read = (r: unknown) => bootstrapMemory(parent({ bootstrapFailed: r }), SPEC, []).record;
const memoryOf = (r?: BootstrapFailed) => bootstrapMemory(parent(r ? { bootstrapFailed: r } : undefined), SPEC, []);

t.test('ended starts are read by type: a count of 1 and more (bounded), a time as text', async (t) => {
  t.same(read(record()), record(), 'two ended starts, no failed one');
  t.same(read(record({ ended: { count: 1, at: AT } })), record({ ended: { count: 1, at: AT } }), 'one');
  t.same(read(record({ ended: { count: 50, at: AT } }))?.ended, { count: MAX_ENDED_BOOTSTRAPS, at: AT }, 'bounded');
  t.equal(
    read(record({ ended: { count: 1, at: '9'.repeat(100) } }))?.ended?.at,
    `${'9'.repeat(37)}...`,
    'time bounded',
  );
  for (const ended of [
    { count: 0, at: AT },
    { count: '2', at: AT },
    { count: 1.5, at: AT },
    { count: 2, at: 7 },
    { count: 2 },
    null,
    'x',
  ])
    t.equal(
      read({ ...record(), ended }),
      undefined,
      `no ended start, no failed one: no record (${JSON.stringify(ended)})`,
    );
  const failedOnce = read({ ...record({ starts: 1 }), ended: null });
  t.strictSame(
    failedOnce,
    { uid: UID, spec: record().spec, starts: 1, reason: 'r', since: '2026-01-01T00:00:00Z' },
    'a failed start, its ended starts unread',
  );
});

t.test('the bootstrap stops at MAX_ENDED_BOOTSTRAPS ended starts, and says so', async (t) => {
  t.equal(bootstrapStopped(record({ ended: { count: MAX_ENDED_BOOTSTRAPS - 1, at: AT } })), false);
  t.equal(bootstrapStopped(record({ ended: { count: MAX_ENDED_BOOTSTRAPS, at: AT } })), true);
  const message = bootstrapStoppedMessage(
    record({ ended: { count: MAX_ENDED_BOOTSTRAPS, at: AT }, reason: 'evicted' }),
  );
  t.match(
    message,
    `the nodes ended the member pods of ${MAX_ENDED_BOOTSTRAPS} starts of the bootstrap in a row since 2026-01-01T00:00:00Z (the last: evicted); no new start is made`,
  );
});

t.test(
  'an ended start counts on from the record of this spec, keeping its first time; a failed one keeps them',
  async (t) => {
    const now = '2026-01-01T01:00:00Z';
    t.same(withEndedStart(memoryOf(), 'gone', now), {
      uid: UID,
      spec: record().spec,
      starts: 0,
      reason: 'gone',
      since: now,
      ended: { count: 1, at: now },
    });
    t.same(
      withEndedStart(memoryOf(record({ starts: 1 })), 'gone', now),
      record({ starts: 1, reason: 'gone', ended: { count: 3, at: now } }),
    );
    t.same(
      withEndedStart(memoryOf(record({ ended: { count: MAX_ENDED_BOOTSTRAPS, at: AT } })), 'gone', now).ended,
      { count: MAX_ENDED_BOOTSTRAPS, at: now },
      'bounded',
    );
    t.same(withFailedStart(memoryOf(record()), 'exit 1', now).ended, { count: 2, at: AT }, 'a failed start keeps them');
  },
);

t.test('the next start waits the backoff of the count after the last one, from now at the latest', async (t) => {
  const at = Date.parse(AT);
  const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
  const r = record({ ended: { count: 2, at: AT } });
  const wait = endedBackoff(2) * 1000;
  t.equal(wait, 20_000);
  t.equal(nextStartAt(r, new Date(at + 5000)), iso(at + wait), 'ahead: when it may start');
  t.equal(nextStartAt(r, new Date(at - 60_000)), iso(at - 60_000 + wait), 'recorded ahead of now: from now');
  t.equal(nextStartAt(r, new Date(at + wait)), undefined, 'at the end of the wait: now');
  t.equal(nextStartAt(r, new Date(at + wait + 1)), undefined, 'past it');
  t.equal(nextStartAt(r, new Date(at + wait - 1000)), iso(at + wait), 'a second before it');
  t.equal(nextStartAt(record({ ended: undefined }), new Date(at)), undefined, 'no ended start');
  t.equal(nextStartAt(undefined, new Date(at)), undefined, 'no record');
  t.equal(nextStartAt(r, undefined), undefined, 'no clock');
  t.equal(nextStartAt(record({ ended: { count: 2, at: 'soon' } }), new Date(at)), undefined, 'a time unread');
});
