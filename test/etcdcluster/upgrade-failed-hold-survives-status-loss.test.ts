// An upgrade that failed stops, and stays stopped when Metacontroller sends the EtcdCluster
// without its status (status lost) while spec.version still asks for the version that failed. Each answer fed back
// as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { CRASHING, images, running, upgradeToLast } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';

const condition = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);

async function failedUpgrade(t: any) {
  const loop = await running({ size: 3 });
  const { last, i: next } = await upgradeToLast(loop, (last) => {
    loop.etcd.up.delete(last);
    loop.podStatus.set(last, CRASHING);
  });
  let i = next;
  for (let k = 0; k < 3; k++, i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
    await loop.step();
  }
  t.match(condition(loop.last, 'Upgrading'), { reason: 'UpgradeFailed' }, 'the upgrade failed');
  t.equal(images(loop)[last!], 'quay.io/coreos/etcd:v3.5.0', 'rolled back');
  // The rolled-back member runs 3.5.0 again, healthy.
  loop.podStatus.delete(last!);
  loop.etcd.up.add(last!);
  loop.now = new Date(FIXED_NOW.getTime() + i++ * 60_000);
  await loop.step();
  t.equal(images(loop)[last!], 'quay.io/coreos/etcd:v3.5.0', 'held while the status lasts');
  return { loop, last: last!, i };
}

t.test('status lost after a failed upgrade: the member that failed is not upgraded again', async (t) => {
  const { loop, last, i } = await failedUpgrade(t);
  loop.status = undefined; // Metacontroller sends the parent without its status
  loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
  await loop.step();
  t.equal(images(loop)[last], 'quay.io/coreos/etcd:v3.5.0', `${last} stays on the version that ran`);
  t.notMatch(condition(loop.last, 'Upgrading') ?? {}, { status: 'True' }, 'no upgrade under way again');
});

t.test('status lost again and again: the failing version is tried at most once more', async (t) => {
  const { loop, last, i } = await failedUpgrade(t);
  let attempts = 0;
  for (let k = 0; k < 4; k++) {
    loop.status = undefined;
    loop.now = new Date(FIXED_NOW.getTime() + (i + k) * 60_000);
    await loop.step();
    if (images(loop)[last] === 'quay.io/coreos/etcd:v3.5.1') {
      attempts++;
      // It crashes again on 3.5.1 and is rolled back.
      loop.etcd.up.delete(last);
      loop.podStatus.set(last, CRASHING);
      await loop.step();
      loop.podStatus.delete(last);
      loop.etcd.up.add(last);
    }
  }
  t.ok(attempts <= 1, `the failing version was started ${attempts} more times`);
});
