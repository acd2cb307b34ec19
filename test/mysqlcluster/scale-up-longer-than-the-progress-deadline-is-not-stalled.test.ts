// A MySQLCluster's StatefulSet makes its members one at a time, each once the one before is Ready (OrderedReady), and
// a replica is Ready only once it has cloned the primary's data: a scale-up of several members, each minutes to
// clone, takes longer than PROGRESS_DEADLINE_SECONDS (600 s) while every step goes as it should. Memcached and
// MySQLCluster share PodSet's progress deadline (lib/replicas.ts): it counts from the last progress (a member made,
// Ready or updated), never from when Progressing turned True. The StatefulSet played as its controller reports it,
// 10 s a sync, the status fed back.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { LAST_APPLIED } from '../../lib/objects.js';
import { PROGRESS_DEADLINE_SECONDS } from '../../lib/replicas.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const SYNC_S = 10;
/** Seconds a new member takes to be Ready (its clone of the primary's data). */
const CLONE_S = 250;

/** The StatefulSet as the API server holds it once Metacontroller applied `desired`, with this status. */
function applied(desired: KubeObject, status: Record<string, unknown>): KubeObject {
  const obj = asObserved(desired, { ...status, observedGeneration: 1 });
  obj.metadata.generation = 1;
  obj.metadata.annotations = { [LAST_APPLIED]: JSON.stringify(desired) };
  return obj;
}

/**
 * Scaled from 1 to 5 members at 0 s; members made one at a time, each Ready CLONE_S after it is made; `made` members
 * at most (the API server refuses the rest: a quota). The Progressing condition of each sync, with its time.
 */
function scaleUp(seconds: number, made = 5) {
  const spec = { size: 5, version: '8.0' };
  const first = mysqlSync(request('mysqlcluster', { size: 1, version: '8.0' }), FIXED_NOW);
  const others = first.children.filter((c) => c.kind !== 'StatefulSet').map((c) => asObserved(c));
  let status = first.status as Record<string, unknown>;
  const log: Array<{ at: number; progressing: any; status: unknown }> = [];
  for (let at = SYNC_S; at <= seconds; at += SYNC_S) {
    // Member k (k >= 1) is made at (k - 1) * CLONE_S and Ready CLONE_S later.
    const exist = Math.min(made, 1 + Math.floor(at / CLONE_S) + 1, 5);
    const ready = Math.min(exist, 1 + Math.floor(at / CLONE_S));
    const wanted = mysqlSync(request('mysqlcluster', spec), FIXED_NOW).children.find((c) => c.kind === 'StatefulSet')!;
    const sts = applied(wanted, { replicas: exist, readyReplicas: ready, updatedReplicas: exist });
    const parent = { ...request('mysqlcluster', spec).parent, status };
    const res = mysqlSync(
      request('mysqlcluster', spec, { parent, children: objectMap([sts, ...others]) }),
      new Date(FIXED_NOW.getTime() + at * 1000),
    );
    status = res.status as Record<string, unknown>;
    log.push({ at, progressing: (status as any).conditions.find((c: any) => c.type === 'Progressing'), status });
  }
  return log;
}

t.test('a MySQLCluster scale-up that goes as it should never says its progress deadline was exceeded', async (t) => {
  const log = scaleUp(5 * CLONE_S);
  t.match(log.at(-1)!.progressing, { status: 'False', reason: 'Complete' }, `complete after ${log.at(-1)!.at} s`);
  t.ok(
    log.some((l) => l.progressing.reason === 'ScalingUp' && l.at > PROGRESS_DEADLINE_SECONDS),
    'scaling up past 600 s',
  );
  const said = log.filter((l) => l.progressing.reason === 'ProgressDeadlineExceeded').map((l) => l.at);
  t.same(said.slice(0, 3), [], `never ProgressDeadlineExceeded (${said.length} syncs said it)`);
});

t.test('a MySQLCluster scale-up whose next member is never made says so once the deadline passes', async (t) => {
  // 3 members made: the 3rd Ready at 2 * CLONE_S (500 s); the 4th is refused.
  const log = scaleUp(1200, 3);
  const first = log.find((l) => l.progressing.reason === 'ProgressDeadlineExceeded');
  const since = 2 * CLONE_S;
  t.ok(
    first && first.at >= since + PROGRESS_DEADLINE_SECONDS && first.at <= since + PROGRESS_DEADLINE_SECONDS + SYNC_S,
    `said at the first sync 600 s after the last progress (${since} s): at ${first?.at} s`,
  );
  t.match(first?.progressing, { status: 'False', message: /3 of 5 members exist/ });
  const after = log.filter((l) => l.at >= first!.at);
  t.ok(
    after.every((l) => JSON.stringify(l.status) === JSON.stringify(first!.status)),
    `said stably (${after.length} syncs)`,
  );
});
