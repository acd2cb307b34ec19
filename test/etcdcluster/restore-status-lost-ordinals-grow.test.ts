// Issue 30.5, status lost at every step of a restore: "ordinals only grow" (docs/etcdcluster.md), and restored
// members take ordinals after every member the cluster had. When the EtcdCluster's status is lost after a restore
// dropped the old members (Replacing, their pods gone), the hook has no record of them: the new check passes and the
// restored members are named e-0, e-1, e-2 again, the dropped members' names. Member IDs and the cluster ID are made
// from the names and the EtcdCluster's UID (hooks/etcdcommon/identity.ts), so the restored members carry the very
// member IDs and cluster ID of the dropped ones: an old member whose pod was deleted but whose process still runs (a
// node cut off from the API server, its pods "deleted" but not stopped) is taken by the restored cluster as one of
// its own members when the node comes back, with more raft history than the restored data. Ordinals must grow past
// every member ever made, also after a status loss (the EtcdRestore's own record, the claims, the pods' names).
// Each answer fed back as the next observed state (test/fixtures/etcd-loop.ts).
import t from 'tap';
import { restoreHook, restoreObject, running } from '../fixtures/etcd-loop.js';

t.test(
  'a restore whose cluster status is lost after the old members were dropped restores under new names',
  async (t) => {
    const loop = await running({ size: 3 });
    const old = loop.s().memberList.map((m: any) => `${m.name}=${m.id}`);
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2']);
    const r = restoreObject('r', '2026-07-01T00:00:00Z');
    loop.related = [r];
    await loop.step(); // Checking: the check passes (the loop's check pod)
    await loop.step(); // Replacing: the old members are dropped
    t.equal(loop.s().restore.phase, 'Replacing');
    t.same(loop.pods(), [], 'the old members dropped');
    loop.etcd.members = [];
    loop.etcd.up.clear();
    restoreHook(loop, r);
    // The EtcdCluster's status is lost now (a status rewrite, the object restored from a backup of Kubernetes objects).
    loop.status = undefined;
    for (let i = 0; i < 4 && loop.pods().length === 0; i++) {
      await loop.step();
      restoreHook(loop, r);
    }
    t.equal(loop.s().restore?.phase, 'Restoring', 'the restore carries on');
    const names = loop.pods();
    t.equal(names.length, 3, `restored members: ${names.join(', ')}`);
    for (const n of names)
      t.notOk(['e-0', 'e-1', 'e-2'].includes(n), `${n}: not the name (and member ID) of a dropped member (${old})`);
  },
);
