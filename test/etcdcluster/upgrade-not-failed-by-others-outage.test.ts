// A failed upgrade stops (issue 30.4), and only a failed upgrade: the version upgraded to is blamed when its member
// fails on it. In a cluster of three, while one member runs the new version (upgraded in place, not yet serving),
// the two others crash (an OOM kill of both under one load spike, their node rebooted) and stay down a few minutes:
// quorum is lost, so no member serves, the upgraded one included. That is the other members' outage, not the
// version's failure: when they come back, the upgraded member serves the new version and the upgrade goes on. It
// must not be marked failed and rolled back, the rollout halted until spec.version changes; nor are the members that
// crashed on the version they ran moved to the new one while quorum is lost (two members upgraded at once, and
// their crash, from another cause, then blamed on the new version).
import t from 'tap';
import { EtcdError } from '../../hooks/etcdcommon/etcd.js';
import { running, type Loop } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const images = (loop: Loop) =>
  Object.fromEntries(
    loop.children.filter((c) => c.kind === 'Pod').map((p: any) => [p.metadata.name, p.spec.containers[0].image]),
  ) as Record<string, string>;
const condition = (loop: Loop, type: string) => loop.s().conditions.find((c: any) => c.type === type);
const CRASHING = {
  containerStatuses: [
    {
      name: 'etcd',
      restartCount: 4,
      state: { waiting: { reason: 'CrashLoopBackOff' } },
      lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
    },
  ],
};

t.test('size 3: the two members not upgraded down for minutes is no failed upgrade', async (t) => {
  const loop = await running({ size: 3 });
  const etcd = loop.etcd as any;
  const health = etcd.health.bind(etcd);
  etcd.health = async (url: string) => {
    const h = await health(url);
    const img = images(loop)[new URL(url).hostname.split('.')[0]!];
    if (h.healthy && img) h.version = img.split(':v')[1];
    return h;
  };
  loop.spec = { ...loop.spec, version: '3.5.1' };
  let upgraded: string | undefined;
  let minute = 0;
  for (; minute < 5 && !upgraded; minute++) {
    loop.now = new Date(FIXED_NOW.getTime() + minute * 60_000);
    await loop.step();
    upgraded = Object.entries(images(loop)).find(([, img]) => img.endsWith(':v3.5.1'))?.[0];
  }
  t.ok(upgraded, `a member is upgraded in place: ${upgraded}`);
  // The two others crash and stay down for 8 minutes: no quorum, no member serves.
  const others = ['e-0', 'e-1', 'e-2'].filter((p) => p !== upgraded);
  for (const p of others) loop.podStatus.set(p, CRASHING);
  loop.etcd.up.clear();
  loop.etcd.listError = new EtcdError('no etcd endpoint answered', 'Unreachable');
  for (let i = 0; i < 8; i++, minute++) {
    loop.now = new Date(FIXED_NOW.getTime() + minute * 60_000);
    await loop.step();
    t.same(
      Object.entries(images(loop))
        .filter(([, img]) => img.endsWith(':v3.5.1'))
        .map(([p]) => p),
      [upgraded],
      `minute ${minute}: one member at a time on the new version (the crashed ones keep the version they ran)`,
    );
    t.not(
      condition(loop, 'Upgrading')?.reason,
      'UpgradeFailed',
      `minute ${minute}: no failed upgrade (${condition(loop, 'Upgrading')?.message})`,
    );
  }
  t.equal(images(loop)[upgraded!], 'quay.io/coreos/etcd:v3.5.1', `${upgraded} is not rolled back`);
  // They come back; the upgraded member serves the new version.
  for (const p of others) loop.podStatus.delete(p);
  delete loop.etcd.listError;
  for (const p of ['e-0', 'e-1', 'e-2']) loop.etcd.up.add(p);
  loop.now = new Date(FIXED_NOW.getTime() + (minute + 1) * 60_000);
  await loop.step();
  t.not(condition(loop, 'Upgrading')?.reason, 'UpgradeFailed', 'the upgrade goes on');
});

