// etcd with its authentication on (`etcdctl auth enable`) refuses a call without credentials: etcd 3.6 answers the
// gateway's member list with HTTP 400 {"code":3,"message":"etcdserver: user name is empty"}, a bad token with HTTP
// 401 {"code":16}, a user without the right with {"code":7}. The client reports these as `Unauthenticated`, apart
// from any other refusal (`Rejected`), so that the sync can say that the members serve and authentication is on.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { authRefusal, EtcdError, HttpEtcdClient } from '../../hooks/etcdcommon/etcd.js';

async function answering(t: { teardown(fn: () => unknown): void }, status: number, body: unknown): Promise<number> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  return (server.address() as AddressInfo).port;
}

async function listFailure(port: number): Promise<EtcdError> {
  const client = new HttpEtcdClient({ resolve: (url) => `http://127.0.0.1:${port}${new URL(url).pathname}` });
  try {
    await client.memberList(['http://e-0.e.ns.svc:2379']);
  } catch (err) {
    return err as EtcdError;
  }
  throw new Error('the member refused, but the call succeeded');
}

for (const [what, status, body] of [
  ['no user (etcd 3.6)', 400, { code: 3, message: 'etcdserver: user name is empty' }],
  ['an invalid token', 401, { code: 16, message: 'etcdserver: invalid auth token' }],
  ['a user without the right', 403, { code: 7, message: 'etcdserver: permission denied' }],
] as const)
  t.test(`a member list refused for ${what} is Unauthenticated`, async (t) => {
    const err = await listFailure(await answering(t, status, body));
    t.type(err, EtcdError);
    t.equal(err.code, 'Unauthenticated');
    t.equal(err.message, body.message, "etcd's words");
  });

t.test('any other refusal stays Rejected', async (t) => {
  const err = await listFailure(await answering(t, 400, { code: 3, message: 'etcdserver: bad request' }));
  t.equal(err.code, 'Rejected');
});

t.test('authRefusal reads the status and gRPC code', async (t) => {
  t.ok(authRefusal(401, {}));
  t.ok(authRefusal(403, {}));
  t.ok(authRefusal(200, { code: 16 }));
  t.ok(authRefusal(200, { code: 7 }));
  t.ok(authRefusal(400, { code: 3, message: 'etcdserver: user name is empty' }));
  t.notOk(authRefusal(400, { code: 3, message: 'etcdserver: user name is empty ' }));
  t.notOk(authRefusal(400, { code: 9 }));
  t.notOk(authRefusal(404, { code: '16' }));
  t.notOk(authRefusal(500, {}));
});
