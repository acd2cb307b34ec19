// Tenant A chooses its members' image (spec.repository): a member that answers as A's own cluster (the cluster ID A
// can compute, or the one its status recorded) can say anything within MAX_ANSWER_BYTES per call. What one sync
// builds from such answers must stay bounded: the status it answers (memberList, members.ready/unready) is sent to
// Metacontroller and written to the API server like the children the answer budget bounds.
import { createServer, type Server } from 'node:http';
import { listening } from '../fixtures/net.js';
import t from 'tap';
import { HttpEtcdClient, MAX_ANSWER_BYTES, MAX_LISTED_MEMBERS } from '../../hooks/etcdcommon/etcd.js';
import { etcdSync as sync } from '../fixtures/hooks.js';
import { etcdParent, etcdPod } from '../fixtures/etcd.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';

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
  return listening(t, server);
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

/** `n` members with this cluster's member names and peer URLs (the first three its own pods'). */
function members(n: number): unknown[] {
  return Array.from({ length: n }, (_, i) => ({
    ID: String(1000 + i),
    name: `e-${i}`,
    peerURLs: [`http://e-${i}.e.ns.svc:2380`],
    clientURLs: [`http://e-${i}.e.ns.svc:2379`],
  }));
}

const synced = (status: any) => status.conditions.find((c: any) => c.type === 'Synced');

t.test('a member list longer than any cluster may list is refused, and the status says so', async (t) => {
  const cases: Array<[unknown[], string]> = [
    // ~1 MiB: more bytes than any etcd answer (refused before it is parsed).
    [manyMembers(), `more than the ${MAX_ANSWER_BYTES / 1024} KiB an etcd answer may have`],
    // Short, but more members than a cluster may list.
    [members(MAX_LISTED_MEMBERS + 1), `a member list of 25 members, more than the ${MAX_LISTED_MEMBERS}`],
  ];
  for (const [list, why] of cases) {
    const { status } = await syncAgainst(t, list);
    t.same(
      status.memberList.map((m: any) => m.name),
      ['e-0', 'e-1', 'e-2'],
      `a list of ${list.length}: no member read from it (the pods observed, unconfirmed)`,
    );
    t.equal(synced(status)?.reason, 'InvalidMemberList', 'Synced=False says why');
    t.match(synced(status)?.message, why);
    t.match(synced(status)?.message, 'nothing is read from it or changed through it');
  }
});

t.test('a member list of the largest size the CRD allows, and room, is read', async (t) => {
  const { status } = await syncAgainst(t, members(MAX_LISTED_MEMBERS));
  t.not(synced(status)?.reason, 'InvalidMemberList', 'the list is taken');
  t.ok(status.memberList.length >= 3, `memberList has ${status.memberList.length} entries`);
});

t.test('an answer of more bytes than etcd ever answers is refused unread, and the status says so', async (t) => {
  const { status, bytes } = await syncAgainst(t, longNames());
  t.same(
    status.memberList.map((m: any) => m.name),
    ['e-0', 'e-1', 'e-2'],
    'no member name read from it',
  );
  t.equal(synced(status)?.reason, 'InvalidMemberList');
  t.match(synced(status)?.message, `more than the ${MAX_ANSWER_BYTES / 1024} KiB an etcd answer may have`);
  t.ok(bytes < 8 * 1024, `the status is ${bytes} bytes`);
});
