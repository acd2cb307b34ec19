// A member added under a name no other owner held when the sync looked, with storage (spec.pod.
// persistentVolumeClaimSpec): its pod and its claim are answered together. Between the sync's look and
// Metacontroller's create another owner made a PersistentVolumeClaim of the member's name (a StatefulSet `x` whose
// volumeClaimTemplate is `data` names its claims `data-x-<i>`, EtcdCluster `data-x`'s member claims). Metacontroller
// creates what it can of an answer (a create that fails does not stop the others): the claim is refused
// (AlreadyExists), the pod is made and mounts the claim of that name, the other owner's volume.
//
// The cluster neither keeps a member on a claim that is not its own nor stays held for good with a member in its
// membership that it cannot serve: as with a pod name taken (member-added-whose-pod-name-another-takes-is-replaced),
// the member goes and the cluster reaches its size under names nobody holds.
import t from 'tap';
import type { EventSpec } from '../../lib/events.js';
import '../../main/operators.js';
import { etcdSync } from '../fixtures/hooks.js';
import { GROUPS, type Loop, mountedForeign, PVC, running, statefulSetClaim } from '../fixtures/etcd-loop.js';
import { objectMap } from '../fixtures/requests.js';

const ready = (s: any) => (s.conditions ?? []).find((c: any) => c.type === 'Ready');

/** Pods that do not start (Pending: the other owner's volume is bound on a node this pod cannot run on). */
const pending = new Set<string>();

async function step(loop: Loop, events: EventSpec[]): Promise<void> {
  loop.now = new Date(loop.now.getTime() + 60_000);
  const parent = loop.parent();
  loop.last = await etcdSync(
    {
      controller: {},
      parent,
      children: objectMap(loop.observed(), 'v1', GROUPS),
      related: objectMap(loop.related, 'v1', ['EtcdRestore.etcd.database.coreos.com/v1beta2', 'Secret.v1']),
    },
    { etcd: loop.etcd, now: loop.now, image: loop.image, note: (e) => events.push(e) },
  );
  loop.status = loop.last.status as Record<string, unknown>;
  loop.children = loop.last.children;
  // Claims answered that another owner's claim already holds are not created (AlreadyExists): not observed. The pod
  // is created all the same and starts on the claim of its name.
  const others = new Set(loop.related.filter((o) => o.kind === 'PersistentVolumeClaim').map((o) => o.metadata.name));
  loop.children = loop.children.filter((c) => !(c.kind === 'PersistentVolumeClaim' && others.has(c.metadata.name)));
  for (const c of loop.children)
    if (c.kind === 'Pod' && !pending.has(c.metadata.name!)) loop.etcd.up.add(c.metadata.name!);
}

for (const starts of [true, false])
  t.test(
    `a member whose claim name another owner took in the meantime is not kept on that claim (its pod ${starts ? 'starts on it' : 'never starts'})`,
    async (t) => {
      pending.clear();
      if (!starts) pending.add('data-x-3');
      const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } }, 'data-x');
      t.equal(ready(loop.s())?.status, 'True', 'running and Ready before');
      loop.related = [];
      loop.spec = { ...loop.spec, size: 4 };
      const events: EventSpec[] = [];
      await step(loop, events);
      t.ok(loop.etcd.calls.includes('add data-x-3'), `data-x-3 is added (calls: ${loop.etcd.calls.join(', ')})`);
      // Between the sync's look and the create, StatefulSet x's controller made its claim data-x-3.
      loop.related.push(statefulSetClaim('data-x-3'));
      loop.children = loop.children.filter(
        (c) => !(c.kind === 'PersistentVolumeClaim' && c.metadata.name === 'data-x-3'),
      );
      const said: string[] = [];
      const onForeign: string[] = [];
      for (let i = 0; i < 40; i++) {
        await step(loop, events);
        said.push(`${ready(loop.s())?.reason}`);
        onForeign.push(...mountedForeign(loop));
      }
      const reasons = [...new Set(said)].join(', ');
      t.same(
        mountedForeign(loop),
        [],
        `no member pod answered on the other owner's claim data-x-3 (pods: ${loop.pods().join(', ')}; Ready reasons: ${reasons})`,
      );
      t.equal(
        loop.etcd.members.filter((m) => !m.isLearner).length,
        4,
        `four voting members (members: ${loop.etcd.members
          .map((m) => `${m.peerURLs[0]?.split('.')[0]}${m.isLearner ? '(learner)' : ''}`)
          .join(', ')}; calls: ${loop.etcd.calls.join(', ')})`,
      );
      t.equal(ready(loop.s())?.status, 'True', `Ready (${JSON.stringify(ready(loop.s()))})`);
    },
  );
