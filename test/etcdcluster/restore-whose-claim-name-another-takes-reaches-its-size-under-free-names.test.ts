// An EtcdRestore of a cluster with storage (spec.pod.persistentVolumeClaimSpec): the old members are dropped
// (Replacing), then the restored members' claims are answered first and their pods at the next sync (a member pod is
// answered only once its claim is observed as the cluster's own). Between that answer and Metacontroller's create,
// another owner made a PersistentVolumeClaim under one restored member's name (a StatefulSet `x` of template `data`
// names its claims `data-x-<i>`): that claim's create is refused (AlreadyExists) and never becomes the cluster's.
//
// Had the name been taken before the restore's answer, the restore gives its members the next names nobody holds and
// the cluster is restored (the control case below). Taken in the meantime, the restore is not left holding the
// cluster for good with no member at all (its old members already dropped): as a member added whose claim name another
// owner takes (member-added-whose-claim-name-another-takes-never-serves-on-it), it reaches its size under names nobody
// holds, and no member pod is answered on the other owner's claim.
import t from 'tap';
import '../../main/operators.js';
import { mountedForeign, PVC, restoreObject, restoredServe, running, statefulSetClaim } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const condition = (s: any, type: string) => (s?.conditions ?? []).find((c: any) => c.type === type);

for (const before of [false, true])
  t.test(
    `a restore one of whose member claim names another owner took ${before ? 'before its answer' : 'between its answer and the create'} is restored under names nobody holds`,
    async (t) => {
      const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
      loop.related = [restoreObject('r', '2026-07-01T00:00:00Z'), ...(before ? [statefulSetClaim('e-5')] : [])];
      await loop.step(); // Checking
      await loop.step(); // Replacing: the old members are dropped
      loop.etcd.members = [];
      loop.etcd.up.clear();
      await loop.step(); // the restored members' claims
      if (!before) {
        t.same(loop.claims(), ['e-3', 'e-4', 'e-5'], "the restored members' claims answered first");
        // StatefulSet x's controller made its claim e-5 first: Metacontroller's create of e-5 is refused.
        loop.related.push(statefulSetClaim('e-5'));
      }
      // Claims answered under a name another owner's claim holds are not created: never observed as the cluster's.
      const refused = () =>
        (loop.children = loop.children.filter(
          (c) => !(c.kind === 'PersistentVolumeClaim' && c.metadata.name === 'e-5'),
        ));
      refused();
      const said: string[] = [];
      const onForeign: string[] = [];
      for (let i = 0; i < 30; i++) {
        loop.now = new Date(FIXED_NOW.getTime() + (i + 1) * 60_000);
        await loop.step();
        refused();
        onForeign.push(...mountedForeign(loop));
        // The restored members that were made start from the snapshot and serve.
        if (loop.etcd.members.length === 0 && loop.pods().length > 0) restoredServe(loop);
        said.push(`${condition(loop.s(), 'Ready')?.reason}`);
      }
      const reasons = [...new Set(said)].join(', ');
      t.same(onForeign, [], "no member pod answered on the other owner's claim e-5");
      t.equal(loop.pods().length, 3, `three member pods (pods: ${loop.pods().join(', ')}; Ready reasons: ${reasons})`);
      t.equal(loop.s().restore?.phase, 'Restored', `the restore is Restored (${JSON.stringify(loop.s().restore)})`);
      t.equal(
        condition(loop.s(), 'Ready')?.status,
        'True',
        `Ready within 30 minutes (${JSON.stringify(condition(loop.s(), 'Ready'))})`,
      );
    },
  );
