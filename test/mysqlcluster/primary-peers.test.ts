// What member 0's sidecar is told before it opens for writes: which members may hold data (hooks/mysqlcluster/sync.ts
// peerOrdinals, the Secret's `peers` key, mounted at PEERS_FILE). The members the spec asks for and every member whose
// data volume exists; a member that is listed and cannot be asked keeps an empty member 0 read-only (scripts.ts,
// test/real/mysql-primary-peers-real.test.ts on MariaDB).
import t from 'tap';
import { namesOf, PEERS_KEY, peerOrdinals } from '../../hooks/mysqlcluster/sync.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const byKind = (children: KubeObject[]) =>
  Object.fromEntries(children.map((c) => [`${c.kind}/${c.metadata.name}`, c])) as Record<string, any>;

function volume(ordinal: number, instance = 'my-mysql'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: `data-my-mysql-mysql-${ordinal}`,
      namespace: 'default',
      labels: { 'app.kubernetes.io/name': 'mysql', 'app.kubernetes.io/instance': instance },
    },
  } as KubeObject;
}

const peersOf = (secret: any) => Buffer.from(secret.data[PEERS_KEY], 'base64').toString('utf8');

t.test('the members that may hold data: those the spec asks for and those whose volume exists', async (t) => {
  const n = namesOf('my-mysql');
  t.same(peerOrdinals(1, [], n), [], 'one member: none to ask');
  t.same(peerOrdinals(3, [], n), [1, 2]);
  t.same(peerOrdinals(3, [n.volume(0), n.volume(1), n.volume(2)], n), [1, 2], 'member 0 is not its own peer');
  t.same(peerOrdinals(2, [n.volume(5), n.volume(3)], n), [1, 3, 5], 'members scaled away keep their data');
  t.same(peerOrdinals(2, ['data-other-mysql-4'], n), [1], 'another cluster’s volume is not a member');
  t.same(peerOrdinals(1, [n.volume(8)], n), [8], 'the last ordinal a cluster can have');
  t.same(peerOrdinals(1, [n.volume(9)], n), [], 'no ordinal past it');
  t.same(peerOrdinals(9, [], n), [1, 2, 3, 4, 5, 6, 7, 8], 'the largest cluster');
});

t.test('the Secret carries them, from the spec and the observed volumes', async (t) => {
  const three = mysqlSync(request('mysqlcluster', { size: 3, version: '8.0' }), FIXED_NOW);
  const secret = byKind(three.children)['Secret/my-mysql-mysql'];
  t.equal(peersOf(secret), '1 2\n');
  t.ok(secret.data['root-password'] && secret.data['replication-password'], 'beside the passwords');

  // Scaled down to one: members 1 and 2 keep their volumes, and with them data member 0 may lack.
  const kept = objectMap(three.children.map((c) => asObserved(c)));
  const one = mysqlSync(
    request(
      'mysqlcluster',
      { size: 1, version: '8.0' },
      { children: kept, related: objectMap([volume(0), volume(1), volume(2), volume(4, 'someone-else')]) },
    ),
    FIXED_NOW,
  );
  const after = byKind(one.children)['Secret/my-mysql-mysql'];
  t.equal(peersOf(after), '1 2\n', 'members 1 and 2 are still asked; a volume of another instance is not');
  t.equal(after.data['root-password'], secret.data['root-password'], 'the passwords are kept');
  t.equal(
    peersOf(
      byKind(mysqlSync(request('mysqlcluster', { size: 1, version: '8.0' }), FIXED_NOW).children)[
        'Secret/my-mysql-mysql'
      ],
    ),
    '\n',
    'a single new member asks none',
  );
});

t.test('member 0 reads them from a mounted key, so a scale changes no pod template', async (t) => {
  const sts = (size: number) =>
    byKind(mysqlSync(request('mysqlcluster', { size, version: '8.0' }), FIXED_NOW).children)[
      'StatefulSet/my-mysql-mysql'
    ];
  const template = sts(3).spec.template;
  t.same(template, sts(5).spec.template, 'the same template for 3 and 5 members: no rolling restart on a scale');
  const sidecar = template.spec.containers.find((c: any) => c.name === 'replication');
  t.match(
    sidecar.env.find((e: any) => e.name === 'PEERS_FILE'),
    { value: '/etc/mysql-peers/peers' },
  );
  t.match(
    sidecar.volumeMounts.find((m: any) => m.name === 'peers'),
    { mountPath: '/etc/mysql-peers', readOnly: true },
  );
  t.same(
    template.spec.volumes.find((v: any) => v.name === 'peers'),
    {
      name: 'peers',
      secret: { secretName: 'my-mysql-mysql', items: [{ key: 'peers', path: 'peers' }], optional: true },
    },
    'only the peers key, not the passwords',
  );
  const server = template.spec.containers.find((c: any) => c.name === 'mysql');
  t.notOk(
    server.volumeMounts.some((m: any) => m.name === 'peers'),
    'the server container does not mount it',
  );
});
