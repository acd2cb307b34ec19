// Events: the standard shape (events.k8s.io/v1, reportingController metaops), and repeats aggregated.
import t from 'tap';
import { EventRecorder, microTime, NOTE_MAX, type EventApi, type EventInput } from '../lib/events.js';

function fakeApi(existing = new Set<string>()) {
  const calls: Array<{ op: string; namespace: string; name?: string; body: any }> = [];
  const api: EventApi = {
    async createEvent(namespace, event: any) {
      calls.push({ op: 'create', namespace, body: event });
      const key = `${namespace}/${event.metadata.name}`;
      if (existing.has(key)) return false;
      existing.add(key);
      return true;
    },
    async patchEvent(namespace, name, patch) {
      calls.push({ op: 'patch', namespace, name, body: patch });
    },
  };
  return { api, calls };
}

const failure: EventInput = {
  target: { apiVersion: 'debug.metaops.dev/v1alpha1', kind: 'PodBuggerTool', name: 'tool', namespace: 'team', uid: 'u-1' },
  type: 'Warning',
  reason: 'InjectionFailed',
  note: 'pods "web-1" is forbidden',
  action: 'InjectDebugContainer',
};

t.test('an Event in the standard shape', async (t) => {
  const { api, calls } = fakeApi();
  const clock = new Date('2026-11-23T09:00:00.123Z');
  const recorder = new EventRecorder(() => api, () => clock, 'metaops-abc');
  t.equal(await recorder.record(failure), 'created');
  t.equal(calls.length, 1);
  const e = calls[0]!.body;
  t.equal(calls[0]!.namespace, 'team');
  t.match(e, {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { namespace: 'team' },
    eventTime: '2026-11-23T09:00:00.123000Z',
    reportingController: 'metaops',
    reportingInstance: 'metaops-abc',
    action: 'InjectDebugContainer',
    reason: 'InjectionFailed',
    note: 'pods "web-1" is forbidden',
    type: 'Warning',
    regarding: { apiVersion: 'debug.metaops.dev/v1alpha1', kind: 'PodBuggerTool', name: 'tool', namespace: 'team', uid: 'u-1' },
  });
  t.match(e.metadata.name, /^tool\.[0-9a-f]{12}$/);
  t.equal(microTime(new Date('2026-01-01T00:00:00Z')), '2026-01-01T00:00:00.000000Z');
});

t.test('repeats aggregate: one Event, its series counted, at most once a minute', async (t) => {
  const { api, calls } = fakeApi();
  let now = Date.parse('2026-11-23T09:00:00Z');
  const recorder = new EventRecorder(() => api, () => new Date(now));
  t.equal(await recorder.record(failure), 'created');
  now += 5_000;
  t.equal(await recorder.record(failure), 'suppressed', 'a repeat within a minute: no call');
  now += 60_000;
  t.equal(await recorder.record(failure), 'series');
  t.same(calls[1], { op: 'patch', namespace: 'team', name: calls[0]!.body.metadata.name, body: { series: { count: 3, lastObservedTime: '2026-11-23T09:01:05.000000Z' } } });
  t.equal(await recorder.record({ ...failure, note: 'another failure' }), 'created', 'another note is another Event');
  now += 11 * 60_000;
  t.equal(await recorder.record(failure), 'created', 'after ten minutes a new Event');
  t.equal(calls.filter((c) => c.op === 'create').length, 3);
});

t.test('an Event of the same name written by another replica is continued, not duplicated; notes are capped', async (t) => {
  const { api: first } = fakeApi();
  const existing = new Set<string>();
  const clock = () => new Date('2026-11-23T09:00:00Z');
  const a = fakeApi(existing);
  await new EventRecorder(() => a.api, clock).record(failure);
  const b = fakeApi(existing);
  t.equal(await new EventRecorder(() => b.api, clock).record(failure), 'series');
  t.same(b.calls.map((c) => c.op), ['create', 'patch']);
  const long = fakeApi();
  await new EventRecorder(() => long.api).record({ ...failure, note: 'x'.repeat(5000) });
  t.equal(long.calls[0]!.body.note.length, NOTE_MAX);
  void first;
});
