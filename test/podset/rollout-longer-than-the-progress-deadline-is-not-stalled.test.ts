// A PodSet's rollout replaces one pod at a time, each once the last one made has stayed Ready for minReadySeconds: a
// rollout of 20 pods, each deleted with busybox's 30 s grace period (sleep ignores SIGTERM) and proven for 10 s,
// takes longer than PROGRESS_DEADLINE_SECONDS (600 s) while every pod is made at once and every step goes as it
// should. Progressing=False ProgressDeadlineExceeded (a Warning event: "creating the others fails (Pod Security
// admission, a quota, an object too large)") is for members that cannot be created; a rollout that progresses must
// never say it. Metacontroller and the kubelet played as in rollout-stops-on-a-command-that-crashes-after-it-starts
// (OnDelete: the answer's missing pods created, those left out deleted), 5 s a round, the status fed back.
import t from 'tap';
import { podsetSync as sync } from '../fixtures/hooks.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { LAST_APPLIED } from '../../lib/objects.js';
import { PROGRESS_DEADLINE_SECONDS } from '../../lib/replicas.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const image = (pod: KubeObject) => (pod as any).spec.containers[0].image as string;
const ROUND_MS = 5000;
/** Rounds a deleted pod stays terminating: busybox's sleep ignores SIGTERM, killed at its 30 s grace period. */
const GRACE_ROUNDS = 6;

interface Round {
  /** Seconds since the template changed. */
  at: number;
  status: Record<string, unknown>;
  progressing: { status: string; reason: string; message: string; lastUpdateTime?: string };
}

/**
 * The rollout of 20 pods from the template change (round 10) on, for at most `rounds` rounds or until every pod runs
 * app:3. `admitted`: how many app:3 pods the API server creates before it refuses the rest (a quota reached).
 */
function rollout(rounds: number, admitted = Infinity) {
  const pods = new Map<string, KubeObject>();
  const readyAt = new Map<string, number>();
  const going = new Map<string, number>();
  let status: Record<string, unknown> | undefined;
  let spec: Record<string, unknown> = { size: 20 };
  let clock = FIXED_NOW.getTime();
  const changed = FIXED_NOW.getTime() + 11 * ROUND_MS;
  const log: Round[] = [];
  const created: number[] = [];
  for (let r = 0; r < rounds; r++) {
    if (r === 10) spec = { size: 20, image: 'app:3' };
    clock += ROUND_MS;
    const now = new Date(clock);
    for (const [n, at] of going)
      if (r - at >= GRACE_ROUNDS) {
        pods.delete(n);
        going.delete(n);
      }
    const parent = { ...request('podset', spec).parent, status };
    const res = sync(request('podset', spec, { parent, children: objectMap([...pods.values()], 'v2') }), now);
    status = res.status ?? undefined;
    const progressing = (status as any).conditions.find((c: any) => c.type === 'Progressing');
    log.push({ at: (clock - changed) / 1000, status: status!, progressing });
    const wanted = new Map(res.children.filter((c) => c.kind === 'Pod').map((c) => [c.metadata.name!, c]));
    for (const name of [...pods.keys()])
      if (!wanted.has(name) && !going.has(name)) {
        going.set(name, r);
        const p = pods.get(name)!;
        pods.set(name, { ...p, metadata: { ...p.metadata, deletionTimestamp: now.toISOString() } });
      }
    for (const [name, desired] of wanted)
      if (!pods.has(name)) {
        if (image(desired) === 'app:3' && created.length >= admitted) continue;
        if (image(desired) === 'app:3') created.push((clock - changed) / 1000);
        const pod = asObserved(desired, { phase: 'Pending' });
        pod.metadata.creationTimestamp = now.toISOString();
        pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [LAST_APPLIED]: JSON.stringify(desired) };
        pods.set(name, pod);
        readyAt.delete(name);
      }
    // The kubelet: every pod, either image, runs and is Ready from the round after it is made.
    for (const [name, pod] of pods) {
      if (going.has(name)) continue;
      if (!readyAt.has(name)) readyAt.set(name, clock);
      const since = new Date(readyAt.get(name)!).toISOString();
      pods.set(name, {
        ...pod,
        status: {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: since }],
          containerStatuses: [{ name: 'busybox', ready: true, restartCount: 0, state: { running: {} } }],
        },
      });
    }
    if (r > 10 && [...pods.values()].every((p) => image(p) === 'app:3') && pods.size === 20 && going.size === 0) break;
  }
  /** One more sync of what is observed now, `later` seconds on. */
  const again = (later: number) => {
    const parent = { ...request('podset', spec).parent, status };
    const res = sync(
      request('podset', spec, { parent, children: objectMap([...pods.values()], 'v2') }),
      new Date(clock + later * 1000),
    );
    status = res.status ?? undefined;
    return res;
  };
  return { pods, log, created, again };
}

const stalls = (log: Round[]) =>
  log
    .filter((l) => l.progressing.reason === 'ProgressDeadlineExceeded')
    .map((l) => `${l.at} s into the rollout: ${l.progressing.message}`);

t.test('a 20-pod rollout that goes as it should never says its progress deadline was exceeded', async (t) => {
  const { pods, log } = rollout(600);
  const images = [...pods.values()].map(image);
  t.equal(images.filter((i) => i === 'app:3').length, 20, 'the rollout finishes: 20 pods on app:3');
  t.ok(log[log.length - 1]!.at > PROGRESS_DEADLINE_SECONDS, `it takes longer than the deadline (${log.at(-1)!.at} s)`);
  const said = stalls(log);
  t.same(said.slice(0, 3), [], `never ProgressDeadlineExceeded (${said.length} syncs said it)`);
});

t.test(
  'a rollout whose replacements stop being created says so once the deadline passes without progress',
  async (t) => {
    // The API server creates 5 pods of app:3, then refuses the rest (a quota reached): the 6th replacement never exists.
    const { log, created } = rollout(220, 5);
    t.equal(created.length, 5, '5 replacements made');
    const last = created[created.length - 1]!;
    const first = log.find((l) => l.progressing.reason === 'ProgressDeadlineExceeded');
    t.ok(first, 'ProgressDeadlineExceeded is said');
    t.ok(
      first!.at > last + PROGRESS_DEADLINE_SECONDS &&
        first!.at <= last + PROGRESS_DEADLINE_SECONDS + 2 * (ROUND_MS / 1000),
      `from the deadline after the last replacement was made (${last} s), at ${first!.at} s`,
    );
    t.match(first!.progressing, { status: 'False', message: /19 of 20 members exist/ });
    const after = log.filter((l) => l.at >= first!.at);
    t.ok(after.length > 10, 'observed for a while after');
    t.ok(
      after.every((l) => JSON.stringify(l.status) === JSON.stringify(first!.status)),
      'said stably: the same status on every sync after',
    );
  },
);

t.test('a finished rollout is quiet: the same status at every later sync', async (t) => {
  const { pods, again } = rollout(600);
  t.equal([...pods.values()].filter((p) => image(p) === 'app:3').length, 20, 'the rollout finished');
  const settled = again(5);
  const progressing = (settled.status as any).conditions.find((c: any) => c.type === 'Progressing');
  t.match(progressing, { status: 'False', reason: 'Complete' }, 'Progressing=False Complete');
  t.notOk('lastUpdateTime' in progressing, 'no progress time at rest');
  for (const later of [10, 60, 600, 3600]) t.same(again(later).status, settled.status, `the same status ${later} s on`);
  t.notOk(again(7200).resyncAfterSeconds, 'and no resync asked for');
});
