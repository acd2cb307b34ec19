// Issue 29.1: an EtcdCluster acts on, reads from and reports only the etcd cluster it made. Its hook dials only the
// cluster's own member names (in the server's cluster domain), and takes an answer as its cluster's only when the
// cluster ID is one this EtcdCluster made (a bootstrap or restore of its own members with its UID as token) or the
// one its status recorded; a member's own answer counts only with that cluster ID and its member ID.
// Tenant A's cluster is `e` in namespace `ns`; tenant B's is `e` in namespace `other`. Real etcd: the same promises on
// two real clusters in test/real/etcd-tenants-real.test.ts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { HttpEtcdClient, type EtcdClient, type EtcdMember, type MemberHealth } from '../../hooks/etcdcommon/etcd.js';
import { clusterIdOf, idOf, initialMemberId } from '../../hooks/etcdcommon/identity.js';
import { etcdSettings, etcdSettingsProblems } from '../../hooks/etcdcommon/index.js';
import { clusterIdentity, dialScope, podOfHost } from '../../hooks/etcdcluster/identity.js';
import { clusterOf, peerURL } from '../../hooks/etcdcluster/members.js';
import { etcdcluster } from '../../hooks/etcdcluster/index.js';
import { runHook } from '../../lib/operator.js';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { FakeEtcd, GROUPS, Loop, running } from '../fixtures/etcd-loop.js';
import { etcdClusterId, etcdParent, etcdPod, etcdSpec } from '../fixtures/etcd.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';

const condition = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);

t.test("etcd's IDs, computed as etcd 3.6.9 computed them for a real two-member bootstrap", async (t) => {
  // etcd --name=a/b --initial-cluster=a=http://127.0.0.1:23801,b=http://127.0.0.1:23802 --initial-cluster-token=tok
  // answered: members 4627081221937520288 (a), 2825987797056917605 (b); cluster_id 12036850159648324625.
  const a = initialMemberId(['http://127.0.0.1:23801'], 'tok');
  const b = initialMemberId(['http://127.0.0.1:23802'], 'tok');
  t.equal(a, '4627081221937520288');
  t.equal(b, '2825987797056917605');
  t.equal(clusterIdOf([a, b]), '12036850159648324625');
  t.equal(clusterIdOf([b, a]), '12036850159648324625', 'in any order');
  t.equal(idOf('12036850159648324625'), '12036850159648324625');
  t.equal(idOf(42), '42', 'a number from an old gateway');
  for (const bad of ['', '0', '-1', '18446744073709551616', '1e3', ' 1', 1.5, null, undefined, {}])
    t.equal(idOf(bad), undefined, `not an ID: ${JSON.stringify(bad)}`);
});

t.test(
  "etcd's IDs of a member with two peer URLs and of a three-member bootstrap, as etcd 3.6.9 gave them",
  async (t) => {
    // etcd --name=a --initial-advertise-peer-urls=http://127.0.0.1:21702,http://127.0.0.1:21701
    //   --initial-cluster=a=http://127.0.0.1:21702,a=http://127.0.0.1:21701 --initial-cluster-token=tok
    // answered: member 16441444772084255806, cluster_id 2398811269662674398 (the URLs sorted, then joined).
    const urls = ['http://127.0.0.1:21702', 'http://127.0.0.1:21701'];
    t.equal(initialMemberId(urls, 'tok'), '16441444772084255806', 'the URLs in the order given');
    t.equal(initialMemberId([...urls].reverse(), 'tok'), '16441444772084255806', 'and in the other order');
    t.same(urls, ['http://127.0.0.1:21702', 'http://127.0.0.1:21701'], 'the list given is left as it was');
    t.equal(clusterIdOf(['16441444772084255806']), '2398811269662674398');
    // x, y, z at http://127.0.0.1:21721..21723, --initial-cluster-token=tok3: cluster_id 15654345310308190206.
    const x = initialMemberId(['http://127.0.0.1:21721'], 'tok3');
    const y = initialMemberId(['http://127.0.0.1:21722'], 'tok3');
    const z = initialMemberId(['http://127.0.0.1:21723'], 'tok3');
    t.same([x, y, z], ['5815489359721268528', '2815264625634053890', '17042405395452716003']);
    for (const order of [
      [x, y, z],
      [x, z, y],
      [y, x, z],
      [y, z, x],
      [z, x, y],
      [z, y, x],
    ])
      t.equal(clusterIdOf(order), '15654345310308190206', `members in the order ${order.join(', ')}`);
    // An ID a gateway sent as a JSON number past 2^53 has lost digits: it is no ID, not a rounded one.
    t.equal(idOf(2 ** 60), undefined, 'a number past Number.MAX_SAFE_INTEGER');
    t.equal(idOf(Number.MAX_SAFE_INTEGER), String(Number.MAX_SAFE_INTEGER), 'the largest exact number');
    t.equal(idOf(['42']), undefined, 'a list holding an ID');
  },
);

