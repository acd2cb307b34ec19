// A member added under a name no other owner held when the sync looked (names.ts memberOrdinals) whose pod another
// parent created first, between the sync's look and Metacontroller's create (its related objects are an informer's
// cache, a StatefulSet `web` of another tool scaled up at the same moment), is a member of etcd that never starts: its pod cannot be created.
// The cluster does not stay held on it for good with that member in its membership: the member that never started
// is removed and the cluster goes on to its size under the next name nobody holds.
import t from 'tap';
import type { EventSpec } from '../../lib/events.js';
import '../../main/operators.js';
import { etcdSync } from '../fixtures/hooks.js';
import { GROUPS, type Loop, running } from '../fixtures/etcd-loop.js';
import { objectMap } from '../fixtures/requests.js';
import { statefulSetPod } from '../fixtures/pod-name-holders.js';

const ready = (s: any) => (s.conditions ?? []).find((c: any) => c.type === 'Ready');

/** The generation of each spec, as the API server counts them (the loop's parent is always at 1). */
const generations = new Map<Loop, { spec: string; generation: number }>();

async function step(loop: Loop, events: EventSpec[]): Promise<void> {
  loop.now = new Date(loop.now.getTime() + 60_000);
  const parent = loop.parent();
  const seen = generations.get(loop) ?? { spec: JSON.stringify(loop.spec), generation: 1 };
  if (seen.spec !== JSON.stringify(loop.spec))
    generations.set(loop, { spec: JSON.stringify(loop.spec), generation: seen.generation + 1 });
  else generations.set(loop, seen);
  parent.metadata.generation = generations.get(loop)!.generation;
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
  // Pods answered that another owner's pod already holds are not created (AlreadyExists): not observed.
  const others = new Set(loop.related.filter((o) => o.kind === 'Pod').map((o) => o.metadata.name));
  loop.children = loop.children.filter((c) => !(c.kind === 'Pod' && others.has(c.metadata.name)));
  // The member pods created start and answer.
  for (const c of loop.children) if (c.kind === 'Pod') loop.etcd.up.add(c.metadata.name!);
}

/**
 * Cluster web of three asked for four: one sync adds member web-3; between the sync's look and the create,
 * StatefulSet web's controller made its pod web-3 (the cluster's pod web-3 is not created).
 */
async function web3TakenOnceAdded(): Promise<{ loop: Loop; events: EventSpec[] }> {
  const loop = await running({ size: 3 }, 'web');
  generations.set(loop, { spec: JSON.stringify(loop.spec), generation: 1 });
  loop.related = [];
  loop.spec = { ...loop.spec, size: 4 };
  const events: EventSpec[] = [];
  await step(loop, events);
  loop.related.push(statefulSetPod('web-3'));
  loop.children = loop.children.filter((c) => !(c.kind === 'Pod' && c.metadata.name === 'web-3'));
  return { loop, events };
}

t.test(
  'a member whose pod name a StatefulSet took in the meantime is removed and the cluster reaches its size',
  async (t) => {
    const { loop, events } = await web3TakenOnceAdded();
    t.ok(loop.etcd.calls.includes('add web-3'), `web-3 is added (calls: ${loop.etcd.calls.join(', ')})`);
    const said: string[] = [];
    for (let i = 0; i < 40; i++) {
      await step(loop, events);
      const r = ready(loop.s());
      said.push(`${r?.reason}`);
    }
    const voting = loop.etcd.members.filter((m) => !m.isLearner).length;
    t.notOk(
      loop.etcd.members.some((m) => m.peerURLs[0]?.startsWith('http://web-3.')),
      `the member for web-3, which can never start, is no longer in etcd (members: ${loop.etcd.members
        .map((m) => `${m.peerURLs[0]?.split('.')[0]}${m.isLearner ? '(learner)' : ''}`)
        .join(', ')}; calls: ${loop.etcd.calls.join(', ')}; Ready reasons: ${[...new Set(said)].join(', ')})`,
    );
    t.equal(loop.pods().length, 4, `four member pods (${loop.pods().join(', ')})`);
    t.equal(voting, 4, 'four voting members');
    t.equal(ready(loop.s())?.status, 'True', `Ready (${JSON.stringify(ready(loop.s()))})`);
  },
);

t.test('held on that member, a size put back to what it was still removes it', async (t) => {
  const { loop, events } = await web3TakenOnceAdded();
  for (let i = 0; i < 3; i++) await step(loop, events);
  // The user sees the cluster held and gives up the fourth member.
  loop.spec = { ...loop.spec, size: 3 };
  for (let i = 0; i < 20; i++) await step(loop, events);
  t.same(
    loop.etcd.members.map((m) => m.peerURLs[0]?.split('.')[0]),
    ['http://web-0', 'http://web-1', 'http://web-2'],
    `only the three running members are in etcd (calls: ${loop.etcd.calls.join(', ')}; Ready: ${JSON.stringify(
      ready(loop.s()),
    )})`,
  );
  t.equal(ready(loop.s())?.status, 'True', 'Ready');
});
