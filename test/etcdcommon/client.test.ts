// HttpEtcdClient against a fake etcd gateway: which prefix it serves is learnt once and relearnt after an
// upgrade; etcd's own 404s (member not found) are errors from etcd, not a missing gateway. The gateway's
// answers are the ones etcd 3.5/3.6 give (checked with curl): a path it does not serve is a plain-text
// "404 page not found", a missing member a JSON 404 with gRPC code 5.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { EtcdError, HttpEtcdClient } from '../../hooks/etcdcommon/etcd.js';
import { clusterIdOf, initialMemberId } from '../../hooks/etcdcommon/identity.js';
import { etcdClients } from '../../hooks/etcdcommon/index.js';

function fakeGateway() {
  const state = { prefix: '/v3', posts: [] as string[] };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (req.method === 'GET' && req.url === '/version')
        return json(200, { etcdserver: '3.2.13', etcdcluster: '3.2.0' });
      if (req.method === 'POST') state.posts.push(req.url!);
      if (req.method === 'POST' && req.url === `${state.prefix}/cluster/member/list`) {
        return json(200, {
          members: [{ ID: '1', name: 'a', peerURLs: ['http://a:2380'], clientURLs: ['http://a:2379'] }],
        });
      }
      if (req.method === 'POST' && req.url === `${state.prefix}/cluster/member/remove`) {
        return json(404, { error: 'etcdserver: member not found', code: 5, message: 'etcdserver: member not found' });
      }
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('404 page not found\n');
    });
  });
  return { state, server };
}

/** A fake gateway serving `prefix`, listening on loopback until the test ends, and its endpoint URL. */
async function gateway(t: { teardown(fn: () => void): void }, prefix: string) {
  const fake = fakeGateway();
  fake.state.prefix = prefix;
  await new Promise<void>((r) => fake.server.listen(0, '127.0.0.1', r));
  t.teardown(() => fake.server.close());
  return { state: fake.state, endpoint: `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}` };
}

t.test('the gateway prefix is probed once, kept, and probed again when etcd stops serving it', async (t) => {
  const { state, endpoint } = await gateway(t, '/v3alpha');
  const client = new HttpEtcdClient();

  const first = await client.memberList([endpoint]);
  t.equal(first.members[0]?.name, 'a');
  t.same(
    state.posts,
    ['/v3/cluster/member/list', '/v3beta/cluster/member/list', '/v3alpha/cluster/member/list'],
    'a 3.2 gateway is found under /v3alpha',
  );
  state.posts.length = 0;
  await client.memberList([endpoint]);
  t.same(state.posts, ['/v3alpha/cluster/member/list'], 'the next call goes straight there');

  // An upgrade to a version that no longer serves /v3alpha.
  state.prefix = '/v3';
  state.posts.length = 0;
  const after = await client.memberList([endpoint]);
  t.equal(after.members.length, 1, 'the call still succeeds');
  t.same(state.posts, ['/v3alpha/cluster/member/list', '/v3/cluster/member/list']);
  state.posts.length = 0;
  await client.memberList([endpoint]);
  t.same(state.posts, ['/v3/cluster/member/list']);
});

t.test("etcd's own 404 (member not found) is etcd's answer, not a missing gateway", async (t) => {
  const { state, endpoint } = await gateway(t, '/v3');
  const err = await new HttpEtcdClient().memberRemove([endpoint], '12345').catch((e: unknown) => e);
  t.ok(err instanceof EtcdError);
  t.equal((err as EtcdError).code, 'Rejected');
  t.match((err as EtcdError).message, /member not found/);
  t.same(state.posts, ['/v3/cluster/member/remove'], 'asked once, under the first prefix');
});

t.test('a gateway under no known prefix is reported as such', async (t) => {
  const { endpoint } = await gateway(t, '/v4');
  const err = await new HttpEtcdClient().memberList([endpoint]).catch((e: unknown) => e);
  t.match((err as Error).message, /has no v3 gateway/);
});

