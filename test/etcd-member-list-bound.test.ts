// Tenant A chooses its members' image (spec.repository): a member that answers as A's own cluster (the cluster ID A
// can compute, or the one its status recorded) can say anything within MAX_ANSWER_BYTES per call. What one sync
// builds from such answers must stay bounded: the status it answers (memberList, members.ready/unready) is sent to
// Metacontroller and written to the API server like the children the answer budget bounds.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import t from 'tap';
import { HttpEtcdClient } from '../hooks/etcdcommon/etcd.js';
import { etcdSync as sync } from './fixtures/hooks.js';
import { etcdParent, etcdPod } from './fixtures/etcd.js';
import { FIXED_NOW, objectMap } from './fixtures/requests.js';

const CLUSTER_ID = '7777';

/** ~1 MiB member list: as many short members as fit (each a distinct ID, a member name of this cluster's shape). */
function manyMembers(): unknown[] {
  const members: unknown[] = [];
  let bytes = 0;
  for (let i = 0; bytes < 1000 * 1024; i++) {
    const m = { ID: String(100000 + i), name: `e-${100 + i}`, peerURLs: [], clientURLs: [] };
    bytes += JSON.stringify(m).length + 1;
    members.push(m);
  }
  return members;
}

/** The cluster's own three members, as etcd lists them, each with a name of ~300 KiB (etcd never makes one). */
function longNames(): unknown[] {
  return [0, 1, 2].map((i) => ({
    ID: String(1000 + i),
    name: `e-${i}` + 'x'.repeat(300 * 1024),
    peerURLs: [`http://e-${i}.e.ns.svc:2380`],
    clientURLs: [`http://e-${i}.e.ns.svc:2379`],
  }));
}

async function hostile(t: { teardown(fn: () => void): void }, members: unknown[]): Promise<number> {
  const list = JSON.stringify({ header: { cluster_id: CLUSTER_ID, member_id: '1' }, members });
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url === '/health') return res.end(JSON.stringify({ health: 'true' }));
    if (req.url === '/version') return res.end(JSON.stringify({ etcdserver: '3.5.0', etcdcluster: '3.5.0' }));
    if (req.url?.endsWith('/cluster/member/list')) return res.end(list);
    if (req.url?.endsWith('/maintenance/status'))
      return res.end(JSON.stringify({ header: { cluster_id: CLUSTER_ID, member_id: '1000' }, leader: '1000' }));
    res.end('{}');
  });
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return (server.address() as AddressInfo).port;
}

async function syncAgainst(t: { teardown(fn: () => void): void }, members: unknown[]) {
  const port = await hostile(t, members);
  const client = new HttpEtcdClient({
    resolve: (url) => {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
  });
  const pods = [0, 1, 2].map((i) => etcdPod(i));
  const res = await sync(
    {
      controller: {},
      parent: etcdParent({ size: 3 }, { phase: 'Running', clusterID: CLUSTER_ID, lastMemberIndex: 2 }),
      children: objectMap(pods, 'v1', ['Pod.v1', 'Service.v1']),
    },
    { etcd: client, now: FIXED_NOW },
  );
  const status = res.status as any;
  return { status, bytes: Buffer.byteLength(JSON.stringify(status)) };
}

t.test('a member that answers a member list of thousands makes no status of thousands', async (t) => {
  const { status, bytes } = await syncAgainst(t, manyMembers());
  t.comment(`memberList ${status.memberList?.length}, status ${bytes} bytes, size ${status.size}`);
  t.ok(
    (status.memberList?.length ?? 0) <= 12,
    `memberList has ${status.memberList?.length} entries (at most a cluster's 9 and room)`,
  );
  t.ok(bytes < 64 * 1024, `the status is ${bytes} bytes`);
});

t.test('member names a member answers are bounded before they reach the status', async (t) => {
  const { status, bytes } = await syncAgainst(t, longNames());
  t.comment(`memberList ${status.memberList?.length}, status ${bytes} bytes`);
  t.ok(bytes < 64 * 1024, `the status is ${bytes} bytes`);
});
