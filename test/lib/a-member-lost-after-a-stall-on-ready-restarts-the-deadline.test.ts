// The previous answer counted every member it wanted (replicas 5, ready "4/5") and said ProgressDeadlineExceeded: a
// member made and never Ready. That member is now lost (4 of 5 exist): members start missing in this sync, so the
// deadline counts from here (as a Deployment's clock restarts), and this sync is not past it: Progressing=True
// ScalingUp, its lastUpdateTime now. Where the previous answer already missed a member (replicas 4 of 5), nothing
// starts missing and the deadline it passed stays passed.
import t from 'tap';
import type { ParentObject } from '../../lib/metacontroller.js';
import { memberStatus, PROGRESS_DEADLINE_SECONDS, type ReplicaCounts } from '../../lib/replicas.js';

const T0 = Date.parse('2026-01-02T03:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000);
const iso = (s: number) => at(s).toISOString().replace('.000Z', 'Z');
const counts = (current: number, ready: number): ReplicaCounts => ({ desired: 5, current, ready, exists: true });
const parent = (status: unknown): ParentObject =>
  ({ apiVersion: 'x/v1', kind: 'X', metadata: { name: 'x', generation: 1 }, status }) as ParentObject;
const progressing = (status: { conditions?: unknown }) =>
  (status.conditions as Array<Record<string, unknown>>).find((c) => c.type === 'Progressing')!;
/** A previous answer past the deadline with `replicas` of 5 members existing, 4 Ready. */
const stalledWith = (replicas: number) => ({
  replicas,
  readyReplicas: 4,
  ready: '4/5',
  conditions: [
    {
      type: 'Progressing',
      status: 'False',
      reason: 'ProgressDeadlineExceeded',
      message: '4 of 5 members are Ready after more than 600 s without progress',
      lastTransitionTime: iso(PROGRESS_DEADLINE_SECONDS + 10),
    },
  ],
});
const now = 2 * PROGRESS_DEADLINE_SECONDS;

t.test('every member existed, one is lost: members start missing, the deadline restarts now', async (t) => {
  const s = memberStatus(parent(stalledWith(5)), counts(4, 4), [], at(now));
  t.match(progressing(s), { status: 'True', reason: 'ScalingUp', lastUpdateTime: iso(now) });
});

t.test('a member already missing stays missing: the deadline it passed stays passed', async (t) => {
  const s = memberStatus(parent(stalledWith(4)), counts(4, 4), [], at(now));
  t.match(progressing(s), { status: 'False', reason: 'ProgressDeadlineExceeded' });
});