t.test(
  'a cluster ID is this cluster’s when it made it (a bootstrap or restore of its own names) or recorded it',
  async (t) => {
    const c = clusterOf(etcdParent({}), etcdSpec({}));
    const made = (from: number, n: number, uid = 'uid-e', cl = c) =>
      clusterIdOf(Array.from({ length: n }, (_, i) => initialMemberId([peerURL(cl, `e-${from + i}`)], uid)));
    const accept = clusterIdentity({ cluster: c, token: 'uid-e', lastMemberIndex: 12, domains: ['cluster.local'] });
    t.ok(accept(made(0, 3)), 'the bootstrap e-0..e-2');
    t.ok(accept(made(3, 3)), 'a bootstrap started again at e-3');
    t.ok(accept(made(5, 5)), 'a restore into e-5..e-9');
    t.ok(accept(made(12, 1)), 'at the last ordinal');
    t.ok(accept(made(12, 2)), 'a bootstrap that began at the last ordinal seen (the members after it scaled away)');
    t.ok(accept(made(4, 9)), 'a bootstrap of MAX_SIZE members scaled down to its first ones');
    t.notOk(accept(made(13, 1)), 'one that began past the last ordinal');
    t.notOk(accept(made(4, 10)), 'more than MAX_SIZE members');
    t.notOk(accept(made(0, 3, 'uid-b')), 'another UID (another EtcdCluster of the same name, or one recreated)');
    const other = clusterOf(etcdParent({}), etcdSpec({}));
    t.notOk(accept(made(0, 3, 'uid-e', { ...other, namespace: 'other' })), 'the same names in another namespace');
    t.ok(
      accept(made(0, 3, 'uid-e', { ...c, domain: '.cluster.local' })),
      'peer URLs advertised with the server’s domain',
    );
    t.notOk(accept(made(0, 3, 'uid-e', { ...c, domain: '.evil.example' })), 'or with a domain no one allowed');
    t.notOk(accept(undefined), 'no ID');
    t.notOk(accept('12345'), 'any other');
    const recorded = clusterIdentity({
      cluster: c,
      token: 'uid-e',
      lastMemberIndex: -1,
      recorded: '12345',
      domains: [],
    });
    t.ok(recorded('12345'), 'the one the status recorded');
  },
);

t.test('tenant B’s etcd answering at tenant A’s member names: nothing removed, added or read', async (t) => {
  // B's cluster `e` in namespace `other`, three members, answers at A's addresses (a DNS name that resolves
  // anywhere, a Service or EndpointSlice of A's pointing at B's pods).
  const b = new FakeEtcd('e');
  b.clusterId = etcdClusterId(3, 'e', 'other');
  const bc = { ...clusterOf(etcdParent({}), etcdSpec({})), namespace: 'other' };
  b.members = [0, 1, 2].map((i) => ({
    id: String(7001 + i),
    name: `e-${i}`,
    peerURLs: [peerURL(bc, `e-${i}`)],
    clientURLs: [],
    isLearner: false,
  }));
  for (let i = 0; i < 12; i++) b.up.add(`e-${i}`);
  // A bootstraps e-0..e-2 while every address of A's answers as B: it stays Creating, nothing read.
  const a = new Loop({ size: 3 }, b);
  for (let i = 0; i < 3; i++) {
    const res = await a.step();
    t.equal(a.s().phase, 'Creating');
    t.notOk(
      a.s().memberList.some((m: any) => m.id || m.healthy),
      'no member of B is listed as A’s: A’s own pods, with no ID, not healthy',
    );
    t.same(b.calls, []);
    if (i > 0) t.match(condition(res, 'Synced'), { reason: 'ForeignMember', message: /e-0, e-1, e-2/ });
  }
  // A ran (its own members, its own cluster ID), then its addresses answer as B's, as the attack had it.
  a.status = {
    phase: 'Running',
    lastMemberIndex: 2,
    clusterID: etcdClusterId(3),
    memberList: [0, 1, 2].map((i) => ({ name: `e-${i}`, id: String(1 + i), healthy: true })),
  };
  for (const size of [1, 5, 3]) {
    a.spec = { ...a.spec, size };
    for (let i = 0; i < 4; i++) {
      const res = await a.step();
      t.same(b.calls, [], `size ${size}, sync ${i + 1}: no member of B removed, added or promoted`);
      const text = JSON.stringify(res.status);
      for (const id of ['7001', '7002', '7003']) t.notOk(text.includes(id), `B's member ID ${id} is not in A's status`);
      t.notOk((res.status as any).leader, "no leader of B's reported");
      t.equal((res.status as any).clusterID, etcdClusterId(3), "A's cluster ID stays; B's is not recorded");
      t.equal((res.status as any).reason, 'QuorumLost', 'no member of A’s own answers');
      t.match(condition(res, 'Synced'), { status: 'False', reason: 'ForeignMember', message: /e-0, e-1, e-2/ });
    }
  }
  t.same(
    b.members.map((m) => m.id),
    ['7001', '7002', '7003'],
    "B's membership as it was",
  );
});

