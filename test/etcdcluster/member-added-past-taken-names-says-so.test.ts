// A new member takes the lowest ordinal above the last one given out whose names no other owner holds, among the
// names the customize answer in use asked for (hooks/etcdcluster/names.ts memberOrdinals, plan/members.ts
// nextOrdinal), and says which names it skipped and who holds them: in the Scaling condition while it adds, and in
// its MemberAdded Event. A name taken for the member's claim counts as for its pod; when every name asked for is
// taken, the cluster is held for the next one as before (PodNameTaken); a status lost after the skip names members
// from the highest ordinal seen, never again the skipped one.
import t from 'tap';
import type { EventSpec } from '../../lib/events.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import '../../main/operators.js';
import { etcdSync } from '../fixtures/hooks.js';
import { GROUPS, type Loop, PVC, running } from '../fixtures/etcd-loop.js';
import { PODSET_API, podsetWeb } from '../fixtures/pod-name-holders.js';
import { objectMap } from '../fixtures/requests.js';

const ready = (s: any) => (s.conditions ?? []).find((c: any) => c.type === 'Ready');

/** An object of `kind` named `name`, held by PodSet web (a pod) or by nobody (made by hand). */
function held(kind: 'Pod' | 'PersistentVolumeClaim', name: string, byPodSet: boolean): KubeObject {
  return {
    apiVersion: 'v1',
    kind,
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-other-${kind}-${name}`,
      ...(byPodSet
        ? {
            labels: { 'app.kubernetes.io/name': 'podset', 'app.kubernetes.io/instance': 'web', app: 'web' },
            ownerReferences: [
              { apiVersion: PODSET_API, kind: 'PodSet', name: 'web', uid: 'uid-web', controller: true },
            ],
          }
        : {}),
    },
    ...(kind === 'Pod' ? { status: { phase: 'Running' } } : {}),
  } as unknown as KubeObject;
}

/** One sync of the loop, its Events noted. */
async function step(loop: Loop, events: EventSpec[]): Promise<void> {
  loop.now = new Date(loop.now.getTime() + 60_000);
  loop.last = await etcdSync(
    {
      controller: {},
      parent: loop.parent(),
      children: objectMap(loop.observed(), 'v1', GROUPS),
      related: objectMap(loop.related, 'v1', ['EtcdRestore.etcd.database.coreos.com/v1beta2', 'Secret.v1']),
    },
    { etcd: loop.etcd, now: loop.now, image: loop.image, note: (e) => events.push(e) },
  );
  loop.status = loop.last.status as Record<string, unknown>;
  loop.children = loop.last.children;
}

const messages = (loop: Loop) => ((loop.s()?.conditions ?? []) as any[]).map((c) => `${c.reason}: ${c.message}`);

t.test('the member added past a name a PodSet holds says which it skipped and who holds it', async (t) => {
  const loop = await running({ size: 3 }, 'web-pod');
  loop.related.push(podsetWeb, held('Pod', 'web-pod-3', true));
  loop.lose('web-pod-2');
  const events: EventSpec[] = [];
  const said: string[] = [];
  for (let i = 0; i < 8; i++) {
    await step(loop, events);
    said.push(...messages(loop));
  }
  t.same(loop.pods(), ['web-pod-0', 'web-pod-1', 'web-pod-4'], 'web-pod-4 replaces web-pod-2');
  t.equal(loop.s().lastMemberIndex, 4, 'the last ordinal given out is the one taken');
  t.ok(
    said.some((m) => /adding member web-pod-4.*skipped 1 member name.*Pod web-pod-3 belongs to PodSet web/.test(m)),
    'the Scaling condition names the skipped name and its holder',
  );
  const added = events.find((e) => e.reason === 'MemberAdded');
  t.match(
    added?.note,
    /^added member web-pod-4 as a learner; skipped 1 member name.*Pod web-pod-3 belongs to PodSet web/,
  );
  t.ok(added!.note.length < 1024, 'the note fits an Event');

  // The new member starts (it answers), and is promoted.
  loop.etcd.up.add('web-pod-4');
  for (let i = 0; i < 3; i++) await step(loop, events);
  t.ok(
    loop.etcd.members.some((m) => m.name === 'web-pod-4' && !m.isLearner),
    'web-pod-4 is a voting member',
  );

  // The status is lost: the members are named from the highest ordinal seen, the skipped name never taken.
  loop.status = undefined;
  await step(loop, events);
  t.equal(loop.s().lastMemberIndex, 4, 'the last ordinal is found again from the members');
  loop.spec = { ...loop.spec, size: 4 };
  for (let i = 0; i < 6; i++) await step(loop, events);
  t.same(loop.pods(), ['web-pod-0', 'web-pod-1', 'web-pod-4', 'web-pod-5'], 'the next member is web-pod-5');
  t.notOk(
    loop.etcd.calls.includes('add web-pod-3'),
    `web-pod-3 is never added (etcd calls: ${loop.etcd.calls.join(', ')})`,
  );
});

t.test("with storage, a member's claim name held by another owner is skipped as its pod name would be", async (t) => {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } }, 'e');
  loop.related.push(held('PersistentVolumeClaim', 'e-3', false));
  loop.spec = { ...loop.spec, size: 4 };
  const events: EventSpec[] = [];
  for (let i = 0; i < 6; i++) await step(loop, events);
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2', 'e-4'], 'the fourth member is e-4');
  t.notOk(loop.claims().includes('e-3'), 'no claim is answered under the name another owner holds');
  t.ok(loop.claims().includes('e-4'), "the new member's claim is e-4");
  t.match(
    events.find((e) => e.reason === 'MemberAdded')?.note,
    /skipped 1 member name.*PersistentVolumeClaim e-3 belongs to no controller/,
  );
});

t.test('every member name the answer asked for taken: held for the next one, as before', async (t) => {
  const loop = await running({ size: 3 }, 'e');
  // The answer in use asked for ordinals up to 71 (names.ts: NAMES_AHEAD past the last one, -1 when it was asked).
  const asked = (loop.s().namesAskedWith as { lastMemberIndex: number }).lastMemberIndex + 72;
  for (let i = 3; i <= asked; i++) loop.related.push(held('Pod', `e-${i}`, false));
  loop.spec = { ...loop.spec, size: 4 };
  const events: EventSpec[] = [];
  for (let i = 0; i < 3; i++) await step(loop, events);
  t.match(ready(loop.s()), { status: 'False', reason: 'PodNameTaken', message: /^Pod e-3 belongs to no controller/ });
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'no member is added');
  t.same(loop.etcd.calls, [], 'no membership call');
});
