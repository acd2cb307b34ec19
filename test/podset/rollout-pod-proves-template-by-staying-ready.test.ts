// A PodSet's rollout replaces the next pod only once a pod on the new template has stayed Ready for
// spec.minReadySeconds (10 by default), by its Ready condition's lastTransitionTime: a command that crashes seconds
// after it starts is Ready between its restarts, and that proves nothing (docs/podset.md, Rollouts).
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { liveMember, planRollout, type Member } from '../../hooks/podset/rollout.js';
import { podsetPodsSync as sync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const at = (secondsBeforeNow: number) => new Date(FIXED_NOW.getTime() - secondsBeforeNow * 1000).toISOString();
const legacy = { image: 'busybox', command: ['sleep', '3600'] };

/** A pod on template `hash`, Ready since `since` (an RFC 3339 time, or undefined: no time written). */
function pod(name: string, hash: string, ready: boolean, since?: string, restarts = 0): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { 'metaops.dev/template-hash': hash } },
    status: {
      phase: 'Running',
      conditions: [
        { type: 'Ready', status: ready ? 'True' : 'False', ...(since ? { lastTransitionTime: since } : {}) },
      ],
      containerStatuses: [{ name: 'busybox', ready, restartCount: restarts }],
    },
  };
}

const member = (p: KubeObject, minReadySeconds = 10, now = FIXED_NOW): Member =>
  liveMember(p.metadata.name!, p, 'new', { ...legacy, minReadySeconds }, now);

t.test('a pod on the new template Ready for less than minReadySeconds holds the rollout, and says so', async (t) => {
  const members = [member(pod('a-0', 'old', true, at(600))), member(pod('a-1', 'new', true, at(3)))];
  t.equal(members[1]!.settling, 7, 'Ready 3 s of 10: 7 s to go');
  const plan = planRollout(members, 'new');
  t.equal(plan.replace, undefined, 'the outdated pod is kept');
  t.equal(plan.recheckIn, 7, 'looked at again when the 10 s are up');
  t.match(plan.condition, {
    status: false,
    reason: 'RolloutWaiting',
    message: /a-1 \(current template\) to stay Ready/,
  });
});

t.test('once it has stayed Ready for minReadySeconds, the next pod is replaced', async (t) => {
  const members = [member(pod('a-0', 'old', true, at(600))), member(pod('a-1', 'new', true, at(10)))];
  t.equal(members[1]!.settling, undefined, 'Ready 10 s of 10');
  const plan = planRollout(members, 'new');
  t.equal(plan.replace, 'a-0');
  t.equal(plan.recheckIn, undefined);
});

t.test('the seconds left are whole and never more than minReadySeconds', async (t) => {
  t.equal(member(pod('a-1', 'new', true, at(9.5))).settling, 1, 'half a second left: 1');
  const ahead = pod('a-1', 'new', true, at(-3600));
  ahead.metadata.creationTimestamp = at(3);
  t.equal(member(ahead).settling, 7, "a node's clock an hour ahead says nothing: Ready since it was made, 3 s ago");
  t.equal(member(pod('a-1', 'new', true, at(-3600))).settling, undefined, 'nor made at a known time: Ready enough');
  t.equal(member(pod('a-1', 'new', true, at(0)), 45).settling, 45, 'its own minReadySeconds');
});

t.test('minReadySeconds 0: Ready is enough', async (t) => {
  t.equal(member(pod('a-1', 'new', true, at(0)), 0).settling, undefined);
  t.equal(member(pod('a-1', 'new', true, undefined, 3), 0).settling, undefined, 'restarts do not count either');
});

t.test('a Ready condition without a time: Ready enough, or since the pod was made', async (t) => {
  t.equal(member(pod('a-1', 'new', true)).settling, undefined, 'no restart: as before minReadySeconds');
  t.equal(member(pod('a-1', 'new', true, 'not a time')).settling, undefined, 'a time that does not parse: the same');
  const numbered = pod('a-1', 'new', true);
  (numbered as any).status.conditions[0].lastTransitionTime = 0;
  numbered.metadata.creationTimestamp = at(4);
  t.equal(member(numbered).settling, 6, 'a time that is not text is no time (not the year 2000): since it was made');
});

