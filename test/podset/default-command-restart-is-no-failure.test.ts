// A PodSet's pods run `sleep 3600` by default under restartPolicy Always: every hour each pod's container ends (exit
// 0, Completed) and the kubelet starts it again at once. What the status says of it (docs/podset.md, Status):
// - `Ready` and `Available` read the pods as they are, as a Deployment's `Available` does (a Deployment of 3 counts
//   a pod that stops being Ready out of its available replicas at once, and has no room under its maxUnavailable):
//   for the moment the container is not running, the set is `2/3 ready`, `Ready=False`, and back to `True` when it
//   runs again. docs/podset.md promises that a pod that stops being Ready makes `Available` and `Ready` False, and a
//   PodSet has no maxUnavailable to hide one; a status that said 3/3 while a pod serves nothing would lie.
// - It is no failure and no rollout: `Degraded` stays `False` (a restart after an hour's run is no crash loop:
//   lib/replicas.ts podFailure), `Progressing` stays `False Complete`, no Warning Event is told, no pod is replaced,
//   and once the container runs again the status is what it was before (nothing but `Ready`/`Available` turned).
import t from 'tap';
import { podset } from '../../hooks/podset/index.js';
import type { EventSpec } from '../../lib/events.js';
import type { CompositeSyncRequest, KubeObject } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import { SERVED, withPodsetPolicy } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap } from '../fixtures/requests.js';
import { podsetRequest, podsOf } from './syncs.js';

const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000).toISOString();

/** The busybox container of a pod made at -86400 s, as the kubelet reports it in each moment of its hourly restart. */
const moments: Record<string, Record<string, unknown>> = {
  running: {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at(-86390) }],
    containerStatuses: [
      { name: 'busybox', ready: true, restartCount: 0, state: { running: { startedAt: at(-3600) } } },
    ],
  },
  ended: {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: at(0) }],
    containerStatuses: [
      {
        name: 'busybox',
        ready: false,
        restartCount: 0,
        state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: at(-3600), finishedAt: at(0) } },
      },
    ],
  },
  restarted: {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at(1) }],
    containerStatuses: [
      {
        name: 'busybox',
        ready: true,
        restartCount: 1,
        state: { running: { startedAt: at(1) } },
        lastState: { terminated: { exitCode: 0, reason: 'Completed', startedAt: at(-3600), finishedAt: at(0) } },
      },
    ],
  },
};

t.test("a pod's `sleep 3600` ending and restarting: Ready for a moment 2/3, no failure, no Warning", async (t) => {
  const base = podsetRequest({ size: 3 });
  let status: unknown;
  let pods: KubeObject[] = [];
  const sync = async (pod0: string, second: number) => {
    const observed = pods.map((p) => {
      const o = asObserved(p, p.metadata.name === 'web-pod-0' ? moments[pod0] : moments['running']);
      o.metadata.creationTimestamp = at(-86400);
      return o;
    });
    const req = withPodsetPolicy({
      ...base,
      parent: { ...base.parent, status },
      children: objectMap(observed),
    } as CompositeSyncRequest);
    const events: EventSpec[] = [];
    const res = await runHook(podset, 'sync', req, {
      now: new Date(FIXED_NOW.getTime() + second * 1000),
      settings: SERVED,
      services: { events: () => ({ record: async (_p: unknown, e: EventSpec[]) => void events.push(...e) }) } as never,
    });
    status = res.status;
    pods = podsOf(res);
    const conditions = (res.status as any).conditions as Array<Record<string, string>>;
    const said = (type: string) => {
      const c = conditions.find((x) => x.type === type)!;
      return `${c.status} ${c.reason}`;
    };
    return { res, events, said, ready: (res.status as any).ready as string };
  };
  await sync('running', -120);
  await sync('running', -90);
  const before = await sync('running', -60);
  t.equal(before.said('Progressing'), 'False Complete', 'at rest before');
  t.equal(before.said('Ready'), 'True Available');

  const ended = await sync('ended', 0);
  t.equal(ended.ready, '2/3', 'the pod whose command ended is not Ready');
  t.equal(ended.said('Ready'), 'False NotAvailable', 'Ready reads the pods as they are, as documented');
  t.equal(ended.said('Available'), 'False MinimumReplicasUnavailable');
  t.equal(ended.said('Degraded'), 'False AsExpected', 'a command that ended after an hour is no failure');
  t.equal(ended.said('Progressing'), 'False Complete', 'no rollout');
  t.same(
    ended.events.filter((e) => e.type === 'Warning'),
    [],
    'no Warning Event',
  );
  t.same(
    ended.res.children.filter((c) => c.kind === 'Pod').map((p) => p.metadata.name),
    ['web-pod-0', 'web-pod-1', 'web-pod-2'],
    'no pod is replaced nor deleted',
  );

  const back = await sync('restarted', 2);
  t.equal(back.ready, '3/3');
  t.equal(back.said('Ready'), 'True Available', 'Ready again once it runs again');
  t.equal(back.said('Degraded'), 'False AsExpected');
  t.equal(back.said('Progressing'), 'False Complete');
  t.same(
    back.events.filter((e) => e.type === 'Warning'),
    [],
    'no Warning Event',
  );
  const strip = (s: unknown) =>
    JSON.stringify({
      ...(s as object),
      conditions: ((s as any).conditions as Array<Record<string, unknown>>)
        .filter((c) => c['type'] !== 'Ready' && c['type'] !== 'Available')
        .map(({ lastTransitionTime: _l, lastUpdateTime: _u, ...c }) => c),
    });
  t.equal(strip(back.res.status), strip(before.res.status), 'nothing but Ready and Available turned and back');

  const later = await sync('restarted', 60);
  t.equal(JSON.stringify(later.res.status), JSON.stringify(back.res.status), 'then at rest: the status unchanged');
});
