// (issue 30.4, not listed case): an upgrade whose LAST member fails on the new version (its etcd exits at
// every start there: an image without that node's architecture, a flag the data dir rejects) was not taken as a
// failed upgrade. The two members already upgraded are healthy on the target, so the version "the cluster runs"
// (the lowest healthy one) equals the target and upgrade.ts detectFailure returned nothing: Upgrading said
// AtVersion, and after UNHEALTHY_REPLACE_SECONDS the member was removed and replaced on the failing version. Now
// it is a failed upgrade: the member goes back to 3.5.0 in place and, serving there, stays the same member (one
// that fails on 3.5.0 too is replaced: upgrade-rolled-back-member-failing-on-last-good-version-replaced.test.ts).
// Each answer fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { CRASHING, images, running, upgradeToLast } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';

const condition = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);

t.test('the last member upgraded crashes on the new version: UpgradeFailed, rolled back, kept as itself', async (t) => {
  const loop = await running({ size: 3 });
  // Each member answers with the version of the image its pod runs; the third member moved exits at every start on
  // 3.5.1, and serves again once it runs 3.5.0.
  const { last, i: next } = await upgradeToLast(loop, (last) => {
    loop.etcd.up.delete(last);
    loop.podStatus.set(last, CRASHING);
  });
  let i = next;
  t.ok(last, `the last member moved to 3.5.1: ${last}`);
  for (let k = 0; k < 15; k++, i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
    await loop.step();
    if (images(loop)[last!] === 'quay.io/coreos/etcd:v3.5.0') {
      loop.podStatus.delete(last!);
      loop.etcd.up.add(last!);
    }
  }
  t.same(loop.etcd.calls, [], 'no membership change');
  t.ok(
    loop.s().memberList.find((m: any) => m.name === last)?.healthy,
    'the same member serves again on the version it ran',
  );
  t.match(
    condition(loop.last, 'Upgrading'),
    { status: 'False', reason: 'UpgradeFailed' },
    'the upgrade says it failed',
  );
  t.equal(
    images(loop)[last!],
    'quay.io/coreos/etcd:v3.5.0',
    'the member that failed runs the version it ran, in place',
  );
  t.match((loop.s() as any).upgradeFailed, { version: '3.5.1', from: '3.5.0', member: last });
});

t.test('a member that served the new version and crashes later is no failed upgrade', async (t) => {
  const loop = await running({ size: 3 });
  loop.etcd.version = '3.5.1';
  loop.spec = { ...loop.spec, version: '3.5.1' };
  for (let i = 0; i < 25; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
    await loop.step();
  }
  t.match(condition(loop.last, 'Upgrading'), { status: 'False', reason: 'AtVersion' });
  const pods = loop.children.filter((c) => c.kind === 'Pod');
  t.equal(pods.length, 3);
  for (const p of pods)
    t.notOk(p.metadata.annotations?.['etcd.metaops.io/upgraded-from'], `${p.metadata.name}: the upgrade record went`);
  // Now one member's etcd exits again and again (an OOM kill): a crash, not an upgrade that failed.
  loop.etcd.up.delete('e-1');
  loop.podStatus.set('e-1', CRASHING);
  for (let i = 0; i < 3; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + (27 + i) * 60_000);
    await loop.step();
    t.notMatch(
      condition(loop.last, 'Upgrading') ?? {},
      { reason: 'UpgradeFailed' },
      `sync ${i + 1}: no failed upgrade`,
    );
  }
  t.notOk((loop.s() as any).upgradeFailed);
  t.equal(images(loop)['e-1'], 'quay.io/coreos/etcd:v3.5.1', 'kept on the version it served');
});
