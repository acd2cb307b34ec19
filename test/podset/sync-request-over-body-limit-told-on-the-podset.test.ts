// A PodSet accepted while its pods were healthy whose pods then all crash, each container writing the longest
// termination message the kubelet keeps (4096 bytes, in `state.terminated` and again in `lastState.terminated`; `<`
// six bytes as Go sends it): its sync requests are past the 8 MiB body limit and refused (413) before the hook runs,
// so no status is written. The server reads the start of such a body and says so on the PodSet: a Warning Event
// `RequestTooLarge` naming the size, the limit and what to do (docs/podset.md, Bounds).
import { PassThrough } from 'node:stream';
import t from 'tap';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import type { EventRecorder, EventSpec } from '../../lib/events.js';
import { asGoWritesIt } from '../../lib/go-json.js';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { HEAD_BYTES, subjectOfHead } from '../../lib/body-head.js';
import { MAX_HEADS_READ } from '../../lib/hook-routes.js';
import { testApp } from '../fixtures/app.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';
import { podsetRounds, podsetSyncRequest } from '../fixtures/stored-objects.js';

const TOKEN = 'a-token-of-some-length';

/** The PodSet `web` of `size` busybox pods, made and running (healthy: nothing measured past a running container). */
function running(size: number) {
  const req = request('podset', { size, image: 'busybox:1.36', command: ['sleep', '3600'] });
  req.parent.metadata = { ...req.parent.metadata, name: 'web', namespace: 'shop', uid: 'uid-web' };
  const rounds = podsetRounds(req, FIXED_NOW);
  const last = rounds.at(-1)!;
  return { parent: { ...last.parent } as ParentObject, pods: last.pods };
}

/** A pod whose busybox container crashes, having written `message` to its termination log, in a crash loop. */
function crashing(pod: KubeObject, message: string): KubeObject {
  const status = pod['status'] as Record<string, any>;
  const terminated = (startedAt: string) => ({
    terminated: {
      containerID: `containerd://${'8'.repeat(64)}`,
      exitCode: 1,
      finishedAt: '2026-01-01T00:01:00Z',
      message,
      reason: 'Error',
      startedAt,
    },
  });
  return {
    ...pod,
    status: {
      ...status,
      containerStatuses: (status['containerStatuses'] as Array<Record<string, unknown>>).map((s) => ({
        ...s,
        ready: false,
        started: false,
        restartCount: 5,
        state: terminated('2026-01-01T00:00:30Z'),
        lastState: terminated('2026-01-01T00:00:00Z'),
      })),
    },
  };
}

/** A request to PodSet `web`'s sync hook whose parent has these metadata, padded past the body limit. */
function oversized(metadata: Record<string, unknown>): string {
  return JSON.stringify({
    controller: {},
    parent: { apiVersion: 'apps.jicki.cn/v1alpha1', kind: 'PodSet', metadata },
    children: {},
    pad: 'x'.repeat(DEFAULT_BODY_LIMIT),
  });
}

function app(t: { teardown(fn: () => unknown): void }, recorded: Array<{ parent: ParentObject; spec: EventSpec }>) {
  const events: EventRecorder = {
    record: async (parent, specs) => void recorded.push(...specs.map((spec) => ({ parent, spec }))),
  };
  const a = testApp({ auth: { bearer: TOKEN }, services: { events: () => events } });
  t.teardown(() => a.close());
  return a;
}

