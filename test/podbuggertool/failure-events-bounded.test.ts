// "Quiet at rest, bounded always: every fan-out, answer and field has a bound" (GUIDE). A failed PATCH is told as an
// events.k8s.io Warning on the tool "once per new failure" (docs/podbuggertool.md, Failures), and the event's name
// hashes the pod: a tool that fails for one reason on every pod it selects (a namespace the hook server may not
// patch in: Forbidden) writes one Event per pod, all about the same tool and the same reason. At 4,000 selected pods
// (the size) that is 4,000 Event writes, and `kubectl describe pbt` lists them all; each recreated pod (a
// rollout) adds more. The count of pods is in the status already (failed, failures): the Events about one tool and
// one reason should not grow with the pods.
import t from 'tap';
import { KubeError } from '../../lib/kube.js';
import { FakeApi, inject, injectAll, pod, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const PODS = 500;
const BOUND = 10;

t.test('a tool failing for one reason on many pods writes a bounded number of Events', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  for (let i = 0; i < PODS; i++) api.put(pod(`web-${i}`, { app: 'web' }));
  api.failPatch = new KubeError(403, 'pods is forbidden: User "system:serviceaccount:metaops:metaops"', 'Forbidden');
  await injectAll(api, 'dbg');
  t.equal(api.patches.length, PODS, 'every pod was tried once');
  const about = new Set(api.events.map((e) => `${e.regarding.name}/${e.reason}`));
  t.same([...about], ['a/InjectionFailed'], 'one tool, one reason');
  t.ok(
    api.events.length <= BOUND,
    `Events written about one tool and one reason: ${api.events.length} (at most ${BOUND} wanted)`,
  );
});

// One step further: the Event of the ten minutes is counted as a series (events.k8s.io `series`), written at most
// every 10 s, whatever the number of pods; an Event the API server has already (another replica, a restart) is found
// by its 409 and counted from 2.
t.test(
  'failures of many pods over time: one Event per ten minutes, its series counted, written at most every 10 s',
  async (t) => {
    const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
    for (let i = 0; i < 60; i++) api.put(pod(`web-${String(i).padStart(2, '0')}`, { app: 'web' }));
    api.failPatch = new KubeError(403, 'forbidden', 'Forbidden');
    const names = new Set<string>();
    const series: Array<{ name: string; count: number }> = [];
    (api as any).createEvent = async (event: any) => {
      if (names.has(event.name)) return 'exists';
      names.add(event.name);
      api.events.push(event);
      return 'created';
    };
    (api as any).patchEventSeries = async (_ns: string, name: string, s: { count: number }) => {
      series.push({ name, count: s.count });
    };
    // A pod a second, for a minute, in one ten-minute bucket.
    const start = Math.floor(FIXED_NOW.getTime() / 600_000) * 600_000;
    for (let i = 0; i < 60; i++)
      await inject(api, ['dbg', `web-${String(i).padStart(2, '0')}`], { now: new Date(start + i * 1000) });
    t.equal(api.events.length, 1, 'one Event');
    t.ok(series.length <= 7, `series written ${series.length} times in a minute (at most every 10 s)`);
    t.ok(
      series.every((s) => s.name === api.events[0]!.name),
      'all about that Event',
    );
    t.same(
      series.map((s) => s.count),
      [2, 12, 22, 32, 42, 52],
      'counted: written at 1 s, then every 10 s, each with the failures by then',
    );
    // The next ten minutes: a new failure, a new Event. (The answers above were not written on the pods, and the
    // hook server remembers them, UnwrittenRecords: a retry of web-00 is the failure it had, told once.)
    await inject(api, ['dbg', 'web-00'], { now: new Date(start + 600_000) });
    t.equal(api.events.length, 1, "a retry of a pod's failure: no new Event");
    api.put(pod('web-60', { app: 'web' }));
    await inject(api, ['dbg', 'web-60'], { now: new Date(start + 600_000) });
    t.equal(api.events.length, 2, 'another bucket, another Event');
    // A server that did not write it (a restart, another replica): 409, and a series from 2.
    const other = new FakeApi()
      .put(tool('a', { label: 'app=web', image: 'busybox' }))
      .put(pod('web-x', { app: 'web' }));
    other.failPatch = api.failPatch;
    const otherSeries: number[] = [];
    (other as any).createEvent = async () => 'exists';
    (other as any).patchEventSeries = async (_ns: string, _name: string, s: { count: number }) =>
      otherSeries.push(s.count);
    await inject(other, ['dbg', 'web-x'], { now: new Date(start) });
    t.same(otherSeries, [2], 'the Event found by its 409: counted from 2');
  },
);
