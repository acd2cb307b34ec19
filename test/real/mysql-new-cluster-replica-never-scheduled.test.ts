// A brand-new MySQLCluster whose member 1 is never scheduled (no room on the nodes: its pod Pending, its claim never
// bound, so it holds no data). Member 0 starts empty; its sidecar asks the members the hook lists in the Secret's
// `peers` key. The cluster has never held data anywhere, so member 0 must open for writes; it must not wait, closed, for
// a member that cannot hold any (docs/mysqlcluster.md: PrimaryUnverified "ends by itself when the members come back",
// which a member that never starts never does). The peers are the hook's own answer (hooks/mysqlcluster/sync.ts) for
// the cluster as Metacontroller observes it; the sidecar is the very script the pod runs, on MariaDB
// (test/fixtures/mysql-members.ts).
import t from 'tap';
import { PEERS_KEY } from '../../hooks/mysqlcluster/sync.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';
import {
  members,
  probe,
  setPeers,
  startMember,
  stopMember,
  terminationMessage,
  until,
} from '../fixtures/mysql-members.js';

t.teardown(async () => {
  for (const m of members) await stopMember(m);
});

t.test('a new cluster opens member 0 for writes while a replica that was never scheduled is Pending', async (t) => {
  const spec = { size: 2, version: '8.0' };
  // As the StatefulSet labels the claims it makes: its selector, and the cluster's uid (the example's) from its template.
  const labels = {
    'app.kubernetes.io/name': 'mysql',
    'app.kubernetes.io/instance': 'my-mysql',
    'mysqlcluster.metaops.io/uid': '3d2c7b8e-1f0a-4c55-8f2e-7a9b6c5d4e33',
  };
  const claim = (i: number, phase: string) =>
    ({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: `data-my-mysql-mysql-${i}`, namespace: 'default', labels },
      status: { phase },
    }) as KubeObject;
  const first = mysqlSync(request('mysqlcluster', spec), FIXED_NOW);
  const res = mysqlSync(
    request('mysqlcluster', spec, {
      children: objectMap(first.children.map((c) => asObserved(c))),
      related: objectMap([claim(0, 'Bound'), claim(1, 'Pending')]),
    }),
    FIXED_NOW,
  );
  const secret = res.children.find((c) => c.kind === 'Secret') as any;
  const peers = Buffer.from(secret.data[PEERS_KEY], 'base64').toString().trim();
  setPeers(peers ? peers.split(' ').map(Number) : []);
  // Member 1's pod is Pending: it has no address, so its name does not resolve; it is never started here.
  const primary = await startMember(0);
  const opened = await until('member 0 to open', async () => (await probe(primary)) || undefined, 90_000).then(
    () => true,
    () => false,
  );
  t.ok(
    opened,
    `member 0 of a cluster that never held data opens (peers the hook gave it: "${peers}"; its sidecar: ${terminationMessage(primary) ?? primary.sidecarLog.slice(-300)})`,
  );
});
