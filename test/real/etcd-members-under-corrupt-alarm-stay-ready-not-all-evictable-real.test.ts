// Real etcd 3.6.9: etcd raises a CORRUPT alarm (its corruption check found one member disagreeing; the others hold
// the data, reads are served). The members' readiness probe on 3.6+ is `/readyz`, whose data_corruption check fails
// under CORRUPT: every member pod NotReady at once, and the budget admits the eviction of a member that is not Ready
// at any time (`unhealthyPodEvictionPolicy: AlwaysAllow`), so a routine drain evicted every member (without storage,
// every member's data) and the client Service emptied. The probe now leaves that check out
// (`/readyz?exclude=data_corruption`), as NOSPACE was taken out before (docs/operating.md): every serving member
// stays Ready under the alarm, and the budget holds a drain. (Found by the issue 30 attack.)
import t from 'tap';
import { call } from '../../lib/http.js';
import { EtcdKubelet, etcdBin, memberAlarm } from '../fixtures/etcd-kubelet.js';
import { allReady } from '../fixtures/etcd-status.js';

etcdBin();

t.test('members serving under a CORRUPT alarm: a drain cannot evict them all', async (t) => {
  const k = new EtcdKubelet('cre', { size: 3, version: '3.6.9' });
  t.teardown(() => k.shutdown());
  const res = await k.converge('size 3', allReady(3)).then(() => k.step());
  await k.put('k', 'v');
  const pdb = res.children.find((c) => c.kind === 'PodDisruptionBudget') as any;
  const pods = res.children.filter((c) => c.kind === 'Pod') as any[];
  const probe = pods[0].spec.containers.find((c: any) => c.name === 'etcd').readinessProbe;
  t.comment(`readiness probe: ${JSON.stringify(probe)}; budget: ${JSON.stringify(pdb?.spec)}`);
  const get = probe.httpGet as { path: string; port: number };
  const ready = async (pod: string) => {
    const url = k.endpoint(pod).replace(/:2379$/, `:${get.port}`) + get.path;
    const r = await call(new URL(url), {
      method: 'GET',
      timeoutMs: 3000,
      timeoutError: () => new Error('timed out'),
    }).catch((err: Error) => ({
      status: 0,
      body: err.message,
    }));
    return { ok: r.status >= 200 && r.status < 400, body: String(r.body).slice(0, 200) };
  };
  for (const p of pods) t.ok((await ready(p.metadata.name)).ok, `${p.metadata.name} Ready before`);

  await memberAlarm(k.endpoint('cre-2'));
  t.equal(await k.get('k'), 'v', 'the members serve reads');
  const after = await k.step();
  const budget = after.children.find((c) => c.kind === 'PodDisruptionBudget') as any;
  const evictable: string[] = [];
  for (const p of pods) {
    const r = await ready(p.metadata.name);
    t.comment(`${p.metadata.name}: probe ${r.ok ? 'passes' : 'fails'}: ${r.body}`);
    if (!r.ok && budget?.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow') evictable.push(p.metadata.name);
  }
  t.ok(
    evictable.length < pods.length,
    `not every member evictable by a drain (NotReady under AlwaysAllow: ${evictable.join(', ') || 'none'})`,
  );
  t.same(evictable, [], 'every serving member stays Ready under the alarm');
});
