// The status's unhealthy clock of the upgraded member recorded ahead of the hook's clock (written by a metaops
// replica whose clock ran ahead, then corrected by NTP; restored from a backup of the object taken later): a clock
// is never read as later than now. A member whose etcd keeps exiting on the new version still fails the upgrade
// within a minute of its exits, not once the wall clock has caught up with the recorded time (an hour here).
import t from 'tap';
import { CRASHING, images, running, upgradeFirst } from '../fixtures/etcd-loop.js';

const ON = 'quay.io/coreos/etcd:v3.5.1';

t.test('an unhealthy clock recorded ahead of now does not put off a failed upgrade', async (t) => {
  const loop = await running({ size: 3 });
  const up = await upgradeFirst(loop);
  const moved = up.moved!;
  t.ok(moved, `a member is upgraded in place: ${moved}`);
  loop.etcd.up.delete(moved);
  loop.podStatus.set(moved, { containerStatuses: [{ ...CRASHING.containerStatuses[0], image: ON }] });
  await loop.step();
  const at = loop.now.getTime();
  // The status's clock for it reads an hour ahead.
  const report = loop.s().memberList.find((m: any) => m.name === moved);
  report.unhealthySince = new Date(at + 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  // Its etcd keeps exiting: a sync every 5 s for a minute.
  for (let k = 1; k <= 12; k++) {
    loop.now = new Date(at + k * 5_000);
    await loop.step();
  }
  t.comment(`clock ${JSON.stringify(loop.s().memberList.find((m: any) => m.name === moved)?.unhealthySince)}`);
  t.match(loop.s().upgradeFailed, { member: moved, version: '3.5.1' }, 'the upgrade is failed');
  t.equal(images(loop)[moved], 'quay.io/coreos/etcd:v3.5.0', 'the member is back on 3.5.0');
});
