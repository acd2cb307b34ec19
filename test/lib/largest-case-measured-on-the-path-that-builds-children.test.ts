// Issue 29, "Done when": "The memory bound holds: for each kind the largest object the CRD accepts, and two at once,
// answered under the Deployment's limit (measured RSS in docs/operating.md)". bench/memory.ts and
// test/lib/budget.test.ts take each kind's largest case from test/<folder>/largest.ts (fixtures/worst.ts) under
// WORST_SETTINGS / WORST_ENV. For the measurement to say anything about the bound, the largest case must be
// answered on the path that builds the kind's children (its Job/CronJob, its restore record, its injection), not
// refused before any work: a refused object costs nothing, so the row in docs/operating.md measures the refusal.
// Today EtcdBackup and EtcdRestore's largest cases are refused by the tenancy rules (issue 29.6: a path outside the
// namespace's prefix, endpoints not on any allowlist, and WORST_ENV allows none), and PodBuggerTool's by its profile:
// docs/operating.md's table shows "200 NotAllowed" and "200 ProfileNotAllowed" for them.
import t from 'tap';
import { operators } from '../../main/operators.js';
import type { CompositeHookDefinition } from '../../lib/hook.js';
import { readyOf, WORST_SPECS, worstAnswer, worstParent } from '../fixtures/worst.js';

const composites = operators.filter((d): d is CompositeHookDefinition => d.type === 'composite');
/** Reasons that mean the object was refused before its children were built (nothing of its size was worked on). */
const REFUSALS = new Set(['NotAllowed', 'ProfileNotAllowed', 'ImageNotAllowed', 'InvalidSpec', 'NamespaceExcluded']);

for (const kind of ['etcdbackup', 'etcdrestore', 'podbuggertool']) {
  t.test(`${kind}: its largest case is answered past the server's refusals`, async (t) => {
    const def = composites.find((d) => d.name === kind)!;
    const res = await worstAnswer(def, worstParent(kind, structuredClone(WORST_SPECS[kind]!)));
    const ready = readyOf(res);
    t.notOk(
      REFUSALS.has(ready?.reason),
      `the largest ${kind} is refused (${ready?.reason}: ${String(ready?.message ?? '').slice(0, 160)}): the memory measured for it is the refusal's`,
    );
  });
}

t.test('etcdbackup: the largest case builds its Job or CronJob', async (t) => {
  const def = composites.find((d) => d.name === 'etcdbackup')!;
  const res = await worstAnswer(def, worstParent('etcdbackup', structuredClone(WORST_SPECS['etcdbackup']!)));
  const kinds = (res.children ?? []).map((c: any) => c.kind);
  t.ok(kinds.includes('CronJob') || kinds.includes('Job'), `children: ${JSON.stringify(kinds)}`);
});