t.test('one of A’s pods answering as B’s member: unhealthy, never a way in for a change', async (t) => {
  const loop = await running({ size: 3 });
  const id = loop.etcd.id();
  t.equal(loop.s().clusterID, id, 'the cluster ID A made is recorded');
  // e-2's address now answers as a member of B: its answers do not count, and nothing goes through it.
  const endpoints: string[][] = [];
  const foreign: EtcdClient = {
    memberList: (e, accept) => loop.etcd.memberList(e, accept),
    memberAdd: (e, ...rest) => (endpoints.push(e), loop.etcd.memberAdd(e, ...rest)),
    memberRemove: (e, id) => (endpoints.push(e), loop.etcd.memberRemove(e, id)),
    memberPromote: (e, id) => (endpoints.push(e), loop.etcd.memberPromote(e, id)),
    health: async (url): Promise<MemberHealth> =>
      url.includes('//e-2.')
        ? {
            healthy: true,
            version: '3.5.0',
            leader: '7001',
            clusterId: etcdClusterId(3, 'e', 'other'),
            memberId: '7003',
          }
        : loop.etcd.health(url),
  };
  const l2 = new Loop(loop.spec, loop.etcd as any);
  l2.status = loop.status;
  l2.children = loop.children;
  (l2 as any).etcd = foreign;
  const res = await l2.step();
  t.match(condition(res, 'Synced'), { reason: 'ForeignMember', message: /e-2/ });
  t.match(
    l2.s().memberList.find((m: any) => m.name === 'e-2'),
    { healthy: false, id: '3' },
  );
  t.equal(l2.s().clusterID, id, 'its own cluster ID kept');
  // After 10 minutes the member that does not answer as itself is replaced: the removal goes through e-0, e-1.
  l2.now = new Date(FIXED_NOW.getTime() + 11 * 60_000);
  await l2.step();
  t.same(loop.etcd.calls, ['remove 3'], 'e-2 removed from A’s own cluster');
  t.ok(endpoints.length > 0, 'a change was made');
  for (const e of endpoints)
    t.notOk(
      e.some((u) => u.includes('//e-2.')),
      'never through e-2',
    );
});

t.test('a member list without a cluster ID, or a health answer without one, is not taken', async (t) => {
  const loop = await running({ size: 3 });
  const fake = loop.etcd;
  const bare: EtcdClient = {
    memberList: async (e) => {
      const { members, clusterVersion } = await fake.memberList(e);
      return { members, ...(clusterVersion ? { clusterVersion } : {}) };
    },
    memberAdd: () => Promise.reject(new Error('no')),
    memberRemove: () => Promise.reject(new Error('no')),
    memberPromote: () => Promise.reject(new Error('no')),
    health: async () => ({ healthy: true, version: '3.5.0', leader: '1' }),
  };
  (loop as any).etcd = bare;
  const res = await loop.step();
  t.equal(condition(res, 'Available').reason, 'QuorumLost', 'no answer is this cluster’s: quorum is not assumed');
  t.ok(
    loop.s().memberList.every((m: any) => !m.healthy),
    'no member counted healthy on an answer that proves nothing',
  );
});

