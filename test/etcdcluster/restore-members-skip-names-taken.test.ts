// A restore drops every running member and starts `size` restored members together under new, consecutive ordinals
// above the last one. When the next ordinal's name is another owner's (a PodSet `e`... or a pod made by hand named
// `e-3` while the cluster's last member is e-2), the restored members were held (PodNameTaken) after the drop: the
// cluster had no member at all, Replacing for as long as the name stayed taken. They take the lowest run of
// consecutive ordinals above the last whose names no other owner holds, among those the customize answer in use
// asked for (plan/ordinals.ts freeRun); and when no such run was asked for, the running members are not dropped: the
// restore waits at its passed check (MemberNamesHeld=True MemberNameTaken) and ends refused past its deadline.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import '../../main/operators.js';
import { type Loop, restoreObject, restoredServe, running } from '../fixtures/etcd-loop.js';

const ready = (s: any) => (s.conditions ?? []).find((c: any) => c.type === 'Ready');
const condition = (loop: Loop, type: string) => ((loop.s().conditions ?? []) as any[]).find((c) => c.type === type);

/** A pod named `name` made by hand (no controller). */
function byHand(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ns', uid: `uid-by-hand-${name}` },
    status: { phase: 'Running' },
  } as unknown as KubeObject;
}

t.test('the restored members skip a name another owner holds, and the cluster is restored', async (t) => {
  const loop = await running({ size: 3 });
  loop.related.push(byHand('e-4'), restoreObject('r', '2026-07-01T00:00:00Z'));
  for (let i = 0; i < 3; i++) {
    await loop.step();
    if (loop.s().restore?.phase === 'Replacing') {
      loop.etcd.members = [];
      loop.etcd.up.clear();
    }
  }
  t.equal(loop.s().restore?.phase, 'Restoring');
  t.same(loop.pods(), ['e-5', 'e-6', 'e-7'], 'the restored members take the first free run: e-5..e-7 (e-4 taken)');
  t.equal(loop.s().lastMemberIndex, 7);
  t.not(ready(loop.s())?.reason, 'PodNameTaken', 'not held');
  restoredServe(loop);
  for (let i = 0; i < 4; i++) await loop.step();
  t.equal(loop.s().phase, 'Running', 'the restored cluster runs');
  t.same(loop.pods(), ['e-5', 'e-6', 'e-7']);
});

t.test('no free run of names asked for: the running members are not dropped', async (t) => {
  const loop = await running({ size: 3 });
  // The answer in use asked for ordinals up to 71; every third one from e-3 is taken: no three free in a row.
  const asked = (loop.s().namesAskedWith as { lastMemberIndex: number }).lastMemberIndex + 72;
  for (let i = 3; i <= asked; i += 3) loop.related.push(byHand(`e-${i}`));
  loop.related.push(restoreObject('r', '2026-07-01T00:00:00Z'));
  for (let i = 0; i < 4; i++) await loop.step();
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the running members are kept');
  t.not(loop.s().restore?.phase, 'Replacing');
  t.match(condition(loop, 'MemberNamesHeld'), {
    status: 'True',
    reason: 'MemberNameTaken',
    message: /Pod e-3 belongs to no controller/,
  });
});