t.test('the upgrade clock of the member upgraded stops during the others’ outage and restarts after it', async (t) => {
  const loop = await running({ size: 3 });
  const etcd = loop.etcd as any;
  const health = etcd.health.bind(etcd);
  etcd.health = async (url: string) => {
    const h = await health(url);
    const img = images(loop)[new URL(url).hostname.split('.')[0]!];
    if (h.healthy && img) h.version = img.split(':v')[1];
    return h;
  };
  loop.spec = { ...loop.spec, version: '3.5.1' };
  const at = (minute: number) => (loop.now = new Date(FIXED_NOW.getTime() + minute * 60_000));
  await loop.step();
  const upgraded = Object.entries(images(loop)).find(([, img]) => img.endsWith(':v3.5.1'))?.[0];
  t.ok(upgraded, `a member is upgraded in place: ${upgraded}`);
  const others = ['e-0', 'e-1', 'e-2'].filter((p) => p !== upgraded);
  // It restarts on the new version and does not serve yet: two minutes, the others healthy (its clocks run).
  loop.etcd.up.delete(upgraded!);
  for (const m of [1, 2]) {
    at(m);
    await loop.step();
  }
  // The others crash and stay down for eight minutes.
  for (const p of others) loop.podStatus.set(p, CRASHING);
  loop.etcd.up.clear();
  loop.etcd.listError = new EtcdError('no etcd endpoint answered', 'Unreachable');
  for (let m = 3; m <= 10; m++) {
    at(m);
    await loop.step();
    t.not(condition(loop, 'Upgrading')?.reason, 'UpgradeFailed', `minute ${m}, the others down: no failed upgrade`);
  }
  t.ok(
    loop.children.find((c) => c.metadata.name === upgraded)!.metadata.annotations!['etcd.metaops.io/upgrade-paused'],
    'its upgrade clock is paused, on its pod',
  );
  // They are back; the member upgraded is slow to serve: four minutes are within UPGRADE_MEMBER_SECONDS from now.
  for (const p of others) loop.podStatus.delete(p);
  delete loop.etcd.listError;
  for (const p of others) loop.etcd.up.add(p);
  for (let m = 11; m <= 14; m++) {
    at(m);
    await loop.step();
    t.not(condition(loop, 'Upgrading')?.reason, 'UpgradeFailed', `minute ${m}, the others back: its clock restarted`);
  }
  t.notOk(
    loop.children.find((c) => c.metadata.name === upgraded)!.metadata.annotations!['etcd.metaops.io/upgrade-paused'],
    'the pause is over',
  );
  // Still not serving well past the limit since the others came back: a failed upgrade after all.
  for (let m = 15; m <= 18; m++) {
    at(m);
    await loop.step();
  }
  t.match(condition(loop, 'Upgrading'), { reason: 'UpgradeFailed', message: new RegExp(`member ${upgraded} failed`) });
  t.same(loop.etcd.calls, [], 'no member removed or added throughout');
});

t.test('size 3: a member crash-looping on the version it ran, quorum kept, is not moved to the new one', async (t) => {
  const loop = await running({ size: 3 });
  loop.spec = { ...loop.spec, version: '3.5.1' };
  // Before the upgrade took any member: one member's etcd keeps exiting on the version it runs (its node).
  loop.podStatus.set('e-2', CRASHING);
  loop.etcd.up.delete('e-2');
  await loop.step();
  t.equal(images(loop)['e-2'], 'quay.io/coreos/etcd:v3.5.0', 'e-2 keeps the version it ran');
  t.same(
    Object.values(images(loop)).filter((i) => i.endsWith(':v3.5.1')),
    [],
    'no member upgraded while one is down',
  );
  t.not(condition(loop, 'Upgrading')?.reason, 'UpgradeFailed');
  // A version put back (a roll back): a member on the newer version whose etcd keeps exiting is moved back at once.
  const back = await running({ size: 3 });
  back.children = back.children.map((c: any) =>
    c.kind === 'Pod' && c.metadata.name === 'e-1'
      ? { ...c, spec: { ...c.spec, containers: [{ ...c.spec.containers[0], image: 'quay.io/coreos/etcd:v3.5.1' }] } }
      : c,
  );
  back.podStatus.set('e-1', CRASHING);
  back.etcd.up.delete('e-1');
  await back.step();
  t.equal(images(back)['e-1'], 'quay.io/coreos/etcd:v3.5.0', 'a member ahead of spec.version, crashing: moved back');
});