t.test(
  'pods that all crash with the longest termination messages: the refused sync is told on the PodSet',
  async (t) => {
    const { parent, pods } = running(300);
    t.equal(pods.length, 300, 'every pod made while they were healthy');
    const listing = { ...parent, status: { ...(parent.status as object), nodes: pods.map((p) => p.metadata.name) } };
    const healthy = asGoWritesIt(JSON.stringify(podsetSyncRequest(listing, listing, pods).body));
    t.ok(healthy.length < DEFAULT_BODY_LIMIT, `healthy: ${healthy.length} bytes, within the limit`);

    const crashed = pods.map((p) => crashing(p, '<'.repeat(4096)));
    const body = asGoWritesIt(JSON.stringify(podsetSyncRequest(listing, listing, crashed).body));
    t.ok(body.length > DEFAULT_BODY_LIMIT, `crashing: ${body.length} bytes, past the ${DEFAULT_BODY_LIMIT} limit`);

    const recorded: Array<{ parent: ParentObject; spec: EventSpec }> = [];
    const a = app(t, recorded);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` };
    const res = await a.inject({ method: 'POST', url: '/hooks/podset/sync', payload: body, headers });
    t.equal(res.statusCode, 413, 'refused: the hook does not run');
    t.match(res.json().message, /termination messages/, 'the refusal says what it means for a PodSet');
    t.equal(recorded.length, 1, 'one event');
    const { parent: about, spec } = recorded[0]!;
    t.same(
      { kind: about.kind, apiVersion: about.apiVersion, ...about.metadata },
      { kind: 'PodSet', apiVersion: parent.apiVersion, name: 'web', namespace: 'shop', uid: 'uid-web' },
      'on the PodSet the request is about',
    );
    t.equal(spec.type, 'Warning');
    t.equal(spec.reason, 'RequestTooLarge');
    t.match(spec.note, String(body.length), 'names the size');
    t.match(spec.note, String(DEFAULT_BODY_LIMIT), 'and the limit');
    t.match(spec.note, /no status is written/);
    t.match(spec.note, /fix what makes them crash, or lower spec\.size/);

    // The healthy request is answered as before, and tells nothing.
    const ok = await a.inject({ method: 'POST', url: '/hooks/podset/sync', payload: healthy, headers });
    t.equal(ok.statusCode, 200);
    t.equal(recorded.length, 1);
  },
);

t.test(
  'a caller without the credentials is refused before its oversized body is read, and nothing is recorded',
  async (t) => {
    const recorded: Array<{ parent: ParentObject; spec: EventSpec }> = [];
    const a = app(t, recorded);
    const body = oversized({ name: 'web', namespace: 'shop' });
    const res = await a.inject({
      method: 'POST',
      url: '/hooks/podset/sync',
      payload: body,
      headers: { 'content-type': 'application/json' },
    });
    t.equal(res.statusCode, 401);
    t.same(recorded, []);
  },
);

t.test('the start of a body names the object it is about, read by type, wherever it is cut', async (t) => {
  const parent = {
    apiVersion: 'apps.jicki.cn/v1alpha1',
    kind: 'PodSet',
    metadata: {
      annotations: { note: '{"name":"decoy","kind":"X"}', 'a"b': 'c\\"d' },
      labels: { name: 'decoy' },
      name: 'we\u003cb',
      namespace: 'shop',
      uid: 'u-1',
    },
    spec: { name: 'decoy', size: 3 },
  };
  const controller = { metadata: { name: 'podset', namespace: 'x' }, kind: 'CompositeController' };
  const text = asGoWritesIt(JSON.stringify({ controller, parent, children: { 'Pod.v1': {} } }));
  t.same(subjectOfHead(text), {
    apiVersion: 'apps.jicki.cn/v1alpha1',
    kind: 'PodSet',
    metadata: { name: 'we<b', namespace: 'shop', uid: 'u-1' },
  });
  // A decorator's request: `object`.
  const decorator = JSON.stringify({ controller, object: parent, attachments: {} });
  t.equal(subjectOfHead(decorator)?.metadata.name, 'we<b');
  // Cut before the name: not named (never the controller's, nor a decoy's).
  const cut = text.slice(0, text.indexOf('"name":"we'));
  t.equal(subjectOfHead(cut), undefined);
  // Cut anywhere: never throws, and names the PodSet or nothing.
  for (let i = 0; i <= text.length; i += 7) {
    const got = subjectOfHead(text.slice(0, i));
    if (got) t.equal(got.metadata.name, 'we<b');
  }
  // Values that are not strings are not read.
  const odd = JSON.stringify({ parent: { kind: { toString: 1 }, metadata: { name: 7 } } });
  t.equal(subjectOfHead(odd), undefined);
  t.equal(subjectOfHead('not json'), undefined);
  t.equal(subjectOfHead(''), undefined);
});

t.test('a body whose start names no object (its metadata alone past what is read): refused, no event', async (t) => {
  const recorded: Array<{ parent: ParentObject; spec: EventSpec }> = [];
  const a = app(t, recorded);
  const body = oversized({ annotations: { big: 'x'.repeat(HEAD_BYTES) }, name: 'web', namespace: 'shop' });
  const res = await a.inject({
    method: 'POST',
    url: '/hooks/podset/sync',
    payload: body,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
  });
  t.equal(res.statusCode, 413);
  t.same(recorded, []);
});

t.test('at most MAX_HEADS_READ oversized bodies are read at once: past it, refused unread and untold', async (t) => {
  const recorded: Array<{ parent: ParentObject; spec: EventSpec }> = [];
  const a = app(t, recorded);
  const start = JSON.stringify({
    controller: {},
    parent: { apiVersion: 'apps.jicki.cn/v1alpha1', kind: 'PodSet', metadata: { name: 'web', namespace: 'shop' } },
  });
  const headers = {
    'content-type': 'application/json',
    authorization: `Bearer ${TOKEN}`,
    'content-length': String(DEFAULT_BODY_LIMIT + 1),
  };
  // Callers that send the start of their body and then stall: each holds one read.
  const stalled = Array.from({ length: MAX_HEADS_READ }, () => {
    const payload = new PassThrough();
    payload.write(start);
    return { payload, answer: a.inject({ method: 'POST', url: '/hooks/podset/sync', payload, headers }) };
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const past = await a.inject({
    method: 'POST',
    url: '/hooks/podset/sync',
    payload: start + ' '.repeat(DEFAULT_BODY_LIMIT + 1 - start.length),
    headers,
  });
  t.equal(past.statusCode, 413, 'refused at once');
  t.same(recorded, [], 'not read: nothing told');
  // The stalled ones end (their callers go): each is refused and told.
  for (const s of stalled) s.payload.end();
  const answers = await Promise.all(stalled.map((s) => s.answer));
  t.same(
    answers.map((r) => r.statusCode),
    stalled.map(() => 413),
  );
  t.equal(recorded.length, MAX_HEADS_READ);
});
