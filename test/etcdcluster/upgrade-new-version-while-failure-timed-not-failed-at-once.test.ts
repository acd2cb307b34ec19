// An upgrade to 3.5.1 whose member keeps exiting on it; before the failure has lasted UPGRADE_FAIL_SECONDS the
// user asks for 3.5.2 (the fixed release). The member is moved to 3.5.2 in place; the first sync after sees its
// container still in the kubelet's back-off (the exit of 3.5.1, or 3.5.2 killed once as it starts), then it serves
// 3.5.2. Neither the time it failed on 3.5.1 nor one exit on 3.5.2 fails the upgrade to 3.5.2: it goes on.
import t from 'tap';
import { CRASHING, images, OOM_KILLED, running, upgradeFirst } from '../fixtures/etcd-loop.js';

const ON = (v: string) => `quay.io/coreos/etcd:v${v}`;

t.test('a new spec.version while a failure is timed: one exit on it fails nothing, the upgrade goes on', async (t) => {
  const loop = await running({ size: 3 });
  const up = await upgradeFirst(loop);
  const moved = up.moved!;
  t.ok(moved, `a member is upgraded in place: ${moved}`);
  const at = loop.now.getTime();
  const step = async (seconds: number) => {
    loop.now = new Date(at + seconds * 1000);
    await loop.step();
  };
  // Its etcd keeps exiting on 3.5.1, for 15 s (under the bound).
  loop.etcd.up.delete(moved);
  loop.podStatus.set(moved, { containerStatuses: [{ ...CRASHING.containerStatuses[0], image: ON('3.5.1') }] });
  for (const s of [5, 10, 15]) await step(s);
  t.notOk(loop.s().upgradeFailed, 'not failed under the bound');
  // The user asks for 3.5.2.
  loop.spec = { ...loop.spec, version: '3.5.2' };
  await step(16);
  t.equal(images(loop)[moved], ON('3.5.2'), 'the member is moved to 3.5.2');
  // One sync sees its container in the back-off once more, on 3.5.2.
  loop.podStatus.set(moved, { containerStatuses: [{ ...OOM_KILLED.containerStatuses[0], image: ON('3.5.2') }] });
  await step(21);
  t.notOk(loop.s().upgradeFailed, 'one exit seen once on 3.5.2 fails no upgrade');
  // It serves 3.5.2.
  loop.etcd.up.add(moved);
  const serving = { name: 'etcd', image: ON('3.5.2'), restartCount: 5, state: { running: {} } };
  loop.podStatus.set(moved, { containerStatuses: [serving] });
  for (let k = 1; k <= 25; k++) await step(21 + k * 60);
  const upgrading = loop.s().conditions.find((c: any) => c.type === 'Upgrading');
  t.comment(`images ${JSON.stringify(images(loop))}; Upgrading ${JSON.stringify(upgrading)}`);
  t.notOk(loop.s().upgradeFailed, 'no failed upgrade recorded');
  t.same(Object.values(images(loop)), Array(3).fill(ON('3.5.2')), 'the upgrade went on: every member runs 3.5.2');
});
