// EtcdCluster planning (hooks/etcdcluster/plan.ts) in the degraded states its promises are about, with etcd's
// member list at hand so that the quorum arithmetic itself runs (a test that loses the member list first only
// reaches the "etcd does not answer" branch). Promises that span syncs feed each decision back as the next
// observed state (pods as observed, the status's member list and last ordinal), as Metacontroller does.
import t from 'tap';
import type { EtcdMember, MemberHealth } from '../../hooks/etcdcommon/etcd.js';
import { disruptionBudget, peerURL } from '../../hooks/etcdcluster/members.js';
import {
  compareVersions,
  decide,
  sanitize,
  upgradeRefusal,
  UNHEALTHY_REPLACE_SECONDS,
  type Decision,
  type Observation,
} from '../../hooks/etcdcluster/plan.js';
import type { KubeObject, ObservedObject } from '../../lib/metacontroller.js';
import { down, etcdCluster, etcdMember, etcdParent, etcdPod, etcdSpec, up } from '../fixtures/etcd.js';
import { asObserved, FIXED_NOW } from '../fixtures/requests.js';

const parent = etcdParent;
const spec = etcdSpec;
const c = etcdCluster;
const pod = (i: number, phase = 'Running', version = '3.5.0'): ObservedObject => etcdPod(i, { phase }, { version });
const member = etcdMember;
const names = (pods: KubeObject[]) => pods.map((p) => p.metadata.name).sort();
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** n voting members, all with running pods except `gone`; the healthy ones are `healthyOnes`. */
function cluster(n: number, healthyOnes: number[], gone: number[] = []): Observation {
  const health: Record<string, MemberHealth> = {};
  for (const i of range(n))
    if (!gone.includes(i)) health[`e-${i}`] = healthyOnes.includes(i) ? up(String(1000 + healthyOnes[0]!)) : down;
  return {
    pods: range(n)
      .filter((i) => !gone.includes(i))
      .map((i) => pod(i)),
    terminating: [],
    health,
    etcd: { members: range(n).map((i) => member(i)), clusterVersion: '3.5.0' },
  };
}

t.test('quorum: a dead member is removed only while a majority of the voting members is healthy', async (t) => {
  // [members, healthy members, members whose pod is gone, quorum holds]
  const cases: Array<[number, number[], number[], boolean]> = [
    [3, [0], [1, 2], false],
    [3, [0, 1], [2], true],
    [4, [0, 1], [2, 3], false],
    [4, [0, 1, 2], [3], true],
    [5, [0, 1], [2, 3, 4], false],
    [5, [0, 1, 2], [3, 4], true],
    [2, [0], [1], false],
    [1, [0], [], true],
  ];
  for (const [n, healthyOnes, gone, ok] of cases) {
    const d = decide(parent({ size: n }, { phase: 'Running' }), spec({ size: n }), cluster(n, healthyOnes, gone));
    const label = `${healthyOnes.length} of ${n} healthy`;
    t.equal(d.quorum?.ok, ok, label);
    t.equal(d.quorum?.needed, Math.floor(n / 2) + 1, `${label}: needed`);
    t.equal(d.quorum?.members, n, `${label}: members`);
    t.equal(d.quorum?.healthy, healthyOnes.length, `${label}: healthy`);
    if (!ok) {
      t.notOk(d.action, `${label}: no membership change`);
      // (Their pods are gone and there is no storage: their data is gone, the quorum cannot come back.)
      t.equal(d.reason, 'MajorityLost', label);
      t.equal(d.phase, 'Failed', label);
      t.same(names(d.pods), healthyOnes.map((i) => `e-${i}`).sort(), `${label}: the pods left are kept`);
      t.same(
        d.quorum?.down,
        gone.map((i) => `e-${i}`),
        `${label}: the members down are named`,
      );
      t.match(d.conditions, [
        { type: 'Available', status: false, reason: 'MajorityLost', message: /restore from a backup \(EtcdRestore\)/ },
        { type: 'Recovering', status: true },
      ]);
      // The same members down with their pods there (running, not answering): they may return.
      const there = decide(parent({ size: n }, { phase: 'Running' }), spec({ size: n }), cluster(n, healthyOnes));
      t.equal(there.reason, 'QuorumLost', `${label}, pods there`);
      t.equal(there.phase, 'Running', `${label}, pods there`);
      t.notOk(there.action, `${label}, pods there: no membership change`);
      t.match(there.conditions, [
        { type: 'Available', status: false, reason: 'QuorumLost', message: /until they return/ },
      ]);
    } else if (gone.length > 0) {
      t.match(
        d.action,
        { type: 'remove', id: String(1000 + gone[0]!), pod: `e-${gone[0]}`, why: 'dead' },
        `${label}: the dead member goes`,
      );
      t.notOk(
        d.pods.some((p) => p.metadata.name === `e-${gone[0]}`),
        `${label}: its pod is not asked for`,
      );
    }
  }
});

