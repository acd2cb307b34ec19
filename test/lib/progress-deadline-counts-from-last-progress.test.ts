// The progress deadline of the replicated kinds (lib/replicas.ts memberStatus): members missing (Creating,
// ScalingUp) for PROGRESS_DEADLINE_SECONDS without progress are Progressing=False ProgressDeadlineExceeded. Progress
// (more members exist, more Ready, more updated than the status said) moves Progressing=True's lastUpdateTime, from
// which the deadline counts; the status is read as untrusted (any field may be malformed).
import t from 'tap';
import type { ParentObject } from '../../lib/metacontroller.js';
import { memberStatus, PROGRESS_DEADLINE_SECONDS, type ReplicaCounts } from '../../lib/replicas.js';

const T0 = Date.parse('2026-01-02T03:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000);
const iso = (s: number) => at(s).toISOString().replace('.000Z', 'Z');
const counts = (current: number, ready = current, updated?: number): ReplicaCounts => ({
  desired: 5,
  current,
  ready,
  exists: true,
  ...(updated === undefined ? {} : { updated }),
});
const parent = (status: unknown): ParentObject =>
  ({ apiVersion: 'x/v1', kind: 'X', metadata: { name: 'x', generation: 1 }, status }) as ParentObject;
const progressing = (status: { conditions?: unknown }) =>
  (status.conditions as Array<Record<string, unknown>>).find((c) => c.type === 'Progressing')!;
/** A status as the previous answer wrote it: these counts, and Progressing as given. */
const written = (c: Record<string, unknown>, cond: Record<string, unknown>) => ({
  replicas: 3,
  readyReplicas: 3,
  ...c,
  conditions: [{ type: 'Progressing', reason: 'ScalingUp', message: '', ...cond }],
});
const late = PROGRESS_DEADLINE_SECONDS + 100;

t.test('the deadline counts from lastUpdateTime, never from before lastTransitionTime', async (t) => {
  const moved = written({}, { status: 'True', lastTransitionTime: iso(0), lastUpdateTime: iso(200) });
  const s = memberStatus(parent(moved), counts(3), [], at(late));
  t.match(
    progressing(s),
    { status: 'True', reason: 'ScalingUp', lastUpdateTime: iso(200) },
    'not yet: kept as written',
  );
  t.match(progressing(memberStatus(parent(moved), counts(3), [], at(200 + late))), {
    status: 'False',
    reason: 'ProgressDeadlineExceeded',
  });
  const before = written({}, { status: 'True', lastTransitionTime: iso(200), lastUpdateTime: iso(0) });
  const b = memberStatus(parent(before), counts(3), [], at(late));
  t.match(
    progressing(b),
    { status: 'True', lastUpdateTime: iso(200) },
    'an update time before the transition: the transition',
  );
});

t.test('a lastUpdateTime that is no time reads as the transition, without throwing', async (t) => {
  for (const bad of [{ toString: 1 }, 'yesterday', 7, null]) {
    const s = memberStatus(
      parent(written({}, { status: 'True', lastTransitionTime: iso(0), lastUpdateTime: bad })),
      counts(3),
      [],
      at(60),
    );
    t.match(progressing(s), { status: 'True', lastUpdateTime: iso(0) }, JSON.stringify(bad) ?? 'undefined');
    t.match(
      progressing(
        memberStatus(
          parent(written({}, { status: 'True', lastTransitionTime: iso(0), lastUpdateTime: bad })),
          counts(3),
          [],
          at(late),
        ),
      ),
      { status: 'False', reason: 'ProgressDeadlineExceeded' },
    );
  }
});

t.test(
  'a member made, one more Ready or one more updated is progress; counts that are no numbers are none',
  async (t) => {
    const old = { status: 'True', lastTransitionTime: iso(0), lastUpdateTime: iso(0) };
    for (const [what, c] of [
      ['one more made', counts(4, 3)],
      ['one more Ready', counts(3, 4)],
      ['one more updated', counts(3, 3, 2)],
    ] as const) {
      const s = memberStatus(parent(written({ updatedReplicas: 1 }, old)), c, [], at(late));
      t.match(progressing(s), { status: 'True', lastUpdateTime: iso(late) }, what);
    }
    for (const bad of ['3', { toString: 1 }, null]) {
      const s = memberStatus(parent(written({ replicas: bad, readyReplicas: bad }, old)), counts(4), [], at(late));
      t.match(
        progressing(s),
        { status: 'False', reason: 'ProgressDeadlineExceeded' },
        `replicas ${JSON.stringify(bad)}`,
      );
    }
    const fewer = memberStatus(parent(written({}, old)), counts(2, 2), [], at(late));
    t.match(progressing(fewer), { status: 'False', reason: 'ProgressDeadlineExceeded' }, 'fewer is no progress');
  },
);

t.test('once exceeded, said until progress is made again, then True with the time of that progress', async (t) => {
  const exceeded = written({}, { status: 'False', reason: 'ProgressDeadlineExceeded', lastTransitionTime: iso(late) });
  t.match(progressing(memberStatus(parent(exceeded), counts(3), [], at(3 * late))), {
    status: 'False',
    reason: 'ProgressDeadlineExceeded',
  });
  const again = progressing(memberStatus(parent(exceeded), counts(4), [], at(3 * late)));
  t.match(again, {
    status: 'True',
    reason: 'ScalingUp',
    lastTransitionTime: iso(3 * late),
    lastUpdateTime: iso(3 * late),
  });
});

t.test('no lastUpdateTime on a condition that is not Progressing=True', async (t) => {
  const s = memberStatus(parent(written({ replicas: 5, readyReplicas: 5 }, { status: 'True' })), counts(5), [], at(10));
  t.match(progressing(s), { status: 'False', reason: 'Complete' });
  t.notOk('lastUpdateTime' in progressing(s));
  t.notOk(
    (s.conditions as Array<Record<string, unknown>>).some((c) => c.type !== 'Progressing' && 'lastUpdateTime' in c),
    'nor on the others',
  );
});

t.test('the deadline counts from when members started missing, not from progress made before', async (t) => {
  // Waiting for Ready (all exist) since 0, no progress since: then a member is missing at `late`.
  for (const reason of ['WaitingForReady', 'Updating', 'ScalingDown']) {
    const waiting = written(
      { replicas: 5, readyReplicas: 4 },
      { status: 'True', reason, lastTransitionTime: iso(0), lastUpdateTime: iso(0) },
    );
    const lost = memberStatus(parent(waiting), counts(4, 4), [], at(late));
    t.match(
      progressing(lost),
      { status: 'True', reason: 'ScalingUp', lastTransitionTime: iso(0), lastUpdateTime: iso(late) },
      `${reason}, then a member missing: its clock starts now`,
    );
    t.same(
      memberStatus(parent(lost), counts(4, 4), [], at(late + 60)),
      memberStatus(parent(lost), counts(4, 4), [], at(late + 60)),
    );
    const kept = memberStatus(parent(lost), counts(4, 4), [], at(late + 60));
    t.match(progressing(kept), { status: 'True', lastUpdateTime: iso(late) }, 'then kept as written (quiet at rest)');
    t.match(
      progressing(memberStatus(parent(kept), counts(4, 4), [], at(late + PROGRESS_DEADLINE_SECONDS + 1))),
      { status: 'False', reason: 'ProgressDeadlineExceeded' },
      'a true stall still says it, counted from then',
    );
  }
  const creating = written(
    {},
    { status: 'True', reason: 'Creating', lastTransitionTime: iso(0), lastUpdateTime: iso(0) },
  );
  t.match(
    progressing(memberStatus(parent(creating), counts(3), [], at(late))),
    { status: 'False', reason: 'ProgressDeadlineExceeded' },
    'Creating then ScalingUp: members missing all along, the clock goes on',
  );
});

t.test('members being deleted are named past the deadline, bounded, with the way out', async (t) => {
  const old = written({}, { status: 'True', lastTransitionTime: iso(0), lastUpdateTime: iso(0) });
  const msg = (going: string[], current = 3) =>
    progressing(memberStatus(parent(old), counts(current), [], at(late), { going })).message as string;
  t.match(msg(['x-1', 'x-0']), /pods x-0, x-1 are being deleted .*kubectl delete pod --force/);
  t.notMatch(msg(['x-1', 'x-0']), /creating the others fails/, 'both missing members explained');
  t.match(msg(['x-1']), /pod x-1 is being deleted.*; creating the others fails/, 'one of two: the other refused');
  t.match(msg(['a', 'b', 'c', 'd', 'e'], 0), /pods a, b, c and 2 more are being deleted/);
  t.match(msg([]), /creating the others fails/);
});
