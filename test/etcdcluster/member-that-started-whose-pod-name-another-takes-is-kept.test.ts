// The other side of member-added-whose-pod-name-another-takes-is-replaced: a member that started (etcd gave it its
// name: it joined, and its claim holds its data) whose pod is gone and whose pod name another owner then took is never
// removed for it. That is doubt: the member is kept, no membership call is made, and the cluster is held, saying who
// holds the name.
import t from 'tap';
import '../../main/operators.js';
import { etcdSync } from '../fixtures/hooks.js';
import { GROUPS, type Loop, running } from '../fixtures/etcd-loop.js';
import { objectMap } from '../fixtures/requests.js';
import { statefulSetPod } from '../fixtures/pod-name-holders.js';

const ready = (s: any) => (s.conditions ?? []).find((c: any) => c.type === 'Ready');

async function step(loop: Loop, generation: number): Promise<void> {
  loop.now = new Date(loop.now.getTime() + 60_000);
  const parent = loop.parent();
  parent.metadata.generation = generation;
  loop.last = await etcdSync(
    {
      controller: {},
      parent,
      children: objectMap(loop.observed(), 'v1', GROUPS),
      related: objectMap(loop.related, 'v1', ['EtcdRestore.etcd.database.coreos.com/v1beta2', 'Secret.v1']),
    },
    { etcd: loop.etcd, now: loop.now, image: loop.image },
  );
  loop.status = loop.last.status as Record<string, unknown>;
  const others = new Set(loop.related.filter((o) => o.kind === 'Pod').map((o) => o.metadata.name));
  loop.children = loop.last.children.filter((c) => !(c.kind === 'Pod' && others.has(c.metadata.name)));
}

t.test('a learner that started, its pod gone and its name taken, is kept and the cluster held', async (t) => {
  const storage = {
    persistentVolumeClaimSpec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  };
  const loop = await running({ size: 3, pod: storage }, 'web');
  loop.spec = { ...loop.spec, size: 4 };
  await step(loop, 2);
  t.ok(loop.etcd.calls.includes('add web-3'), `web-3 is added (calls: ${loop.etcd.calls.join(', ')})`);
  t.ok(loop.claims().includes('web-3'), `its claim is made (claims: ${loop.claims().join(', ')})`);
  // web-3's etcd starts and joins (etcd gives it its name); then its pod is lost and a StatefulSet's pod takes the name.
  const member = loop.etcd.members.find((m) => m.peerURLs[0]?.startsWith('http://web-3.'))!;
  member.name = 'web-3';
  loop.children = loop.children.filter((c) => !(c.kind === 'Pod' && c.metadata.name === 'web-3'));
  loop.related = [statefulSetPod('web-3')];
  const before = loop.etcd.calls.length;
  for (let i = 0; i < 20; i++) await step(loop, 2);
  t.same(loop.etcd.calls.slice(before), [], 'no membership call');
  t.ok(
    loop.etcd.members.some((m) => m.id === member.id),
    'the member that started is still in etcd',
  );
  t.ok(loop.claims().includes('web-3'), 'its claim is kept');
  t.match(ready(loop.s()), { status: 'False', reason: 'PodNameTaken', message: /StatefulSet web/ }, 'held, saying who');
});
