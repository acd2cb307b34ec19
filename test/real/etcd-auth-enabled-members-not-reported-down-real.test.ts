// Real etcd 3.6.9, run by the test kubelet from the member pods' specs. Issue 30 asks that `Available` tell the truth
// and that the hooks be checked against "a dependency that half-works". A tenant enables etcd's own authentication
// (`etcdctl user add root; etcdctl auth enable`: common hardening, a client with the root user's password keeps
// reading and writing). Every member still runs and serves, the quorum is whole; the hook, which speaks to the
// members without credentials, then reports `Available=False` / `QuorumLost` "etcd does not answer: 3 of 3 members
// down", every member unready, and "no membership change until a quorum is back": a member lost meanwhile is never
// replaced, and nothing says that authentication is the cause.
//
// Must hold: with every member serving, the hook does not report them down or the quorum lost; what it cannot do (a
// membership change under authentication) is said as such.
import t from 'tap';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { EtcdKubelet, etcdBin } from '../fixtures/etcd-kubelet.js';

etcdBin();

const status = (res: CompositeSyncResponse) => res.status as any;
const condition = (res: CompositeSyncResponse, type: string) =>
  status(res).conditions.find((c: any) => c.type === type);

async function post(url: string, body: unknown, token?: string): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: token } : {}) },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

t.test("etcd's authentication enabled: every member serving is not reported down, the quorum not lost", async (t) => {
  const k = new EtcdKubelet('authon', { size: 3, version: '3.6.9' });
  t.teardown(() => k.shutdown());
  await k.converge('size 3', (r) => status(r).members.ready.length === 3 && status(r).size === 3);
  await k.put('k', 'v');
  const ep = k.endpoint('authon-0');
  await post(`${ep}/v3/auth/user/add`, { name: 'root', password: 'pw' });
  await post(`${ep}/v3/auth/user/grant`, { user: 'root', role: 'root' });
  await post(`${ep}/v3/auth/enable`, {});
  const { token } = await post(`${ep}/v3/auth/authenticate`, { name: 'root', password: 'pw' });
  let res = await k.step();
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    res = await k.step();
  }
  // Every member serves: a write through each with the root user's token.
  for (const p of k.livePods())
    await post(`${k.endpoint(p)}/v3/kv/put`, { key: Buffer.from(`k-${p}`).toString('base64'), value: 'dg==' }, token);
  t.pass('every member serves a write with credentials: the quorum is whole');
  const available = condition(res, 'Available');
  t.comment(`Available ${JSON.stringify(available)}; members ${JSON.stringify(status(res).members)}`);
  t.not(available?.reason, 'QuorumLost', 'Available does not say the quorum is lost');
  t.notMatch(String(available?.message), /members down/, 'nor that the members are down');
});
