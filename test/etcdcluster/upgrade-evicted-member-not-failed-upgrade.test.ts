// upgrade.ts detectFailure: a member upgraded in place whose pod is then evicted (node
// pressure, a drain: phase Failed, reason Evicted) never ran the new version's etcd to a verdict; its pod is gone for
// reasons of the node, not the version. crashLooping() counts every Failed pod as "its etcd exited", so the upgrade
// is marked failed (blaming 3.5.1), halted for as long as spec.version asks for 3.5.1, and the only way on is to edit
// spec.version away and back. Each answer fed back as the next observed state.
import t from 'tap';
import { firstMoved } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test('an upgraded member evicted by its node is no failed upgrade', async (t) => {
  const { loop, moved } = await firstMoved();
  t.ok(moved, `a member is upgraded in place: ${moved}`);
  loop.etcd.up.delete(moved!);
  loop.phase.set(moved!, 'Failed');
  loop.podStatus.set(moved!, { reason: 'Evicted', message: 'The node was low on resource: memory.' });
  loop.now = new Date(FIXED_NOW.getTime() + 10 * 60_000);
  await loop.step();
  const upgrading = loop.s().conditions.find((c: any) => c.type === 'Upgrading');
  t.comment(JSON.stringify(upgrading));
  t.notMatch(upgrading ?? {}, { reason: 'UpgradeFailed' }, 'the version is not blamed for an eviction');
  t.notOk(loop.s().upgradeFailed, 'no failed upgrade recorded');
});

for (const [what, status, failed] of [
  [
    'a node shutdown',
    { reason: 'Terminated', message: 'Pod was terminated in response to imminent node shutdown.' },
    false,
  ],
  [
    'its etcd exiting (exit code 1, no pod reason)',
    {
      containerStatuses: [{ name: 'etcd', state: { terminated: { exitCode: 1, reason: 'Error' } } }],
    },
    true,
  ],
] as const)
  t.test(`an upgraded member whose pod ends by ${what}: failed upgrade ${failed}`, async (t) => {
    const { loop, moved } = await firstMoved();
    loop.etcd.up.delete(moved!);
    loop.phase.set(moved!, 'Failed');
    loop.podStatus.set(moved!, status);
    loop.now = new Date(FIXED_NOW.getTime() + 10 * 60_000);
    await loop.step();
    t.equal(Boolean(loop.s().upgradeFailed), failed, JSON.stringify(loop.s().upgradeFailed ?? null));
  });