t.test('quorum counts voting members only: a learner neither helps nor hurts it', async (t) => {
  const obs = cluster(3, [0, 1], [2]);
  obs.etcd!.members.push(member(3, true, true));
  obs.pods.push(pod(3));
  obs.health['e-3'] = up();
  const d = decide(parent({ size: 3 }, { phase: 'Running' }), spec({ size: 3 }), obs);
  t.same(d.quorum, { members: 3, healthy: 2, needed: 2, ok: true, down: ['e-2'] });
  // One healthy voter of three and a healthy learner: still no quorum.
  const lost = cluster(3, [0], [1, 2]);
  lost.etcd!.members.push(member(3, true, true));
  lost.pods.push(pod(3));
  lost.health['e-3'] = up();
  const l = decide(parent({ size: 3 }, { phase: 'Running' }), spec({ size: 3 }), lost);
  t.equal(l.quorum?.ok, false);
  t.notOk(l.action);
});

/**
 * Metacontroller and etcd for `decide` alone: each decision's pods become the observed pods (running; healthy
 * when `healthy` says so), its members and last ordinal the status, and its action is applied to the member list.
 */
class Loop {
  members: EtcdMember[];
  pods: ObservedObject[];
  status: Record<string, unknown> = { phase: 'Running' };
  healthy: (pod: string) => boolean = () => true;
  actions: string[] = [];
  last!: Decision;
  /** When set, each sync is this many seconds after the last (from FIXED_NOW): the hook reads the time observed. */
  seconds?: number;
  syncs = 0;
  constructor(
    public size: number,
    n: number,
    public version = '3.5.0',
  ) {
    this.members = range(n).map((i) => member(i));
    this.pods = range(n).map((i) => pod(i));
  }
  step(): Decision {
    const health: Record<string, MemberHealth> = {};
    for (const p of this.pods) {
      const name = p.metadata.name!;
      const image = (p['spec'] as any).containers[0].image as string;
      health[name] = this.healthy(name) ? up('1000', image.split(':v').pop()) : down;
      const m = this.members.find((x) => x.peerURLs[0] === peerURL(c, name));
      if (m && !m.name && this.healthy(name)) m.name = name;
    }
    const d = decide(
      parent({ size: this.size, version: this.version }, structuredClone(this.status)),
      spec({ size: this.size, version: this.version }),
      {
        pods: this.pods,
        terminating: [],
        health,
        etcd: { members: structuredClone(this.members), clusterVersion: '3.5.0' },
        ...(this.seconds ? { now: new Date(FIXED_NOW.getTime() + this.seconds * 1000 * this.syncs++) } : {}),
      },
    );
    this.last = d;
    if (d.action?.type === 'add')
      this.members.push({
        id: String(2000 + this.actions.length),
        name: '',
        peerURLs: [d.action.peerURL],
        clientURLs: [],
        isLearner: d.action.learner,
      });
    if (d.action?.type === 'remove')
      this.members = this.members.filter((m) => m.id !== (d.action as { id: string }).id);
    if (d.action?.type === 'promote')
      for (const m of this.members) if (m.id === (d.action as { id: string }).id) m.isLearner = false;
    if (d.action) this.actions.push(`${d.action.type} ${d.action.pod}`);
    this.pods = d.pods.map((p) => asObserved(p, { phase: 'Running' }));
    this.status = {
      phase: d.phase,
      lastMemberIndex: d.lastMemberIndex,
      memberList: d.members,
      ...(d.reason ? { reason: d.reason } : {}),
    };
    return d;
  }
}

