// The NoSpace condition's advice (plan/members.ts noSpace): "writes are refused until space is freed (compact and
// defragment, or raise --quota-backend-bytes through pod.etcdEnv) and the alarm is disarmed". etcd's NOSPACE alarm
// comes from a database that reached its quota, and the members replicate one database: they all reach it. A user
// who follows the second way sets ETCD_QUOTA_BACKEND_BYTES in spec.pod.etcdEnv. Running members keep the pod they
// were made with (docs/etcdcluster.md), and a pod's container env cannot change in place: no running member ever
// runs with the raised quota, so the advice, followed, changes nothing while the alarm holds (and a membership change,
// the only way a new pod would be made, is refused while it does). test/operators/recovery-instructions.test.ts checks
// only that a member made from scratch carries the env.
// Each answer fed back as the next observed state.
import t from 'tap';
import type { MemberHealth } from '../../hooks/etcdcommon/etcd.js';
import { running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const QUOTA = { name: 'ETCD_QUOTA_BACKEND_BYTES', value: '8589934592' };

t.test(
  'raising the quota through pod.etcdEnv, as NoSpace advises, reaches the members that are out of space',
  async (t) => {
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
    t.match(alarm, { reason: 'NoSpace', message: /raise --quota-backend-bytes through pod\.etcdEnv/ }, 'the advice');
    // Followed.
    loop.spec = { ...loop.spec, pod: { etcdEnv: [QUOTA] } };
    for (let i = 1; i <= 30; i++) {
      loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
      await loop.step();
    }
    const envs = loop.children
      .filter((c) => c.kind === 'Pod')
      .map((p: any) => [p.metadata.name, (p.spec.containers[0].env ?? []).some((e: any) => e.name === QUOTA.name)]);
    t.comment(JSON.stringify(envs));
    t.ok(
      envs.some(([, has]) => has),
      'after 30 minutes, at least one member out of space runs with the raised quota',
    );
  },
);