t.test('the service keeps one etcd client per TLS identity', async (t) => {
  const clients = etcdClients();
  t.equal(clients.etcd(), clients.etcd(), 'plain');
  const tls = { ca: 'CA', cert: 'CERT', key: 'KEY' };
  t.equal(clients.etcd(tls), clients.etcd({ ...tls }), 'the same certificates');
  t.not(clients.etcd(tls), clients.etcd({ ...tls, cert: 'ROTATED' }), 'another certificate');
  t.not(clients.etcd(tls), clients.etcd(), 'TLS or not');
  t.not(etcdClients().etcd(), clients.etcd(), 'per service, not global');
});

t.test(
  'the EtcdCluster hook on etcd 3.3 (/v3beta) and 3.2 (/v3alpha): reads, grows 2 -> 3 with a voter, never 1 -> 2',
  async (t) => {
    const { etcdSync: sync } = await import('../fixtures/hooks.js');
    const { memberPod, peerURL, clusterOf } = await import('../../hooks/etcdcluster/members.js');
    const { asObserved, FIXED_NOW, objectMap } = await import('../fixtures/requests.js');
    for (const [prefix, version] of [
      ['/v3beta', '3.3.25'],
      ['/v3alpha', '3.2.13'],
    ] as const) {
      for (const started of [1, 2]) {
        const spec = { repository: 'quay.io/coreos/etcd', paused: false, version, size: started + 1 };
        const parent = {
          apiVersion: 'etcd.database.coreos.com/v1beta2',
          kind: 'EtcdCluster',
          metadata: { name: 'old', namespace: 'ns', uid: 'u', generation: 1 },
          spec,
          status: { phase: 'Running', lastMemberIndex: started - 1 },
        };
        const c = clusterOf(parent as any, spec as any);
        const names = Array.from({ length: started }, (_, i) => `old-${i}`);
        // The IDs etcd gives a bootstrap of these members (EtcdCluster old, UID u), as its answers carry them.
        const ids = names.map((n) => initialMemberId([peerURL(c, n)], 'u'));
        const header = (pod: number) => ({ cluster_id: clusterIdOf(ids), member_id: ids[pod] ?? '1', raft_term: '2' });
        const posts: Array<{ url: string; body: string }> = [];
        const server: Server = createServer((req, res) => {
          let body = '';
          req.on('data', (x) => (body += x));
          req.on('end', () => {
            const json = (value: unknown) => {
              res.writeHead(200, { 'content-type': 'application/json' });
              res.end(JSON.stringify(value));
            };
            // /<pod ordinal>/<path>: which member was dialled (resolve below).
            const [, ordinal, ...rest] = req.url!.split('/');
            const url = `/${rest.join('/')}`;
            const pod = Number(ordinal);
            if (req.method === 'POST') posts.push({ url, body });
            if (url === '/health') return json({ health: 'true' });
            if (url === '/version') return json({ etcdserver: version, etcdcluster: version.replace(/\.\d+$/, '.0') });
            if (url === `${prefix}/maintenance/status`) return json({ header: header(pod), leader: ids[0], version });
            if (url === `${prefix}/cluster/member/list`) {
              return json({
                header: header(pod),
                members: names.map((n, i) => ({
                  ID: ids[i],
                  name: n,
                  peerURLs: [peerURL(c, n)],
                  clientURLs: ['http://x:2379'],
                })),
              });
            }
            if (url === `${prefix}/cluster/member/add`)
              return json({ header: header(pod), member: { ID: '19', peerURLs: JSON.parse(body).peerURLs } });
            res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
            res.end('404 page not found\n');
          });
        });
        await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
        t.teardown(() => server.close());
        const port = (server.address() as AddressInfo).port;
        const client = new HttpEtcdClient({
          resolve: (url) =>
            `http://127.0.0.1:${port}/${new URL(url).hostname.split('.')[0]!.slice('old-'.length)}${new URL(url).pathname}`,
        });
        const pods = names.map((n) =>
          asObserved(
            memberPod({ parent: parent as any, spec: spec as any, name: n, initialCluster: '', state: 'new' }),
            { phase: 'Running' },
          ),
        );
        const res = await sync(
          { controller: {}, parent: parent as any, children: objectMap(pods, 'v1', ['Pod.v1', 'Service.v1']) },
          { etcd: client, now: FIXED_NOW },
        );
        const s = res.status as any;
        t.match(
          s.memberList[0],
          { name: 'old-0', id: ids[0], healthy: true, leader: true, version },
          `${version}: read through ${prefix}`,
        );
        const add = posts.find((p) => p.url.endsWith('/cluster/member/add'));
        const podNames = res.children.filter((x) => x.kind === 'Pod').map((x) => x.metadata.name);
        if (started === 1) {
          // A second voter in a one-member cluster: a quorum of two with one running, until the new one starts.
          t.equal(add, undefined, `${version}: no member is added to a one-member cluster`);
          t.same(podNames, ['old-0'], `${version}: no new pod`);
          t.match(
            s.conditions.find((x: any) => x.type === 'Scaling'),
            {
              status: 'False',
              reason: 'ScaleUpRefused',
              message: new RegExp(`etcd ${version.replace(/\.\d+$/, '.0')} has no learners`),
            },
          );
          t.match(
            s.conditions.find((x: any) => x.type === 'Available'),
            { status: 'True' },
            `${version}: the cluster itself is available`,
          );
        } else {
          t.equal(add?.url, `${prefix}/cluster/member/add`, `${version}: the add goes through ${prefix}`);
          t.same(
            JSON.parse(add!.body),
            { peerURLs: [peerURL(c, 'old-2')] },
            `${version}: a voter, no learner before 3.4`,
          );
          t.same(podNames, ['old-0', 'old-1', 'old-2']);
        }
      }
    }
  },
);