t.test(
  'the next change only once every member is healthy: a scale-up waits, sync after sync, for an unhealthy member',
  async (t) => {
    const loop = new Loop(5, 3);
    loop.healthy = (p) => p !== 'e-2';
    for (let i = 0; i < 4; i++) {
      const d = loop.step();
      t.notOk(d.action, `sync ${i}: no membership change while e-2 is unhealthy`);
      t.equal(d.quorum?.ok, true, `sync ${i}: the quorum holds`);
      t.match(d.conditions, [
        { type: 'Available', status: true },
        { type: 'Scaling', status: true, reason: 'WaitingForHealthy', message: /e-2/ },
      ]);
      t.equal(d.converging, true);
    }
    t.same(names(loop.pods), ['e-0', 'e-1', 'e-2'], 'every pod kept');
    t.same(loop.actions, []);
    loop.healthy = () => true;
    const d = loop.step();
    t.match(d.action, { type: 'add', pod: 'e-3' }, 'once e-2 is healthy, the next member is added');
  },
);

t.test('the next change only once every member is healthy: a scale-down and an upgrade wait too', async (t) => {
  const shrink = new Loop(2, 3);
  shrink.healthy = (p) => p !== 'e-0';
  for (let i = 0; i < 3; i++) t.notOk(shrink.step().action, `scale-down, sync ${i}`);
  const upgrade = new Loop(3, 3, '3.6.0');
  upgrade.healthy = (p) => p !== 'e-1';
  for (let i = 0; i < 3; i++) {
    const d = upgrade.step();
    t.same(
      d.pods.map((p: any) => p.spec.containers[0].image),
      Array(3).fill('quay.io/coreos/etcd:v3.5.0'),
      `upgrade, sync ${i}: no image changed`,
    );
  }
});

t.test(
  'scale-up over several syncs: one step per sync, every step with every member healthy, learners promoted',
  async (t) => {
    const loop = new Loop(5, 3);
    // A new member's pod answers one sync after it was asked for.
    const born = new Map<string, number>();
    let sync = 0;
    loop.healthy = (p) => (born.get(p) ?? -1) < sync;
    for (; sync < 12; sync++) {
      for (const p of loop.pods) if (!born.has(p.metadata.name!)) born.set(p.metadata.name!, sync);
      const before = loop.members.map((m) => ({ ...m }));
      const d = loop.step();
      if (d.action) {
        const allHealthy = before.filter((m) => !m.isLearner).every((m) => loop.healthy(m.name || '?'));
        t.ok(
          allHealthy || d.action.type === 'promote',
          `sync ${sync}: ${d.action.type} ${d.action.pod} with every voting member healthy`,
        );
      }
      if (!d.converging && !d.action) break;
    }
    t.same(loop.actions, ['add e-3', 'promote e-3', 'add e-4', 'promote e-4']);
    t.equal(loop.members.filter((m) => !m.isLearner).length, 5);
    t.equal(loop.last.converging, false, 'converged');
    t.match(loop.last.conditions, [
      { type: 'Available', status: true },
      { type: 'Scaling', status: false, reason: 'AtSize' },
    ]);
  },
);

t.test(
  'an upgrade goes one member at a time over syncs, the leader last, each only once the last one runs the new version',
  async (t) => {
    const loop = new Loop(3, 3, '3.6.0');
    // A sync every 2 minutes: a member moved serves steadily (the soak, 5 minutes, UPGRADE_SOAK_SECONDS) before the
    // next moves.
    loop.seconds = 120;
    const seen: string[][] = [];
    for (let i = 0; i < 20; i++) {
      const d = loop.step();
      const images = d.pods
        .map((p: any) => `${p.metadata.name}:${p.spec.containers[0].image.split(':v').pop()}`)
        .sort();
      if (JSON.stringify(images) !== JSON.stringify(seen.at(-1))) seen.push(images);
      if (!d.converging) break;
    }
    // e-0 leads (up() names 1000): e-1 first, then e-2, then e-0; each sync changes at most one pod (the syncs that
    // wait for the member moved to serve steadily change none).
    t.same(seen.slice(0, 3), [
      ['e-0:3.5.0', 'e-1:3.6.0', 'e-2:3.5.0'],
      ['e-0:3.5.0', 'e-1:3.6.0', 'e-2:3.6.0'],
      ['e-0:3.6.0', 'e-1:3.6.0', 'e-2:3.6.0'],
    ]);
    t.equal(loop.last.converging, false);
    t.match(loop.last.conditions, [{}, {}, { type: 'Upgrading', status: false, reason: 'AtVersion' }]);
    t.same(loop.actions, [], 'an upgrade changes no membership');
  },
);

