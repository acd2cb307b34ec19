// Metacontroller keeps a parent's customize answer for its generation, and an EtcdCluster's answer asks for the member
// names NAMES_AHEAD ordinals past status.lastMemberIndex as of the generation's first sync (names.ts). A cluster whose
// spec has not changed while it replaced members (nodes rotated, members that stayed unhealthy) comes close to the
// last name that answer asked for. An EtcdRestore then passes its check and drops every running member; its restored
// members take the next ordinals, past what the answer asked for, so they are held (MemberNameNotChecked) and never
// made: the cluster is left with no member at all, Replacing for good (its restore deadline never ends it: a held
// sync keeps the status as it was), until someone changes the spec. A restore checks before it acts: one whose
// restored members cannot be made under names this generation checked does not drop the running members, and a
// restore held after the drop still ends by its deadline (RestoreFailed), never Replacing for good.
import t, { type Test } from 'tap';
import { RESTORE_SECONDS } from '../../hooks/etcdcluster/restore.js';
import { NAMES_AHEAD } from '../../hooks/etcdcluster/names.js';
import { type Loop, restoreObject, running } from '../fixtures/etcd-loop.js';

const ready = (loop: Loop) =>
  (loop.s().conditions as Array<Record<string, unknown>>).find((c) => c['type'] === 'Ready');
const ordinal = (p: string) => Number(p.slice(2));

/** The member with the highest ordinal is lost (pod and etcd member); syncs until its replacement runs. */
async function replaceOne(loop: Loop): Promise<void> {
  const victim = loop
    .pods()
    .sort((a, b) => ordinal(a) - ordinal(b))
    .at(-1)!;
  loop.lose(victim);
  loop.etcd.members = loop.etcd.members.filter((m) => !m.peerURLs[0]!.includes(`//${victim}.`));
  for (let i = 0; i < 3; i++) {
    await loop.step();
    for (const p of loop.pods()) loop.etcd.up.add(p);
  }
}

/** A cluster of three whose generation's answer asked for names up to e-(NAMES_AHEAD-1), members replaced up to e-70. */
async function nearTheLastAskedName(t: Test): Promise<Loop> {
  const loop = await running({ size: 3 });
  t.equal(loop.s().namesAskedWith?.lastMemberIndex, -1, 'the answer of generation 1 was asked at its creation');
  for (let i = 0; i < 80 && (loop.s().lastMemberIndex ?? 0) < NAMES_AHEAD - 2; i++) await replaceOne(loop);
  t.equal(loop.s().lastMemberIndex, NAMES_AHEAD - 2, `members replaced up to e-${NAMES_AHEAD - 2}, the spec unchanged`);
  t.equal(loop.pods().length, 3, 'three members run');
  t.not(ready(loop)?.['reason'], 'MemberNameNotChecked', 'the cluster is not held');
  return loop;
}

t.test('a restore whose restored members cannot be named does not drop the running members', async (t) => {
  const loop = await nearTheLastAskedName(t);
  const members = loop.pods();
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  for (let i = 0; i < 6; i++) {
    await loop.step();
    if (loop.s().restore?.phase === 'Replacing') {
      loop.etcd.members = [];
      loop.etcd.up.clear();
    }
    const held = ready(loop)?.['reason'] === 'MemberNameNotChecked';
    t.notOk(
      held && loop.pods().length === 0,
      `sync ${i + 1}: not held for member names with every member dropped (restore ${loop.s().restore?.phase}, pods ${JSON.stringify(loop.pods())}, was ${JSON.stringify(members)})`,
    );
  }
});

t.test('a restore held for member names after its drop still ends by its deadline', async (t) => {
  const loop = await nearTheLastAskedName(t);
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  for (let i = 0; i < 3; i++) {
    await loop.step();
    if (loop.s().restore?.phase === 'Replacing') {
      loop.etcd.members = [];
      loop.etcd.up.clear();
    }
  }
  loop.now = new Date(loop.now.getTime() + (RESTORE_SECONDS + 60) * 1000);
  await loop.step();
  await loop.step();
  t.not(
    loop.s().restore?.phase,
    'Replacing',
    `past the restore deadline (${RESTORE_SECONDS} s) it is not Replacing for good`,
  );
});
