// A new MySQLCluster of 3 whose member 2 cannot be scheduled (no room on the nodes, a zone without capacity): its pod
// stays Pending and its claim `data-<sts>-2` is never bound (phase Pending: no volume was ever provisioned for it, so
// it holds no data). Member 0 starts with an empty data directory and, before it opens for writes, asks every member
// the hook lists in the Secret's `peers` key (hooks/mysqlcluster/sync.ts peerOrdinals; scripts.ts check_primary). An
// empty member 0 never opens while a listed member cannot be asked, so listing member 2 keeps a brand-new cluster
// closed for writes (PrimaryUnverified, CrashLoopBackOff) for as long as member 2 is Pending, although member 2 cannot
// hold a single transaction; and the status's advice ("If a replica's data is gone for good, delete that replica's
// volume") cannot end it, since every ordinal below spec.size is listed whatever its volume.
import t from 'tap';
import { namesOf, neverBoundVolumes, PEERS_KEY, peerOrdinals } from '../../hooks/mysqlcluster/sync.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, readyPod, request } from '../fixtures/requests.js';

const labels = { 'app.kubernetes.io/name': 'mysql', 'app.kubernetes.io/instance': 'my-mysql' };

function claim(ordinal: number, phase: 'Bound' | 'Pending'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    // Marked with the cluster's uid (the example's), as its StatefulSet's claim template marks them.
    metadata: {
      name: `data-my-mysql-mysql-${ordinal}`,
      namespace: 'default',
      labels: { ...labels, 'mysqlcluster.metaops.io/uid': '3d2c7b8e-1f0a-4c55-8f2e-7a9b6c5d4e33' },
    },
    status: { phase },
  } as KubeObject;
}

function pod(ordinal: number, status: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `my-mysql-mysql-${ordinal}`,
      namespace: 'default',
      labels: { ...labels, 'statefulset.kubernetes.io/pod-name': `my-mysql-mysql-${ordinal}` },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'StatefulSet',
          name: 'my-mysql-mysql',
          uid: 'uid-StatefulSet-my-mysql-mysql',
          controller: true,
        },
      ],
    },
    status,
  } as KubeObject;
}

t.test(
  'a new cluster whose replica was never scheduled (its volume never bound) does not keep member 0 closed for it',
  async (t) => {
    const spec = { size: 3, version: '8.0' };
    const first = mysqlSync(request('mysqlcluster', spec), FIXED_NOW);
    const unverified = {
      phase: 'Running',
      containerStatuses: [
        { name: 'mysql', ready: true, state: { running: {} } },
        {
          name: 'replication',
          ready: false,
          state: { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: {
            terminated: {
              exitCode: 3,
              message:
                'primary-unverified: member 0 has no transactions and cannot ask every member that may hold data: my-mysql-mysql-2.my-mysql-mysql-headless does not resolve (its pod has no address);',
            },
          },
        },
      ],
    };
    const res = mysqlSync(
      request('mysqlcluster', spec, {
        children: objectMap(first.children.map((c) => asObserved(c))),
        related: objectMap([
          claim(0, 'Bound'),
          claim(1, 'Bound'),
          claim(2, 'Pending'),
          pod(0, unverified),
          pod(1, readyPod),
          pod(2, {
            phase: 'Pending',
            conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }],
          }),
        ]),
      }),
      FIXED_NOW,
    );
    const secret = res.children.find((c) => c.kind === 'Secret') as any;
    const peers = Buffer.from(secret.data[PEERS_KEY], 'base64').toString().trim().split(' ');
    t.notOk(
      peers.includes('2'),
      `member 2, whose volume was never bound, is not a member member 0 must ask (peers: ${peers.join(' ')})`,
    );
  },
);

t.test('only a claim never bound to any volume drops its member from the peers', async (t) => {
  const n = namesOf('my-mysql');
  const req = (claims: KubeObject[]) =>
    request('mysqlcluster', { size: 3, version: '8.0' }, { related: objectMap(claims) });
  const preBound = { ...claim(2, 'Pending'), spec: { volumeName: 'pv-restored' } } as KubeObject;
  const lost = claim(2, 'Lost' as 'Pending');
  t.same(neverBoundVolumes(req([claim(1, 'Bound'), claim(2, 'Pending')]), n), [n.volume(2)]);
  t.same(neverBoundVolumes(req([preBound, lost, claim(1, 'Bound')]), n), [], 'pre-bound to a volume, Lost, Bound');
  t.same(peerOrdinals(3, [], n, [n.volume(2)]), [1], 'member 2 never bound: not asked');
  t.same(peerOrdinals(2, [n.volume(4)], n, [n.volume(4)]), [1], 'a scaled-away claim never bound: not asked');
  t.same(peerOrdinals(3, [n.volume(2)], n), [1, 2], 'bound (or not observed): asked');
});