t.test(
  'a started member unhealthy for longer than the limit is replaced only with quorum kept without it',
  async (t) => {
    const since = new Date(FIXED_NOW.getTime() - (UNHEALTHY_REPLACE_SECONDS + 1) * 1000).toISOString();
    const status = (unhealthy: string[]) => ({
      phase: 'Running',
      lastMemberIndex: 2,
      memberList: range(3).map((i) => ({
        name: `e-${i}`,
        id: String(1000 + i),
        healthy: !unhealthy.includes(`e-${i}`),
        ...(unhealthy.includes(`e-${i}`) ? { unhealthySince: since } : {}),
      })),
    });
    const obs = { ...cluster(3, [0, 1]), now: FIXED_NOW };
    const d = decide(parent({ size: 3 }, status(['e-2'])), spec({ size: 3 }), obs);
    t.match(d.action, { type: 'remove', id: '1002', pod: 'e-2', why: 'unhealthy' });
    // Just under the limit: waited for.
    const young = new Date(FIXED_NOW.getTime() - (UNHEALTHY_REPLACE_SECONDS - 1) * 1000).toISOString();
    const s = status(['e-2']);
    (s.memberList[2] as any).unhealthySince = young;
    t.notOk(decide(parent({ size: 3 }, s), spec({ size: 3 }), obs).action, 'under the limit: no removal');
    // Two of three unhealthy for long: quorum lost, nobody removed.
    const lost = decide(parent({ size: 3 }, status(['e-1', 'e-2'])), spec({ size: 3 }), {
      ...cluster(3, [0]),
      now: FIXED_NOW,
    });
    t.notOk(lost.action);
    t.equal(lost.reason, 'QuorumLost');
    // Without a time for the sync, nobody is replaced for being unhealthy.
    t.notOk(decide(parent({ size: 3 }, status(['e-2'])), spec({ size: 3 }), cluster(3, [0, 1])).action);
  },
);

t.test('the first time a member is seen unhealthy is kept, not moved at every sync', async (t) => {
  const first = decide(parent({ size: 3 }, { phase: 'Running', lastMemberIndex: 2 }), spec({ size: 3 }), {
    ...cluster(3, [0, 1]),
    now: FIXED_NOW,
  });
  const report = first.members.find((m) => m.name === 'e-2')!;
  t.equal(report.unhealthySince, FIXED_NOW.toISOString().replace(/\.\d+Z$/, 'Z'));
  const later = new Date(FIXED_NOW.getTime() + 60_000);
  const second = decide(
    parent({ size: 3 }, { phase: 'Running', lastMemberIndex: 2, memberList: first.members }),
    spec({ size: 3 }),
    { ...cluster(3, [0, 1]), now: later },
  );
  t.equal(second.members.find((m) => m.name === 'e-2')!.unhealthySince, report.unhealthySince);
  t.notOk(second.members.find((m) => m.name === 'e-0')!.unhealthySince, 'a healthy member has none');
});

t.test('upgrade refusals and version order', async (t) => {
  t.equal(upgradeRefusal('3.5.17', '3.6.0'), undefined, 'one minor up');
  t.equal(upgradeRefusal('3.5.1', '3.5.17'), undefined, 'a patch');
  t.equal(upgradeRefusal('3.5.0', '3.5.0'), undefined);
  t.match(upgradeRefusal('3.5.0', '4.0.0'), /major version \(3 to 4\)/);
  t.match(upgradeRefusal('3.5.0', '3.4.0'), /downgrade from 3.5 to 3.4/);
  t.match(upgradeRefusal('3.4.0', '3.6.0'), /one minor version at a time \(3.4 to 3.5 first\)/);
  t.equal(upgradeRefusal('x', '3.6.0'), undefined, 'nothing to compare');
  t.ok(compareVersions('3.5.10', '3.5.9') > 0);
  t.ok(compareVersions('3.5.9', '3.10.0') < 0);
  t.equal(compareVersions('3.5', '3.5.0'), 0);
  t.equal(sanitize('a\u0000b\n\tc   d'), 'a b c d');
  t.equal(sanitize('x'.repeat(200), 10), 'xxxxxxx...');
  t.equal(sanitize('x'.repeat(10), 10), 'xxxxxxxxxx');
});

t.test('the PodDisruptionBudget keeps a majority of the desired size, even sizes too', async (t) => {
  for (const [size, min] of [
    [1, 1],
    [2, 2],
    [3, 2],
    [4, 3],
    [5, 3],
    [6, 4],
    [7, 4],
  ] as const) {
    t.equal(
      (disruptionBudget(parent({ size }), size)['spec'] as any).minAvailable,
      min,
      `size ${size}: ${min} must stay`,
    );
  }
});
