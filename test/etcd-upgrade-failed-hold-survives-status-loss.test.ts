// Attack (issue 30.4): an upgrade that failed stops, and stays stopped when Metacontroller sends the EtcdCluster
// without its status (status lost) while spec.version still asks for the version that failed. Each answer fed back
// as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { running, type Loop } from './fixtures/etcd-loop.js';
import { FIXED_NOW } from './fixtures/requests.js';
import type { CompositeSyncResponse } from '../lib/metacontroller.js';

const condition = (res: CompositeSyncResponse, type: string) =>
  (res.status as any).conditions.find((c: any) => c.type === type);
const images = (loop: Loop) =>
  Object.fromEntries(
    loop.children.filter((c) => c.kind === 'Pod').map((p: any) => [p.metadata.name, p.spec.containers[0].image]),
  ) as Record<string, string>;
const CRASHING = {
  containerStatuses: [{ name: 'etcd', restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } }],
};

async function failedUpgrade(t: any) {
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
  let last: string | undefined;
  let i = 0;
  for (; i < 10 && !last; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
    await loop.step();
    const moved = Object.entries(images(loop)).filter(([, img]) => img.endsWith(':v3.5.1'));
    if (moved.length === 3) {
      last = Object.keys(images(loop)).find(
        (n) => !loop.s().memberList.find((m: any) => m.name === n && m.version === '3.5.1'),
      );
      loop.etcd.up.delete(last!);
      loop.podStatus.set(last!, CRASHING);
    }
  }
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
