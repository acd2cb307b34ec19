// Real etcd 3.6.9: spec.pod.etcdEnv reaches only member pods made after it is set. A quota under the data the
// cluster holds (ETCD_QUOTA_BACKEND_BYTES 512 KiB over ~1 MB of keys), set since the members were made: the restore
// check refuses a snapshot over the restored members' quota (they would refuse every write), but a scale-up (or a
// member's replacement) adds a member made with it. It receives the backend, over its own quota; the first write it
// applies raises NOSPACE under its ID, and from then on the whole cluster refuses every write. Must hold, as for a
// restore: the running cluster keeps taking writes (a member whose quota is under the data is not added, saying so:
// MembersHeld=True QuotaBelowData, hooks/etcdcluster/quota.ts), and raising the quota lets the held step go on.
// The same through the hook's own routine steps: a member lost without storage replaced, a member pod made again on
// its claim after a drain: each made with the spec's etcdEnv, each left the cluster read-only before the rule.
import t from 'tap';
import { EtcdKubelet, etcdBin } from '../fixtures/etcd-kubelet.js';
import { allReady, condition } from '../fixtures/etcd-status.js';

const held = (res: Parameters<typeof condition>[0]) =>
  condition(res, 'MembersHeld')?.status === 'True' && condition(res, 'MembersHeld')?.reason === 'QuotaBelowData';
/** Until the members' backend holds the data written (etcd commits it every backend-batch-interval, 100 ms). */
async function committed(k: EtcdKubelet): Promise<void> {
  while ((await k.dbSize()) < 1_000_000) await new Promise((r) => setTimeout(r, 100));
}
const HIGH = [{ name: 'ETCD_QUOTA_BACKEND_BYTES', value: String(64 * 1024 ** 2) }];
/** A quota under the data `fill` writes. */
const LOW = [{ name: 'ETCD_QUOTA_BACKEND_BYTES', value: String(512 * 1024) }];
/** ~1 MB of keys (10 of 100 KiB), until the members' backend holds them. */
async function fill(k: EtcdKubelet): Promise<void> {
  const big = 'x'.repeat(100 * 1024);
  for (let i = 0; i < 10; i++) await k.put(`big-${i}`, big);
  await committed(k);
}
/** A write's outcome: 'ok', or the start of its error. */
const write = (k: EtcdKubelet, key: string) =>
  k.put(key, 'w').then(
    () => 'ok',
    (err: Error) => err.message.slice(0, 160),
  );
/** `n` writes, half a second apart, each one's outcome. */
async function writes(k: EtcdKubelet, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    out.push(await write(k, `after-${i}`));
    await new Promise((r) => setTimeout(r, 500));
  }
  return out;
}

etcdBin();

t.test("a member added with a quota under the cluster's data: the cluster keeps taking writes", async (t) => {
  const k = new EtcdKubelet('squ', { size: 1, version: '3.6.9' });
  t.teardown(() => k.shutdown());
  await k.converge('size 1', allReady(1));
  await fill(k);
  k.setSpec({ size: 2, version: '3.6.9', pod: { etcdEnv: LOW } });
  await k.converge('size 2', allReady(2), 90_000).catch((err: Error) => t.comment(err.message.slice(0, 200)));
  const written = await writes(k, 5);
  const res = await k.step();
  t.comment(`pods ${k.livePods().join(', ')}; Available ${JSON.stringify(condition(res, 'Available'))?.slice(0, 200)}`);
  t.comment(`writes: ${written.join(' | ')}`);
  t.same(written, ['ok', 'ok', 'ok', 'ok', 'ok'], 'the cluster takes writes');
  t.same(k.livePods(), ['squ-0'], 'no member pod made with that quota');
  t.match(condition(res, 'MembersHeld'), { status: 'True', reason: 'QuotaBelowData', message: /524288 bytes/ });
  k.setSpec({ size: 2, version: '3.6.9', pod: { etcdEnv: HIGH } });
  await k.converge('size 2 once the quota is raised', allReady(2), 120_000);
  t.equal(await write(k, 'after-raise'), 'ok');
});

t.test(
  'a member lost without storage, replaced by the hook with that quota: the cluster keeps taking writes',
  async (t) => {
    // No admin action past setting the variable: the hook's own replacement of a lost member makes the cluster read-only.
    const k = new EtcdKubelet('sqr', { size: 3, version: '3.6.9' });
    t.teardown(() => k.shutdown());
    await k.converge('size 3', allReady(3));
    await fill(k);
    k.setSpec({ size: 3, version: '3.6.9', pod: { etcdEnv: LOW } });
    for (let i = 0; i < 3; i++) await k.step();
    await k.deletePod('sqr-2');
    await k
      .converge(
        'replaced, or held',
        (res) => held(res) || (allReady(3)(res) && !k.livePods().includes('sqr-2')),
        120_000,
      )
      .catch((err: Error) => t.comment(err.message.slice(0, 200)));
    const written = await writes(k, 4);
    const res = await k.step();
    t.comment(
      `pods ${k.livePods().join(', ')}; Available ${JSON.stringify(condition(res, 'Available'))?.slice(0, 200)}`,
    );
    t.comment(`writes: ${written.join(' | ')}`);
    t.same(written, ['ok', 'ok', 'ok', 'ok'], 'the cluster takes writes');
    t.ok(held(res), 'MembersHeld=True QuotaBelowData: the replacement is not made with that quota');
    k.setSpec({ size: 3, version: '3.6.9', pod: { etcdEnv: HIGH } });
    await k.converge('replaced once the quota is raised', allReady(3), 180_000);
    t.equal(await write(k, 'after-raise'), 'ok');
  },
);

t.test(
  'a member pod made again on its claim with that quota (a drained node): the cluster keeps taking writes',
  async (t) => {
    const PVC = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };
    const k = new EtcdKubelet('sqc', { size: 3, version: '3.6.9', pod: { persistentVolumeClaimSpec: PVC } });
    t.teardown(() => k.shutdown());
    await k.converge('size 3', allReady(3));
    await fill(k);
    k.setSpec({ size: 3, version: '3.6.9', pod: { persistentVolumeClaimSpec: PVC, etcdEnv: LOW } });
    for (let i = 0; i < 3; i++) await k.step();
    await k.deletePod('sqc-2');
    await k
      .converge(
        'made again, or held',
        (res) => held(res) || (allReady(3)(res) && k.livePods().includes('sqc-2')),
        120_000,
      )
      .catch((err: Error) => t.comment(err.message.slice(0, 200)));
    const written = await writes(k, 4);
    t.comment(`pods ${k.livePods().join(', ')}; writes: ${written.join(' | ')}`);
    t.same(written, ['ok', 'ok', 'ok', 'ok'], 'the cluster takes writes');
    t.ok(held(await k.step()), 'MembersHeld=True QuotaBelowData: the pod is not made again with that quota');
    t.notOk(k.livePods().includes('sqc-2'));
    k.setSpec({ size: 3, version: '3.6.9', pod: { persistentVolumeClaimSpec: PVC, etcdEnv: HIGH } });
    await k.converge(
      'made again once the quota is raised',
      (res) => allReady(3)(res) && k.livePods().includes('sqc-2'),
      180_000,
    );
    t.equal(await write(k, 'after-raise'), 'ok');
  },
);
