// Never destroy on doubt (issue 30.1: "remove + replace only for pods that are gone or stay unhealthy past the stated
// limit"). A member pod is Ready only when its own etcd serves: its readiness probe asks etcd, inside the pod, each
// few seconds. When the hook alone cannot reach a member (a route from the operator's node to one node broken, a
// network policy, etcd answering /health but its status call timing out), the member is not unhealthy: the kubelet
// says it serves. It must not be removed from etcd and replaced for the hook's own failure to reach it: the cluster
// would lose a member that holds data and serves, and its replacement (which the hook cannot reach either, on that
// node) would be cancelled and added again and again, leaving two voters.
import t from 'tap';
import { rfc3339 } from '../../lib/conditions.js';
import type { MemberHealth } from '../../hooks/etcdcommon/etcd.js';
import { UNHEALTHY_REPLACE_SECONDS } from '../../hooks/etcdcluster/plan.js';
import { running } from '../fixtures/etcd-loop.js';

const READY = {
  conditions: [
    { type: 'Ready', status: 'True' },
    { type: 'ContainersReady', status: 'True' },
  ],
  containerStatuses: [{ name: 'etcd', ready: true, restartCount: 0, state: { running: {} } }],
};

for (const [what, blind] of [
  [
    'the hook cannot reach it',
    (loop: any) => {
      loop.etcd.up.delete('e-2');
    },
  ],
  [
    'it answers /health, its status call times out',
    (loop: any) => {
      const health = loop.etcd.health.bind(loop.etcd);
      loop.etcd.health = async (url: string): Promise<MemberHealth> => {
        const h = await health(url);
        if (!url.includes('e-2.')) return h;
        const { clusterId: _c, memberId: _m, leader: _l, ...rest } = h;
        return rest;
      };
    },
  ],
] as const) {
  t.test(`a member whose pod is Ready is not replaced when ${what}`, async (t) => {
    const loop = await running({ size: 3 });
    for (const p of ['e-0', 'e-1', 'e-2']) loop.podStatus.set(p, READY);
    await loop.step();
    blind(loop);
    const start = loop.now.getTime();
    for (let minute = 0; minute <= 2 * (UNHEALTHY_REPLACE_SECONDS / 60); minute += 2) {
      loop.now = new Date(start + minute * 60_000);
      await loop.step();
    }
    t.same(loop.etcd.calls, [], 'no member removed or added: e-2 serves, its pod Ready all along');
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2']);
  });
}

t.test(
  'the unhealthy clock starts when the pod stops being Ready, not when the hook first failed to reach it',
  async (t) => {
    const loop = await running({ size: 3 });
    for (const p of ['e-0', 'e-1', 'e-2']) loop.podStatus.set(p, READY);
    await loop.step();
    loop.etcd.up.delete('e-2');
    const start = loop.now.getTime();
    const at = (minute: number) => (loop.now = new Date(start + minute * 60_000));
    for (let minute = 0; minute <= 20; minute += 2) {
      at(minute);
      await loop.step();
    }
    t.same(loop.etcd.calls, [], 'twenty minutes unreachable, Ready: kept');
    t.match(
      loop.s().conditions.find((c: any) => c.type === 'Scaling'),
      {
        reason: 'WaitingForHealthy',
        message: /e-2: pod Ready, but the hook cannot reach its etcd or read its status/,
      },
    );
    // Its etcd stops serving: the probe fails, the pod is no longer Ready.
    loop.podStatus.set('e-2', {
      conditions: [{ type: 'Ready', status: 'False' }],
      containerStatuses: [{ name: 'etcd', ready: false, restartCount: 0, state: { running: {} } }],
    });
    for (let minute = 22; minute <= 30; minute += 2) {
      at(minute);
      await loop.step();
    }
    t.same(loop.etcd.calls, [], 'eight minutes not Ready: not yet replaced');
    t.equal(
      loop.s().memberList.find((m: any) => m.name === 'e-2').unhealthySince,
      rfc3339(new Date(start + 22 * 60_000)),
      'its clock starts when its pod stops being Ready',
    );
    for (let minute = 32; minute <= 36; minute += 2) {
      at(minute);
      await loop.step();
    }
    t.equal(loop.etcd.calls[0], 'remove 3', 'past ten minutes not Ready and unreachable: replaced');
  },
);

t.test(
  'a member upgraded in place whose pod is Ready is no failed upgrade when the hook cannot reach it',
  async (t) => {
    const loop = await running({ size: 3 });
    for (const p of ['e-0', 'e-1', 'e-2']) loop.podStatus.set(p, READY);
    await loop.step();
    loop.spec = { ...loop.spec, version: '3.5.1' };
    await loop.step();
    const upgraded = loop.children.find(
      (c: any) => c.kind === 'Pod' && c.spec.containers[0].image.endsWith(':v3.5.1'),
    ) as any;
    t.ok(upgraded, 'a member is upgraded in place');
    loop.etcd.up.delete(upgraded.metadata.name);
    const start = loop.now.getTime();
    for (let minute = 1; minute <= 20; minute++) {
      loop.now = new Date(start + minute * 60_000);
      await loop.step();
      const upgrading = loop.s().conditions.find((c: any) => c.type === 'Upgrading');
      if (upgrading?.reason === 'UpgradeFailed') {
        t.fail(`minute ${minute}: ${upgrading.message}`);
        break;
      }
    }
    t.same(loop.etcd.calls, [], 'no member removed or added');
    t.equal(
      (loop.children.find((c) => c.metadata.name === upgraded.metadata.name) as any).spec.containers[0].image,
      'quay.io/coreos/etcd:v3.5.1',
      'it keeps the new version',
    );
  },
);
