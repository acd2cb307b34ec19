// A mutating admission webhook may add containers to every member pod the StatefulSet makes (Istio's sidecar before
// the pod's own with holdApplicationUntilProxyStarts, after them otherwise). The hook reads a member's mysql and
// replication containers by name (sync.ts runningVersion, memberStates), never by place: the version is mysql's tag,
// never the sidecar's, and a replica replicates as its replication container says.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { memberStates, neverStarted, REPLICATION_CONTAINER, runningVersion } from '../../hooks/mysqlcluster/sync.js';

const PROXY = { name: 'istio-proxy', image: 'docker.io/istio/proxyv2:1.24.2' };

/** Member `ordinal` of cluster db on mysql 8.4.3, its sidecar `where`, its replication container ready or not. */
function member(ordinal: number, where: 'first' | 'last', replicating: boolean): KubeObject {
  const own = [
    { name: 'mysql', image: 'mysql:8.4.3' },
    { name: REPLICATION_CONTAINER, image: 'mysql:8.4.3' },
  ];
  const statuses = [
    { name: 'mysql', ready: true },
    { name: REPLICATION_CONTAINER, ready: replicating },
  ];
  const proxyStatus = { name: PROXY.name, ready: true };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `db-${ordinal}`, namespace: 'ns' },
    spec: { containers: where === 'first' ? [PROXY, ...own] : [...own, PROXY] },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses: where === 'first' ? [proxyStatus, ...statuses] : [...statuses, proxyStatus],
    },
  } as KubeObject;
}

for (const where of ['first', 'last'] as const)
  t.test(`members with an injected sidecar (${where}) are read by their own containers`, async (t) => {
    const pods = [member(0, where, true), member(1, where, true), member(2, where, false)];
    t.equal(runningVersion(pods), '8.4.3', "the version is mysql's tag, not the sidecar's");
    t.same(
      memberStates('db', pods).map((m) => [m.name, m.role, m.replicating]),
      [
        ['db-0', 'primary', undefined],
        ['db-1', 'replica', true],
        ['db-2', 'replica', false],
      ],
      'each replica replicates as its replication container says',
    );
  });

t.test("a sidecar waiting for its image says nothing of whether the member's mysql started", async (t) => {
  const pod = (statuses: unknown[]): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'db-0', namespace: 'ns' },
    spec: { containers: [PROXY, { name: 'mysql', image: 'mysql:8.4.3' }] },
    status: { phase: 'Pending', containerStatuses: statuses },
  });
  const proxyWaits = { name: PROXY.name, state: { waiting: { reason: 'ImagePullBackOff' } } };
  t.notOk(neverStarted(pod([proxyWaits, { name: 'mysql', imageID: 'sha', state: { running: {} } }])), 'mysql runs');
  t.ok(
    neverStarted(
      pod([
        { name: PROXY.name, state: { running: {} } },
        { name: 'mysql', state: { waiting: { reason: 'ErrImagePull' } } },
      ]),
    ),
    "mysql's own pull fails",
  );
});
