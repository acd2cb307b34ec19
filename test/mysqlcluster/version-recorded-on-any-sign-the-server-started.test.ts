// status.version records a version once a member's mysql container started on it (hooks/mysqlcluster/sync.ts
// ranItsImage), whatever sign the kubelet gives of it: a member that crash-loops (not ready, waiting to restart, its
// last run ended) wrote its data directory with that version as surely as a ready one did, and that version is the
// floor of every later spec. Each sign alone records it; a pod with none (Pending, its image not pulled, never
// restarted), or with them only on another container than mysql, records none.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { clusterMember } from '../fixtures/mysql-pods.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

/** What a container that never started reports: waiting on its creation, nothing pulled, never restarted. */
const notStarted = { ready: false, started: false, restartCount: 0, imageID: '', state: { waiting: {} } };

/** Member 0 of cluster db on mysql:8.4.3, its mysql container's status `mysql`, its sidecar's `sidecar`. */
function member(mysql: Record<string, unknown>, sidecar: Record<string, unknown> = notStarted): KubeObject {
  return clusterMember('db', 0, {
    image: 'mysql:8.4.3',
    status: {
      phase: 'Running',
      containerStatuses: [
        { name: 'replication', image: 'mysql:8.4.3', ...sidecar },
        { name: 'mysql', image: 'mysql:8.4.3', ...mysql },
      ],
    },
  });
}

/** status.version after one sync of a one-member cluster asked for 8.4.3, with no record yet, and `pod` observed. */
function recorded(pod: KubeObject): unknown {
  const r = request('mysqlcluster', { size: 1, version: '8.4.3' });
  r.parent.metadata = { ...r.parent.metadata, name: 'db', namespace: 'default', uid: 'uid-db', generation: 1 };
  const res = mysqlSync({ ...r, related: objectMap([pod]) }, FIXED_NOW);
  return (res.status as { version?: unknown }).version;
}

const signs: Record<string, Record<string, unknown>> = {
  ready: { ready: true },
  'started (the startup probe passed)': { started: true },
  'running now': { state: { running: { startedAt: '2026-01-01T00:00:00Z' } } },
  'ended (its last run over)': { state: { terminated: { exitCode: 1 } } },
  'waiting to restart after a run that ended': {
    state: { waiting: { reason: 'CrashLoopBackOff' } },
    lastState: { terminated: { exitCode: 1 } },
  },
  'restarted once': { restartCount: 1 },
  'its image pulled and the container made (an image ID)': {
    imageID: `docker.io/library/mysql@sha256:${'a'.repeat(64)}`,
  },
};

for (const [sign, status] of Object.entries(signs))
  t.test(`a mysql container ${sign}, and no other sign: its version is recorded`, async (t) => {
    t.equal(recorded(member({ ...notStarted, ...status })), '8.4.3');
  });

t.test('a mysql container with no sign of a start records no version', async (t) => {
  t.equal(recorded(member(notStarted)), undefined, 'waiting, never restarted, nothing pulled');
  t.equal(recorded(member({ ...notStarted, restartCount: '1' })), undefined, 'a restart count that is not a number');
  const bare = member({});
  (bare['status'] as { containerStatuses: unknown[] }).containerStatuses = [{ name: 'mysql' }];
  t.equal(recorded(bare), undefined, 'a status that says nothing');
  const none = member({});
  delete (none['status'] as { containerStatuses?: unknown }).containerStatuses;
  t.equal(recorded(none), undefined, 'no container status yet');
});

t.test("another container's start is no start of mysql: no version is recorded", async (t) => {
  t.equal(
    recorded(
      member(notStarted, {
        ready: true,
        started: true,
        restartCount: 2,
        state: { running: {} },
        imageID: `docker.io/library/mysql@sha256:${'b'.repeat(64)}`,
      }),
    ),
    undefined,
    'the replication sidecar runs; the mysql container has not started',
  );
});

t.test('a spec refused keeps no record that names no version (nothing a floor could be read from)', async (t) => {
  for (const old of ['latest', 'x'.repeat(201)]) {
    const r = request('mysqlcluster', { size: 1, version: { major: 8 } });
    r.parent.metadata = { ...r.parent.metadata, name: 'db', namespace: 'default', uid: 'uid-db', generation: 1 };
    r.parent.status = { version: old };
    const res = mysqlSync({ ...r, related: objectMap([member(notStarted)]) }, FIXED_NOW);
    const ready = ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');
    t.match(ready, { status: 'False', reason: 'InvalidSpec' }, 'the spec is refused');
    t.equal((res.status as { version?: unknown }).version, undefined, `${old.slice(0, 10)}: dropped`);
  }
});
