// What the upgrade rules say names exactly the members they read (plan/upgrade-hold.ts): while the quorum is lost
// mid-upgrade, Upgrading names the member pods on the target image and how many of all member pods they are; once
// the majority's crash loop fails the upgrade, it counts the looping members against the voting members (those
// the status last recorded with the member pods, etcd not answering); and a moved member whose pod is Ready serves
// (its probe asks etcd in the pod) even where the hook cannot reach it: no failure. Each answer is fed back as the
// next observed state.
import t from 'tap';
import { EtcdError } from '../../hooks/etcdcommon/etcd.js';
import { CRASHING, running, upgradeFirst } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const upgradingOf = (s: any) => s.conditions.find((c: any) => c.type === 'Upgrading');

t.test('quorum lost mid-upgrade: the member moved named, 1 of 3 member pods; then 2 of 3 voters looping', async (t) => {
  const loop = await running({ size: 3 });
  const { moved, i } = await upgradeFirst(loop);
  t.ok(moved, `a member is moved to 3.5.1: ${moved}`);
  const others = ['e-0', 'e-1', 'e-2'].filter((p) => p !== moved);
  for (const p of others) loop.podStatus.set(p, CRASHING);
  loop.etcd.up.clear();
  loop.etcd.listError = new EtcdError('no etcd endpoint answered', 'Unreachable');
  loop.now = new Date(FIXED_NOW.getTime() + (i + 1) * 60_000);
  await loop.step();
  t.match(upgradingOf(loop.s()), {
    status: 'True',
    reason: 'WaitingForQuorum',
    message: `the upgrade from 3.5.0 to 3.5.1 is under way: ${moved} moved to 3.5.1 (1 of 3 member pods); no member is moved while etcd does not answer with a quorum`,
  });
  let failed: any;
  for (let m = i + 2; m <= i + 20 && !failed; m++) {
    loop.now = new Date(FIXED_NOW.getTime() + m * 60_000);
    await loop.step();
    const u = upgradingOf(loop.s());
    if (u?.reason === 'UpgradeFailed') failed = u;
  }
  t.ok(failed, 'the upgrade fails once the majority keeps exiting');
  t.match(
    failed?.message ?? '',
    new RegExp(
      `^member ${moved} failed on 3\\.5\\.1 \\(2 of 3 members \\(${others.join(', ')}\\) keep exiting since it runs 3\\.5\\.1: quorum lost since \\S+, MajorityCrashLooping\\)`,
    ),
  );
});

t.test(
  'a moved member whose pod is Ready serves though the hook cannot reach it: the upgrade does not fail',
  async (t) => {
    const loop = await running({ size: 3 });
    const { moved, i } = await upgradeFirst(loop);
    t.ok(moved, `a member is moved to 3.5.1: ${moved}`);
    loop.podStatus.set(moved!, {
      conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses: [{ name: 'etcd', ready: true, restartCount: 0, state: { running: {} } }],
    });
    loop.etcd.up.delete(moved!);
    for (let m = i + 1; m <= i + 30; m++) {
      loop.now = new Date(FIXED_NOW.getTime() + m * 60_000);
      await loop.step();
      const u = upgradingOf(loop.s());
      if (u?.reason === 'UpgradeFailed') {
        t.fail(`minute ${m}: ${u.message}`);
        return;
      }
    }
    t.pass('no UpgradeFailed in 30 minutes');
  },
);

t.test('a moved member whose pod is not Ready and that the hook cannot reach fails the upgrade', async (t) => {
  const loop = await running({ size: 3 });
  const { moved, i } = await upgradeFirst(loop);
  t.ok(moved, `a member is moved to 3.5.1: ${moved}`);
  loop.podStatus.set(moved!, CRASHING);
  loop.etcd.up.delete(moved!);
  let failed: any;
  for (let m = i + 1; m <= i + 30 && !failed; m++) {
    loop.now = new Date(FIXED_NOW.getTime() + m * 60_000);
    await loop.step();
    const u = upgradingOf(loop.s());
    if (u?.reason === 'UpgradeFailed') failed = u;
  }
  t.match(failed, { status: 'False', message: new RegExp(`^member ${moved} failed on 3\\.5\\.1`) });
});