t.test('health: a member that answers 503 with the NOSPACE alarm is reported with the alarm', async (t) => {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(req.url === '/health' ? 503 : 200, { 'content-type': 'application/json' });
      if (req.url === '/health') return res.end(JSON.stringify({ health: 'false', reason: 'ALARM NOSPACE' }));
      if (req.url === '/version') return res.end(JSON.stringify({ etcdserver: '3.5.17', etcdcluster: '3.5.0' }));
      res.end(JSON.stringify({ leader: '7', errors: ['memberID:7 alarm:NOSPACE '] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const h = await new HttpEtcdClient().health(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  t.same(h, { healthy: false, version: '3.5.17', leader: '7', alarm: 'NOSPACE' });
});

t.test('health: a member that answers 503 with the CORRUPT alarm is reported with the alarm', async (t) => {
  const serve = async (reason: string, errors: string[]) => {
    const server: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(req.url === '/health' ? 503 : 200, { 'content-type': 'application/json' });
        if (req.url === '/health') return res.end(JSON.stringify({ health: 'false', reason }));
        if (req.url === '/version') return res.end(JSON.stringify({ etcdserver: '3.6.9', etcdcluster: '3.6.0' }));
        res.end(JSON.stringify({ leader: '7', errors }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.teardown(() => server.close());
    return new HttpEtcdClient().health(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  };
  t.same(await serve('ALARM CORRUPT', ['memberID:7 alarm:CORRUPT ']), {
    healthy: false,
    version: '3.6.9',
    leader: '7',
    alarm: 'CORRUPT',
  });
  // Both raised: CORRUPT is named (the graver); a reason without either is no alarm.
  t.match(await serve('ALARM NOSPACE', ['memberID:7 alarm:NOSPACE ', 'memberID:8 alarm:CORRUPT ']), {
    alarm: 'CORRUPT',
  });
  t.notOk((await serve('RAFT NO LEADER', [])).alarm);
});

t.test('health before etcd 3.4 (no reason, no errors): an unhealthy member is asked for the alarms', async (t) => {
  const serve = async (version: string, prefix: string, alarms: unknown[] | 'fails') => {
    const posts: string[] = [];
    const server: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const json = (status: number, v: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(v));
        };
        if (req.url === '/health') return json(503, { health: 'false' });
        if (req.url === '/version') return json(200, { etcdserver: version, etcdcluster: '3.3.0' });
        if (req.method === 'POST') posts.push(req.url!);
        if (req.url === `${prefix}/maintenance/status`)
          return json(200, { header: { cluster_id: '5', member_id: '7' }, leader: '7' });
        if (req.url === `${prefix}/maintenance/alarm`)
          return alarms === 'fails'
            ? json(503, { error: 'etcdserver: request timed out', code: 14 })
            : json(200, { header: {}, ...(alarms.length ? { alarms } : {}) });
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('404 page not found\n');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.teardown(() => server.close());
    const h = await new HttpEtcdClient().health(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return { h, posts };
  };
  const corrupt = await serve('3.3.25', '/v3beta', [{ memberID: '8', alarm: 'CORRUPT' }]);
  t.match(corrupt.h, { healthy: false, version: '3.3.25', alarm: 'CORRUPT' }, '3.3: CORRUPT found in the list');
  t.ok(corrupt.posts.includes('/v3beta/maintenance/alarm'), 'asked under the prefix the version serves');
  t.match((await serve('3.2.13', '/v3alpha', [{ memberID: '7', alarm: 'NOSPACE' }])).h, { alarm: 'NOSPACE' }, '3.2');
  t.notOk((await serve('3.3.25', '/v3beta', [])).h.alarm, 'no alarm listed: unhealthy, no alarm');
  t.notOk((await serve('3.3.25', '/v3beta', 'fails')).h.alarm, 'the list refused (no quorum): unhealthy, no alarm');
  const later = await serve('3.5.17', '/v3', [{ memberID: '7', alarm: 'CORRUPT' }]);
  t.notOk(later.h.alarm, '3.4+ names its alarm in /health: no reason there is none');
  t.notOk(later.posts.includes('/v3/maintenance/alarm'), 'and the alarms are not asked');
});

t.test('a learner refusing the member list does not fail the read while a voter answers', async (t) => {
  const serve = async (handler: (url: string, res: import('node:http').ServerResponse) => void) => {
    const server: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => handler(req.url!, res));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.teardown(() => server.close());
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const json = (res: import('node:http').ServerResponse, status: number, value: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  // etcd 3.6's answer from a learner (checked on real etcd by the attack): gRPC code 9 through the gateway.
  const learner = await serve((url, res) =>
    url.endsWith('/cluster/member/list')
      ? json(res, 400, {
          error: 'etcdserver: rpc not supported for learner',
          code: 9,
          message: 'etcdserver: rpc not supported for learner',
        })
      : json(res, 404, {}),
  );
  const voter = await serve((url, res) => {
    if (!url.endsWith('/cluster/member/list')) return json(res, 404, {});
    setTimeout(
      () =>
        json(res, 200, {
          members: [{ ID: '1', name: 'a', peerURLs: ['http://a:2380'], clientURLs: ['http://a:2379'] }],
        }),
      150,
    );
  });
  const client = new HttpEtcdClient();
  for (let i = 0; i < 3; i++) {
    const list = await client.memberList([learner, voter]);
    t.equal(list.members[0]?.name, 'a', `read ${i + 1}: the voter's answer`);
  }
  // Only rejections: the call fails with etcd's rejection.
  const err = await client.memberList([learner]).catch((e: unknown) => e);
  t.equal((err as EtcdError).code, 'Rejected');
  t.match((err as EtcdError).message, /not supported for learner/);
});