t.test(
  'a pod on the new template that restarted after a short run proves nothing, however long it has been Ready',
  async (t) => {
    const restarted = member(pod('a-1', 'new', true, at(3600), 1));
    t.equal(restarted.restarted, true);
    t.equal(restarted.settling, undefined, 'no time to wait for: it stays unproven');
    const plan = planRollout([member(pod('a-0', 'old', true, at(600))), restarted], 'new');
    t.equal(plan.replace, undefined, 'the rollout stops there');
    t.equal(plan.recheckIn, undefined, 'nothing changes by waiting');
    t.match(
      plan.condition.message,
      /a-1 \(current template\), which restarted after running less than minReadySeconds: delete it to try the template again/,
    );
    const sidecar = pod('a-1', 'new', true, at(3600), 0);
    (sidecar as any).status.containerStatuses.push({ name: 'proxy', restartCount: 2 }, null, { restartCount: '9' });
    t.equal(
      member(sidecar).restarted,
      undefined,
      "a container the PodSet did not make (a sidecar): its restarts are not the template's",
    );
    (sidecar as any).status.containerStatuses[0].restartCount = 1;
    t.equal(member(sidecar).restarted, true, 'its own busybox restarted counts, whatever else the list holds');
    (sidecar as any).status.containerStatuses = [null, { name: 'busybox', restartCount: '9' }, { name: 'a' }];
    t.equal(member(sidecar).restarted, undefined, 'a count that is not a number is no restart');
    t.equal(member(pod('a-1', 'new', false, at(1), 3)).restarted, undefined, 'not Ready: it waits to be Ready first');
    const untimed = planRollout(
      [member(pod('a-0', 'old', true)), member(pod('a-1', 'new', true, undefined, 1))],
      'new',
    );
    t.equal(untimed.replace, undefined, 'with no time written either');
    t.equal(member(pod('a-1', 'new', true, at(3600), 5), 0).restarted, undefined, 'minReadySeconds 0: Ready is enough');
  },
);

t.test('a pod that is not Ready is not settling: it waits to be Ready', async (t) => {
  const m = member(pod('a-1', 'new', false, at(1)));
  t.equal(m.settling, undefined);
  const plan = planRollout([member(pod('a-0', 'old', true, at(600))), m], 'new');
  t.equal(plan.replace, undefined);
  t.equal(plan.recheckIn, undefined, 'the pod changing syncs the PodSet');
  t.match(plan.condition.message, /a-1 \(current template\) to be Ready/);
});

t.test('the sync asks to be called again when the wait is up, and reads minReadySeconds from the spec', async (t) => {
  const spec = { size: 2, image: 'app:2', minReadySeconds: 20 };
  const first = sync(request('podset', spec), FIXED_NOW);
  const hash = (first.children[0]!.metadata.labels as Record<string, string>)['metaops.dev/template-hash']!;
  const observed = (name: string, h: string, since: string) => ({ ...pod(name, h, true, since), spec: {} });
  const children = objectMap(
    [observed('podset-sample-pod-0', 'old', at(600)), observed('podset-sample-pod-1', hash, at(5))],
    'v2',
  );
  // (The pods' names are the fixture parent's: podset-sample.)
  const res = sync(request('podset', spec, { children }), FIXED_NOW);
  t.equal(res.resyncAfterSeconds, 15, 'Ready 5 s of 20: called again in 15 s');
  t.equal(res.children.length, 2, 'the outdated pod is kept');
});

/** A pod on the new template Ready since `since`, its busybox restarted once after a run of `ran` seconds. */
function restartedAfter(ran: number, since: string, times: { started?: unknown; finished?: unknown } = {}): KubeObject {
  const p = pod('a-1', 'new', true, since, 1);
  (p as any).status.containerStatuses[0].lastState = {
    terminated: {
      exitCode: 0,
      reason: 'Completed',
      startedAt: 'started' in times ? times.started : at(ran + 100),
      finishedAt: 'finished' in times ? times.finished : at(100),
    },
  };
  return p;
}

t.test('a restart after a run of minReadySeconds or more is no failed start: judged by Ready alone', async (t) => {
  t.equal(member(restartedAfter(3600, at(60))).restarted, undefined, 'a `sleep 3600` that ended: not held');
  t.equal(member(restartedAfter(10, at(60))).restarted, undefined, 'a run of exactly minReadySeconds');
  t.equal(member(restartedAfter(9.5, at(60))).restarted, true, 'a run just short of it: a crash');
  t.equal(member(restartedAfter(30, at(60)), 45).restarted, true, 'its own minReadySeconds');
  t.equal(member(restartedAfter(3600, at(4))).settling, 6, 'Ready again for 4 s of 10: it settles, as a new pod');
  const plan = planRollout([member(pod('a-0', 'old', true, at(600))), member(restartedAfter(3600, at(60)))], 'new');
  t.equal(plan.replace, 'a-0', 'the next pod is replaced');
  for (const [times, why] of [
    [{ started: undefined }, 'no start time'],
    [{ finished: 'x' }, 'an end that does not parse'],
    [{ started: 5 }, 'a time that is not text'],
  ] as const)
    t.equal(member(restartedAfter(3600, at(60), times)).restarted, true, `${why}: the run does not read, a crash`);
});
