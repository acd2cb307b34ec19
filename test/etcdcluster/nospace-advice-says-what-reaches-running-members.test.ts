// The NoSpace condition's advice (plan/members.ts noSpace). etcd's NOSPACE alarm comes from a database that reached its
// quota, and the members replicate one database: they all reach it. Running members keep the pod they were made with
// (docs/etcdcluster.md), and a pod's container env cannot change in place: ETCD_QUOTA_BACKEND_BYTES set in
// spec.pod.etcdEnv while the alarm holds reaches no running member (and no membership change is made meanwhile; a
// member pod lost is made again, on its claim). The advice once said "raise --quota-backend-bytes
// through pod.etcdEnv", which, followed, changed nothing (30 syncs, 0 of 3 pods carrying it); it now says what frees
// space (compact, defragment, disarm) and what pod.etcdEnv reaches: member pods made after it is set (with storage, a
// member pod deleted is made again on its claim, with it).
// Each answer fed back as the next observed state.
import t from 'tap';
import type { MemberHealth } from '../../hooks/etcdcommon/etcd.js';
import { PVC, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const QUOTA = { name: 'ETCD_QUOTA_BACKEND_BYTES', value: '8589934592' };
const hasQuota = (p: any) => (p.spec.containers[0].env ?? []).some((e: any) => e.name === QUOTA.name);

t.test('NoSpace says what frees space, and that pod.etcdEnv reaches no running member', async (t) => {
  const loop = await running({ size: 3 });
  const full = new Set(['e-0', 'e-1', 'e-2']);
  const health = loop.etcd.health.bind(loop.etcd);
  loop.etcd.health = async (url: string): Promise<MemberHealth> => {
    const h = await health(url);
    const pod = new URL(url).hostname.split('.')[0]!;
    return full.has(pod) && h.healthy ? { ...h, healthy: false, alarm: 'NOSPACE' } : h;
  };
  await loop.step();
  const alarm = loop.s().conditions.find((c: any) => c.type === 'Available');
  t.match(alarm, { reason: 'NoSpace' });
  t.match(alarm.message, /compact, defragment every member, then etcdctl alarm disarm/, 'what frees space');
  t.match(alarm.message, /pod\.etcdEnv \(ETCD_QUOTA_BACKEND_BYTES\) reaches only member pods made after it is set/);
  t.notMatch(
    alarm.message,
    /raise --quota-backend-bytes through pod\.etcdEnv\)/,
    'no way offered that changes nothing',
  );
  // pod.etcdEnv set anyway: the running members keep their pods, as said.
  const before = loop.children.filter((c) => c.kind === 'Pod').map((p) => JSON.stringify(p));
  loop.spec = { ...loop.spec, pod: { etcdEnv: [QUOTA] } };
  for (let i = 1; i <= 30; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
    await loop.step();
  }
  const pods = loop.children.filter((c) => c.kind === 'Pod');
  t.same(
    pods.map((p) => JSON.stringify(p)),
    before,
    'the running members keep their pods while the alarm holds',
  );
  t.notOk(pods.some(hasQuota), 'and none runs with the quota set since');
});

t.test('with storage, a member pod deleted once the alarm is disarmed is made again with pod.etcdEnv', async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  loop.spec = { ...loop.spec, pod: { persistentVolumeClaimSpec: PVC, etcdEnv: [QUOTA] } };
  await loop.step();
  t.notOk(loop.children.filter((c) => c.kind === 'Pod').some(hasQuota), 'running members keep their pods');
  loop.lose('e-0');
  loop.etcd.up.add('e-0'); // its data on its claim: it comes back as itself
  for (let i = 1; i <= 3; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
    await loop.step();
  }
  const e0 = loop.children.find((c) => c.kind === 'Pod' && c.metadata.name === 'e-0');
  t.ok(e0 && hasQuota(e0), 'e-0, made again on its claim, carries the raised quota');
  t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], 'the same claims');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the same members');
});
