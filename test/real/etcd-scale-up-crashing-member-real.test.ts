// On real etcd, run by the test kubelet from the member pods' specs: a scale-up whose new member's etcd exits at
// every start (a spec.pod.etcdEnv value only new pods get, which etcd refuses) is tried a few times, then stops
// (Scaling=False/ScaleUpFailed naming how the last one exited), the cluster kept at its three members with every key,
// and no membership change at the syncs that follow. Changing the spec (the bad value removed) adds the member.
import t from 'tap';
import { MAX_FAILED_ADDITIONS } from '../../hooks/etcdcluster/additions.js';
import { EtcdKubelet, etcdBin } from '../fixtures/etcd-kubelet.js';
import { allReady, condition, membership, status } from '../fixtures/etcd-status.js';

etcdBin();

t.test('a scale-up whose new member exits at every start stops after a few attempts, the cluster whole', async (t) => {
  const k = new EtcdKubelet('grows', { size: 3, version: '3.6.9' });
  t.teardown(() => k.shutdown());
  await k.converge('size 3', (res) => allReady(3)(res) && condition(res, 'Scaling')?.reason === 'AtSize');
  for (let i = 0; i < 50; i++) await k.put(`key-${i}`, `value-${i}`);
  const before = membership(await k.step());
  const first = status(await k.step()).lastMemberIndex;

  // Only pods made from now on get the variable; etcd refuses its value and exits.
  k.setSpec({ ...k.spec, size: 4, pod: { etcdEnv: [{ name: 'ETCD_SNAPSHOT_COUNT', value: 'not-a-number' }] } });
  const { syncs } = await k.converge(
    'additions stopped',
    (res) => condition(res, 'Scaling')?.reason === 'ScaleUpFailed',
    120_000,
  );
  const stopped = await k.step();
  t.match(condition(stopped, 'Scaling'), {
    status: 'False',
    message:
      /^adding a member failed 3 times .*the last: Error, exit code 1\): no member is added, the cluster runs 3 of 4 members/,
  });
  t.ok(
    status(stopped).lastMemberIndex <= first + MAX_FAILED_ADDITIONS,
    `ordinals given out: ${status(stopped).lastMemberIndex - first} after ${syncs} syncs`,
  );
  t.same(membership(stopped), before, 'the three members, the same IDs');
  t.match(condition(stopped, 'Available'), { status: 'True', reason: 'QuorumAvailable' });

  // At rest: no membership change, the same members, for the syncs that follow.
  for (let i = 0; i < 15; i++) {
    const res = await k.step();
    t.same(membership(res), before, `sync ${i + 1}: the same members`);
    t.equal(condition(res, 'Scaling')?.reason, 'ScaleUpFailed');
    await new Promise((r) => setTimeout(r, 200));
  }
  t.same(k.livePods().sort(), ['grows-0', 'grows-1', 'grows-2']);
  for (let i = 0; i < 50; i += 7) t.equal(await k.get(`key-${i}`), `value-${i}`, `key-${i} readable`);

  // The spec fixed: the member is added and starts.
  k.setSpec({ ...k.spec, pod: {} });
  await k.converge('size 4', (res) => allReady(4)(res) && condition(res, 'Scaling')?.reason === 'AtSize', 120_000);
  t.equal(status(await k.step()).additionsFailed, undefined, 'the record is gone');
});
