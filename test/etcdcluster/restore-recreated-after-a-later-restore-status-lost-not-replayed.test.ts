// An EtcdRestore r restored the cluster; later another EtcdRestore r2 (another snapshot) restored it again, and both
// were deleted as advised. Then the EtcdCluster's status is lost and r is made again under its name with its snapshot
// (a namespace restore of object backups, a GitOps tool that keeps every manifest): the live members carry r2's
// restore record, none carries r's, and the status's history of restores carried out is gone with the status. r was
// carried out already (before r2): a replay would drop r2's members and roll the cluster back to r's older snapshot,
// losing r2's data and every write since. Members restored by another restore are no proof that r is new.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import {
  type Loop,
  restoredServe,
  restoreHook,
  restoreObject,
  restoreStarted,
  running,
} from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const later = (seconds: number) => new Date(FIXED_NOW.getTime() + seconds * 1000);

async function syncAll(loop: Loop, restores: KubeObject[]): Promise<void> {
  await loop.step();
  for (const r of restores) if (typeof (r['status'] as any)?.succeeded !== 'boolean') restoreHook(loop, r);
}

t.test('an EtcdRestore made again under its name after a later restore and a lost status: not replayed', async (t) => {
  const loop = await running({ size: 3 });
  await restoreStarted(loop);
  await loop.step();
  restoredServe(loop);
  const r = loop.related[0]!;
  for (let i = 0; i < 3; i++) await syncAll(loop, [r]);
  t.match(r['status'], { succeeded: true }, 'r restored the cluster');
  // r2, from another snapshot, restores it again.
  const r2 = restoreObject('r2', '2026-07-02T00:00:00Z');
  (r2['spec'] as any).s3.path = 'bucket/ns/snap2.db';
  loop.related = [r, r2];
  loop.check = { succeeded: true };
  for (let i = 0; i < 12 && (r2['status'] as any)?.succeeded !== true; i++) {
    loop.now = later(60 + i * 30);
    await syncAll(loop, [r, r2]);
    if (loop.s().restore?.phase === 'Replacing') {
      loop.etcd.members = [];
      loop.etcd.up.clear();
    }
    if (loop.s().restore?.phase === 'Restoring' && loop.pods().length > 0) restoredServe(loop);
  }
  t.match(r2['status'], { succeeded: true }, 'r2 restored the cluster');
  t.match(loop.s(), { restore: { name: 'r2', phase: 'Restored' } });
  const members = loop.pods();
  // The cluster's status is lost; r is made again under its name with its snapshot, a day later (r and r2 deleted).
  loop.status = undefined;
  const again = restoreObject('r', '2026-07-03T00:00:00Z', undefined, 'uid-r-made-again');
  loop.related = [again];
  for (let i = 0; i < 4; i++) {
    loop.now = later(3600 + i * 60);
    await syncAll(loop, [again]);
    t.same(loop.pods(), members, `sync ${i + 1}: the live members are kept`);
    t.notMatch(
      loop.s().restore?.phase ?? '',
      /^(Replacing|Restoring)$/,
      `sync ${i + 1}: the cluster is not rolled back to r's snapshot`,
    );
  }
});
