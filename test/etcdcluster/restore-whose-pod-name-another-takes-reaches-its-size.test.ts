// An EtcdRestore's restored members are answered together (with storage: their claims first, their pods at the next
// sync). Between the answer of their pods and Metacontroller's create, another owner made a pod under one restored
// member's name (StatefulSet web's controller, podManagementPolicy Parallel): that pod's create is refused
// (AlreadyExists), the other restored members are made and start from the snapshot, with etcd's membership of all
// three (the one never made never starts). The restore is not left holding the cluster for good (its old members
// already dropped): the two that started serve, the member that can never start is removed and the cluster reaches
// its size under a name nobody holds; no member pod is answered under the other owner's pod name.
import t from 'tap';
import { clusterIdOf, initialMemberId } from '../../hooks/etcdcommon/identity.js';
import { clusterOf, peerURL } from '../../hooks/etcdcluster/members.js';
import '../../main/operators.js';
import { answeredPod, type Loop, PVC, restoredServe, restoreObject, running } from '../fixtures/etcd-loop.js';
import { statefulSetPod } from '../fixtures/pod-name-holders.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const condition = (s: any, type: string) => (s?.conditions ?? []).find((c: any) => c.type === type);

/** etcd as the restored members made it: every restored member in its membership, those whose pod runs started. */
function restoredMembership(loop: Loop, restored: string[]): void {
  const c = clusterOf(loop.parent(), loop.parent().spec as any);
  const command: string[] = (answeredPod(loop, loop.pods()[0]!)?.['spec'] as any).initContainers.find(
    (s: any) => s.name === 'restore-snapshot',
  ).command;
  const token = command.find((a) => a.startsWith('--initial-cluster-token='))!.split('=')[1]!;
  const running = new Set(loop.pods());
  loop.etcd.members = restored.map((name) => ({
    id: initialMemberId([peerURL(c, name)], token),
    name: running.has(name) ? name : '',
    peerURLs: [peerURL(c, name)],
    clientURLs: [],
    isLearner: false,
  }));
  loop.etcd.clusterId = clusterIdOf(loop.etcd.members.map((m) => m.id));
  for (const p of running) loop.etcd.up.add(p);
}

for (const storage of [false, true])
  t.test(
    `a restore ${storage ? 'with storage ' : ''}one of whose member pod names another owner took between the pods' answer and the create reaches its size`,
    async (t) => {
      const loop = await running({ size: 3, ...(storage ? { pod: { persistentVolumeClaimSpec: PVC } } : {}) });
      loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
      await loop.step(); // Checking
      await loop.step(); // Replacing: the old members are dropped
      loop.etcd.members = [];
      loop.etcd.up.clear();
      await loop.step(); // the restored members (with storage: their claims)
      if (storage) await loop.step(); // their pods
      t.same(loop.pods(), ['e-3', 'e-4', 'e-5'], 'the restored members answered');
      // StatefulSet web's controller made its pod e-5 first: Metacontroller's create of e-5 is refused.
      loop.related.push(statefulSetPod('e-5'));
      const refused = () =>
        (loop.children = loop.children.filter((c) => !(c.kind === 'Pod' && c.metadata.name === 'e-5')));
      refused();
      restoredMembership(loop, ['e-3', 'e-4', 'e-5']);
      const said: string[] = [];
      for (let i = 0; i < 40; i++) {
        loop.now = new Date(FIXED_NOW.getTime() + (i + 1) * 60_000);
        await loop.step();
        refused();
        for (const p of loop.pods()) loop.etcd.up.add(p);
        said.push(`${condition(loop.s(), 'Ready')?.reason}`);
      }
      const reasons = [...new Set(said)].join(', ');
      t.notOk(loop.pods().includes('e-5'), "no member pod answered under the other owner's pod name e-5");
      t.equal(loop.pods().length, 3, `three member pods (pods: ${loop.pods().join(', ')}; Ready reasons: ${reasons})`);
      t.notOk(
        loop.etcd.members.some((m) => m.peerURLs[0]?.startsWith('http://e-5.')),
        `the member e-5, which can never start, is no longer in etcd (calls: ${loop.etcd.calls.join(', ')})`,
      );
      t.equal(loop.s().restore?.phase, 'Restored', `the restore is Restored (${JSON.stringify(loop.s().restore)})`);
      t.equal(condition(loop.s(), 'Ready')?.status, 'True', `Ready (${JSON.stringify(condition(loop.s(), 'Ready'))})`);
    },
  );

// With storage, the pod name taken between the claims' answer and the pods' answer: no pod of the restore was made,
// so none holds more than the snapshot; the restore starts again under names nobody holds (as when a claim name is
// taken: restore-whose-claim-name-another-takes-reaches-its-size-under-free-names).
t.test(
  "a restore with storage one of whose member pod names another owner took before its pods' answer is restored under names nobody holds",
  async (t) => {
    const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
    loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
    await loop.step(); // Checking
    await loop.step(); // Replacing: the old members are dropped
    loop.etcd.members = [];
    loop.etcd.up.clear();
    await loop.step(); // the restored members' claims
    t.same(loop.claims(), ['e-3', 'e-4', 'e-5'], "the restored members' claims answered first");
    loop.related.push(statefulSetPod('e-5'));
    const refused = () =>
      (loop.children = loop.children.filter((c) => !(c.kind === 'Pod' && c.metadata.name === 'e-5')));
    const said: string[] = [];
    const pods = new Set<string>();
    for (let i = 0; i < 30; i++) {
      loop.now = new Date(FIXED_NOW.getTime() + (i + 1) * 60_000);
      await loop.step();
      refused();
      for (const p of loop.pods()) pods.add(p);
      if (loop.etcd.members.length === 0 && loop.pods().length > 0) restoredServe(loop);
      said.push(`${condition(loop.s(), 'Ready')?.reason}`);
    }
    const reasons = [...new Set(said)].join(', ');
    t.same([...pods].sort(), ['e-6', 'e-7', 'e-8'], `the restored member pods made (Ready reasons: ${reasons})`);
    t.same(loop.claims(), ['e-6', 'e-7', 'e-8'], 'their claims; those of the names given up went with no pod on them');
    t.equal(loop.s().restore?.phase, 'Restored', `the restore is Restored (${JSON.stringify(loop.s().restore)})`);
    t.equal(condition(loop.s(), 'Ready')?.status, 'True', `Ready (${JSON.stringify(condition(loop.s(), 'Ready'))})`);
  },
);