t.test('spec.pod.clusterDomain: only a domain the server allows steers a dial or a pod', async (t) => {
  const calls: string[] = [];
  const etcd = new Proxy({} as EtcdClient, {
    get: (_o, m) => (m === 'scoped' || m === 'withSignal' ? undefined : async () => (calls.push(String(m)), {})),
  });
  const request = (domain: string) => ({
    controller: {},
    parent: etcdParent({ size: 3, pod: { clusterDomain: domain } }, { phase: 'Running', lastMemberIndex: 2 }),
    children: objectMap([etcdPod(0), etcdPod(1), etcdPod(2)], 'v1', GROUPS),
  });
  const sync = (domain: string, env: NodeJS.ProcessEnv = {}) =>
    runHook(etcdcluster, 'sync', request(domain) as any, {
      now: FIXED_NOW,
      clients: { etcd: () => etcd },
      settings: etcdSettings({ env }),
    });
  for (const domain of ['nip.io', 'evil.example', '.wildcard.test']) {
    const res = await sync(domain);
    t.same(calls, [], `${domain}: nothing dialled`);
    t.same(
      res.children.filter((c) => c.kind === 'Pod').map((p) => p.metadata.name),
      ['e-0', 'e-1', 'e-2'],
      `${domain}: the pods kept as they are`,
    );
    t.match(condition(res, 'Synced'), {
      status: 'False',
      reason: 'ClusterDomainNotAllowed',
      message: /METAOPS_ETCD_CLUSTER_DOMAINS/,
    });
  }
  await sync('cluster.local');
  t.ok(calls.length > 0, 'the server’s own domain is dialled');
  calls.length = 0;
  await sync('.corp.example', { METAOPS_ETCD_CLUSTER_DOMAINS: 'corp.example' });
  t.ok(calls.length > 0, 'a domain the server allows is dialled');
  calls.length = 0;
  await sync('other.example', { METAOPS_ETCD_CLUSTER_DOMAIN: 'other.example' });
  t.ok(calls.length > 0, 'the server’s domain, set');
});

t.test('the server’s etcd settings: its domain, the allowlist, and what it refuses to start with', async (t) => {
  t.match(etcdSettings({ env: {} }), {
    image: 'ghcr.io/metaops/metaops:0.1.0',
    clusterDomain: 'cluster.local',
    allowedDomains: [],
  });
  t.match(
    etcdSettings({
      env: { METAOPS_ETCD_CLUSTER_DOMAIN: '.Corp.Local.', METAOPS_ETCD_CLUSTER_DOMAINS: 'a.example, ,.b.example' },
    }),
    { clusterDomain: 'corp.local', allowedDomains: ['a.example', 'b.example'] },
  );
  t.same(etcdSettingsProblems({}), []);
  t.match(etcdSettingsProblems({ METAOPS_ETCD_CLUSTER_DOMAINS: 'ok.example,bad_domain,x/y' }), [
    /"bad_domain" is not one/,
    /"x\/y" is not one/,
  ]);
  t.match(etcdSettingsProblems({ METAOPS_ETCD_CLUSTER_DOMAIN: '*' }), [/"\*" is not one/]);
});

