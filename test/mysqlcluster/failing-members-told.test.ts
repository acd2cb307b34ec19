// Issue 31, item 7 and "what to build": Events for MySQLCluster "(created, scaled, failures)", as the other kinds have,
// so that `kubectl describe mysqlcluster` says what fails. A member whose server crash-loops (mysqld killed for its
// memory, a corrupt table, a full volume) or whose image cannot be pulled is a failure the pods' status names
// (CrashLoopBackOff, ImagePullBackOff); Memcached says it (Degraded=True PodsFailing, naming the pods, and a Warning
// Event). MySQLCluster says nothing of it: with member 0 (the primary: every write) crash-looping, the status is
// Ready=False NotAvailable "2/3 ready" and Replicating=True (the replicas' sidecars stay Ready on what they received),
// and no Event at all; with every member failing at once, one Warning (ReplicaNotReplicating) naming the replicas,
// not why, and not member 0. `kubectl describe` shows no failing primary and no reason.
import t from 'tap';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';
import type { EventSpec } from '../../lib/events.js';
import type { CompositeSyncRequest, KubeObject } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import { observedChildren, statefulSetMember } from '../fixtures/mysql-pods.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const SPEC = { size: 3, version: '8.0.36' };

async function told(req: CompositeSyncRequest) {
  const events: EventSpec[] = [];
  const res = await runHook(mysqlcluster, 'sync', req, {
    now: FIXED_NOW,
    services: { randomSecret: () => 'pw', events: () => ({ record: async (_p, e) => void events.push(...e) }) },
  });
  return { res, events };
}

/** Member `i` of my-mysql as the kubelet reports it: running and Ready, or its mysql container `failing`. */
function member(i: number, stsUid: string, failing?: 'CrashLoopBackOff' | 'ImagePullBackOff'): KubeObject {
  // The sidecar: member 0's probe needs its server open; a replica's stays Ready on what it received while member 0
  // is down (IO thread Connecting, SQL thread done: scripts.ts REPLICATION_PROBE), not while its own server is down.
  const replicationReady = !failing && i > 0;
  if (!failing) return statefulSetMember(i, stsUid, { ready: true, replicationReady });
  const mysql = {
    name: 'mysql',
    ready: false,
    restartCount: failing === 'CrashLoopBackOff' ? 7 : 0,
    state: { waiting: { reason: failing, message: 'back-off restarting failed container' } },
    ...(failing === 'CrashLoopBackOff' ? { lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } } } : {}),
  };
  return statefulSetMember(i, stsUid, { ready: false, replicationReady, mysql });
}

/** The cluster settled (3/3), then its members as `failing` says. */
async function cluster(failing: Record<number, 'CrashLoopBackOff' | 'ImagePullBackOff'>) {
  const created = await told(request('mysqlcluster', SPEC));
  const observed = observedChildren(created.res.children, {
    replicas: 3,
    readyReplicas: 3,
    currentReplicas: 3,
    updatedReplicas: 3,
  });
  const sts = observed.find((c) => c.kind === 'StatefulSet')!;
  const stsUid = sts.metadata.uid!;
  const healthy = request('mysqlcluster', SPEC, {
    children: objectMap(observed),
    related: objectMap([0, 1, 2].map((i) => member(i, stsUid))),
  });
  healthy.parent.status = created.res.status as never;
  const settled = await told(healthy);
  const ready = (settled.res.status as any).conditions.find((c: any) => c.type === 'Ready');
  const counts = Object.keys(failing).length;
  const failingReq = request('mysqlcluster', SPEC, {
    children: objectMap(
      observed.map((c) =>
        c.kind === 'StatefulSet' ? { ...c, status: { ...(c['status'] as object), readyReplicas: 3 - counts } } : c,
      ),
    ),
    related: objectMap([0, 1, 2].map((i) => member(i, stsUid, failing[i]))),
  });
  failingReq.parent.status = settled.res.status as never;
  return { ready, after: await told(failingReq) };
}

const text = (events: EventSpec[]) => events.map((e) => `${e.type} ${e.reason}: ${e.note}`);

t.test(
  'a MySQLCluster whose primary crash-loops says so in a Warning Event and its status, naming the pod',
  async (t) => {
    const { ready, after } = await cluster({ 0: 'CrashLoopBackOff' });
    t.match(ready, { status: 'True' }, 'the cluster was Ready before');
    const warnings = after.events.filter((e) => e.type === 'Warning');
    t.ok(
      warnings.some((e) => e.note.includes('my-mysql-mysql-0') && e.note.includes('CrashLoopBackOff')),
      `a Warning Event names member 0 and CrashLoopBackOff; told: ${JSON.stringify(text(after.events))}`,
    );
    const conditions = (after.res.status as any).conditions as Array<Record<string, string>>;
    t.ok(
      conditions.some(
        (c) =>
          c['status'] !== (c['type'] === 'Degraded' ? 'False' : 'True') &&
          String(c['message']).includes('my-mysql-mysql-0') &&
          String(c['message']).includes('CrashLoopBackOff'),
      ),
      `a condition names the failing primary and why; conditions: ${JSON.stringify(conditions.map((c) => [c['type'], c['status'], c['reason'], c['message']]))}`,
    );
    // The replicas' sidecars stay Ready on what they received: Replicating never says True of a primary that is down.
    t.match(
      conditions.find((c) => c['type'] === 'Replicating'),
      { status: 'False', reason: 'PrimaryNotReady', message: /my-mysql-mysql-0/ },
      'Replicating is not True while the primary is not Ready',
    );
    t.match(
      conditions.find((c) => c['type'] === 'Degraded'),
      { status: 'True', reason: 'PodsFailing' },
    );
  },
);

t.test('a MySQLCluster whose members all fail at once says so in a Warning Event', async (t) => {
  const { after } = await cluster({ 0: 'CrashLoopBackOff', 1: 'CrashLoopBackOff', 2: 'CrashLoopBackOff' });
  const warnings = after.events.filter((e) => e.type === 'Warning');
  t.ok(
    warnings.some((e) => e.note.includes('CrashLoopBackOff')),
    `a Warning Event says the members crash-loop; told: ${JSON.stringify(text(after.events))}`,
  );
});
