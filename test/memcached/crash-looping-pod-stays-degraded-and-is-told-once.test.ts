// A crash-looping pod stays Degraded and is told once (docs/memcached.md; issue 31 item 7, Degraded as the Operator
// SDK sample has it, and its Events). Before: a
// Memcached whose one pod crash-loops (the cache killed for its memory 30 s after each start, a bad flag in a new
// image) never gets better, yet its status and `kubectl describe` say otherwise at every restart. The kubelet reports
// the container `waiting: CrashLoopBackOff` during each back-off and `running` (not Ready, restartCount grown,
// lastState terminated) between them; lib/replicas.ts podFailure reads only the waiting reason, so Degraded flips
// True -> False ("no pod is failing") -> True at each restart, and each flip back to True is a new Warning
// `PodsFailing` Event: with the kubelet's back-off capped at 5 minutes, about 12 Warnings an hour for as long as the
// pod crash-loops, and a status written twice per restart. The same reading (podsFailing) serves PodSet and
// MySQLCluster. docs/memcached.md: "a Warning when pods start failing"; this pod started failing once.
// Expected: Degraded stays True PodsFailing through the crash loop (a pod that restarted and is not Ready is
// failing), and one Warning is told, not one per restart.
import t from 'tap';
import { memcached } from '../../hooks/memcached/index.js';
import type { EventSpec } from '../../lib/events.js';
import type { CompositeSyncRequest } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import { FIXED_NOW, memcachedWithOnePod, request } from '../fixtures/requests.js';

async function told(req: CompositeSyncRequest, now: Date) {
  const events: EventSpec[] = [];
  const res = await runHook(memcached, 'sync', req, {
    now,
    services: { events: () => ({ record: async (_p: unknown, e: EventSpec[]) => void events.push(...e) }) } as never,
  });
  return { res, events };
}

t.test('a crash-looping Memcached pod keeps Degraded True and is told once, not at every restart', async (t) => {
  const base = request('memcached', { size: 1, image: 'memcached:1.6.1', port: 11211 });
  const first = await told(base, FIXED_NOW);
  const next = memcachedWithOnePod(base, first.res);
  /** The Deployment's one pod, its memcached container in `state` after `restarts` restarts. */
  const podIn = (state: Record<string, unknown>, restarts: number) => ({
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'False' }],
    containerStatuses: [
      {
        name: 'memcached',
        ready: false,
        restartCount: restarts,
        state,
        lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
      },
    ],
  });
  const backOff = { waiting: { reason: 'CrashLoopBackOff', message: 'back-off restarting failed container' } };
  const cycle: Array<[Record<string, unknown>, number]> = [
    [backOff, 3],
    [{ running: { startedAt: '2026-01-02T03:05:00Z' } }, 4],
    [backOff, 4],
    [{ running: { startedAt: '2026-01-02T03:10:30Z' } }, 5],
    [backOff, 5],
  ];
  let status: unknown = first.res.status;
  const warnings: string[] = [];
  const degraded: string[] = [];
  let minute = 0;
  for (const [state, restarts] of cycle) {
    const { res, events } = await told(
      next(status, podIn(state, restarts)),
      new Date(FIXED_NOW.getTime() + ++minute * 60_000),
    );
    const d = (res.status as any).conditions.find((c: any) => c.type === 'Degraded');
    degraded.push(`${d.status} ${d.reason}`);
    warnings.push(...events.filter((e) => e.type === 'Warning').map((e) => e.reason));
    status = res.status;
  }
  t.comment(`Degraded through the loop: ${degraded.join(' -> ')}; Warnings: ${warnings.join(', ')}`);
  t.same(
    degraded,
    cycle.map(() => 'True PodsFailing'),
    'Degraded stays True PodsFailing while the pod crash-loops (running between restarts, not Ready)',
  );
  t.same(warnings, ['PodsFailing'], 'one Warning for the crash loop, not one per restart');
});