t.test(
  'a sync’s client dials only the cluster’s member names, each looked up once, in the server’s domain',
  async (t) => {
    let connections = 0;
    const server: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ health: 'true', etcdserver: '3.6.9' }));
      });
    });
    server.on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.teardown(() => server.close());
    const port = (server.address() as AddressInfo).port;
    const looked: string[] = [];
    const client = new HttpEtcdClient({
      dnsLookup: async (name) => (looked.push(name), { address: '127.0.0.1', family: 4 }),
    });
    const c = clusterOf(etcdParent({}), etcdSpec({}));
    const view = client.scoped(dialScope(c, etcdSettings({ env: {} }), new AbortController().signal));
    // Member names of this cluster: dialled, looked up as <name>.cluster.local, once for the whole sync.
    for (let i = 0; i < 3; i++) await view.health(`http://e-0.e.ns.svc:${port}`);
    t.same(looked, ['e-0.e.ns.svc.cluster.local'], 'looked up once, fully qualified in the server’s domain');
    t.ok(connections > 0);
    // Anything else: refused before a socket opens.
    const before = connections;
    for (const url of [
      `http://127.0.0.1:${port}`,
      `http://e-0.e.other.svc:${port}`,
      `http://e-0.e.ns.svc.evil.example:${port}`,
      `http://x.e.ns.svc:${port}`,
      `http://e-0.f.ns.svc:${port}`,
      `http://e-0.e.ns.svc.cluster.local.evil.example:${port}`,
    ]) {
      const h = await view.health(url);
      t.match(h, { healthy: false, error: /is not an address of this cluster/ }, url);
      await t.rejects(view.memberList([url]), /is not an address of this cluster/);
      await t.rejects(view.memberRemove([url], '1'), /not an address of this cluster|no etcd endpoint answered/);
    }
    t.equal(connections, before, 'no connection opened for any of them');
    t.same(looked, ['e-0.e.ns.svc.cluster.local'], 'nor looked up');
    // A new sync looks up again (an address changes when a pod is recreated).
    const next = client.scoped(dialScope(c, etcdSettings({ env: {} }), new AbortController().signal));
    await next.health(`http://e-0.e.ns.svc:${port}`);
    t.equal(looked.length, 2);
    // A name in an allowed domain is looked up as it is.
    const allowed = client.scoped(
      dialScope(
        c,
        etcdSettings({ env: { METAOPS_ETCD_CLUSTER_DOMAINS: 'corp.example' } }),
        new AbortController().signal,
      ),
    );
    await allowed.health(`http://e-1.e.ns.svc.corp.example:${port}`);
    t.equal(looked.at(-1), 'e-1.e.ns.svc.corp.example');
    t.equal(podOfHost(c, 'E-1.e.ns.svc', []), 'e-1', 'host names are not case-sensitive');
    t.equal(podOfHost(c, 'e-01.e.ns.svc', []), undefined, 'no member is named with a leading zero');
  },
);

t.test(
  'the members matched to pods by peer URL (any domain after svc), else by name within the cluster’s own list',
  async (t) => {
    const c = clusterOf(etcdParent({}), etcdSpec({}));
    const { podOfPeerURL, podOfMember } = await import('../../hooks/etcdcluster/members.js');
    t.equal(podOfPeerURL(c, 'http://e-1.e.ns.svc:2380'), 'e-1');
    t.equal(podOfPeerURL(c, 'https://e-1.e.ns.svc.cluster.local:2380'), 'e-1');
    t.equal(podOfPeerURL(c, 'http://e-1.e.other.svc:2380'), undefined, 'another namespace');
    t.equal(podOfPeerURL(c, 'http://e-1.e.ns.svcx:2380'), undefined);
    t.equal(podOfPeerURL(c, 'http://a.e-1.e.ns.svc:2380'), undefined);
    t.equal(podOfPeerURL(c, 'http://.e.ns.svc:2380'), undefined);
    t.equal(podOfPeerURL(c, 'not a url'), undefined);
    const m = (name: string, url: string): EtcdMember => ({
      id: '1',
      name,
      peerURLs: [url],
      clientURLs: [],
      isLearner: false,
    });
    t.equal(podOfMember(c, m('e-4', 'http://10.0.0.1:2380')), 'e-4');
    t.equal(podOfMember(c, m('', 'http://10.0.0.1:2380')), undefined);
  },
);

t.test(
  'an EtcdCluster recreated under the same name whose pods start on the old claims: the old cluster is not taken as its own',
  async (t) => {
    // The first EtcdCluster e ran with claims; it was deleted leaving them (orphaned), and e was created again: its
    // new members mount the claims of the same names, and etcd starts from the old data (the old cluster's ID).
    const old = await running({
      size: 3,
      pod: {
        persistentVolumeClaimSpec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    });
    const again = new Loop(old.spec, old.etcd);
    again.uid = 'uid-e-second';
    for (let i = 0; i < 4; i++) {
      const res = await again.step();
      t.equal(again.s().phase, 'Creating', `sync ${i + 1}: still its bootstrap`);
      t.notOk(again.s().clusterID, 'the old cluster ID is not recorded as its own');
      t.notOk(
        again.s().memberList.some((m: any) => m.id),
        'no member of the old cluster is listed',
      );
      // (Its claims at sync 1, its pods at sync 2 once the claims are observed as its own, dialled from sync 3.)
      if (i > 1) t.match(condition(res, 'Synced'), { reason: 'ForeignMember' });
    }
    t.same(again.pods(), ['e-0', 'e-1', 'e-2'], 'nothing deleted: the old data stays on its claims');
    t.same(again.claims(), ['e-0', 'e-1', 'e-2']);
    t.same(old.etcd.calls, [], 'no membership change');
  },
);
