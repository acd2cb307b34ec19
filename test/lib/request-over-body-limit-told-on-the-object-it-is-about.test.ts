// A hook request over the body limit is refused (413) before it is read, so its hook never runs and writes no status.
// For an authenticated caller the server reads the start of the body and tells the object it is about, with a Warning
// Event `RequestTooLarge` (lib/hook-routes.ts tellOversized): the parent of a composite's sync, finalize and
// customize, a decorator's object; what the operator says such a request means is added to its note. A caller that
// is not authenticated, or a start that names no object, is refused just the same and tells nothing.
import t from 'tap';
import { PassThrough } from 'node:stream';
import { buildApp, type AppOptions } from '../../lib/app.js';
import type { EventRecorder, EventSpec } from '../../lib/events.js';
import type { HookDefinition } from '../../lib/hook.js';
import { MAX_HEADS_READ } from '../../lib/hook-routes.js';
import type { ParentObject } from '../../lib/metacontroller.js';
import { Metrics } from '../../lib/metrics.js';
import { captureLogs } from '../fixtures/logs.js';

const TOKEN = 'a-token-of-some-length';
const LIMIT = 2000;
const parent = {
  apiVersion: 'toy.example.com/v1',
  kind: 'Toy',
  metadata: { name: 'one', namespace: 'ns', uid: 'u-1' },
};

/** A composite definition (sync, finalize, customize) and a decorator one; none of their hooks may run here. */
function definitions(ran: string[], tooLarge?: string): HookDefinition[] {
  const run = (hook: string) => () => {
    ran.push(hook);
    return { status: {}, children: [] };
  };
  return [
    {
      type: 'composite',
      name: 'toy',
      resource: { kind: 'Toy' },
      childResources: [],
      ...(tooLarge !== undefined ? { tooLarge } : {}),
      sync: run('toy/sync'),
      finalize: run('toy/finalize'),
      customize: run('toy/customize'),
    },
    {
      type: 'decorator',
      name: 'decor',
      resources: [{ apiVersion: 'v1', resource: 'pods' }],
      attachments: [],
      sync: run('decor/sync'),
    },
  ] as unknown as HookDefinition[];
}

type Told = { about: ParentObject; spec: EventSpec };

function app(
  t: { teardown(fn: () => unknown): void },
  told: Told[],
  options: Partial<AppOptions> & { tooLarge?: string; ran?: string[] } = {},
) {
  const { tooLarge, ran = [], ...rest } = options;
  const events: EventRecorder = {
    record: async (about, specs) => void told.push(...specs.map((spec) => ({ about, spec }))),
  };
  const a = buildApp({
    operators: definitions(ran, tooLarge),
    metrics: new Metrics(false),
    auth: { bearer: TOKEN },
    bodyLimit: LIMIT,
    services: { events: () => events },
    ...rest,
  });
  t.teardown(() => a.close());
  return a;
}

/** A body about `subject` under `key` (parent or object), padded to `size` bytes. */
function padded(key: 'parent' | 'object', subject: unknown, size = LIMIT + 500): string {
  const start = JSON.stringify({ controller: {}, [key]: subject, pad: '' });
  return start.slice(0, -2) + 'x'.repeat(size - start.length) + '"}';
}

const headers = { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` };

t.test(
  "a composite's oversized sync: refused unread, and told on its parent with the size and the limit",
  async (t) => {
    const told: Told[] = [];
    const ran: string[] = [];
    const a = app(t, told, { ran });
    const body = padded('parent', parent);
    const res = await a.inject({ method: 'POST', url: '/hooks/toy/sync', payload: body, headers });
    t.equal(res.statusCode, 413);
    t.same(ran, [], 'the hook did not run');
    t.equal(told.length, 1, 'one event');
    t.same(told[0]!.about, parent, 'on the object the request is about');
    t.same(told[0]!.spec, {
      type: 'Warning',
      reason: 'RequestTooLarge',
      action: 'Reconcile',
      subject: 'sync',
      note:
        `a sync request about this Toy was ${body.length} bytes, over the ${LIMIT} a request to the hooks may have ` +
        '(METAOPS_BODY_LIMIT): refused unread, so its hook does not run, no status is written and nothing it owns is ' +
        'made again or changed until its requests are smaller',
    });
  },
);

t.test('what the operator says such a request means ends the note', async (t) => {
  const told: Told[] = [];
  const a = app(t, told, { tooLarge: 'lower spec.size' });
  const res = await a.inject({ method: 'POST', url: '/hooks/toy/sync', payload: padded('parent', parent), headers });
  t.equal(res.statusCode, 413);
  t.equal(told.length, 1);
  t.match(told[0]!.spec.note, /are smaller: lower spec\.size$/);
});

t.test('finalize is a reconcile of its own hook; customize is told as a customize', async (t) => {
  const told: Told[] = [];
  const a = app(t, told);
  const body = padded('parent', parent);
  for (const hook of ['finalize', 'customize']) {
    const res = await a.inject({ method: 'POST', url: `/hooks/toy/${hook}`, payload: body, headers });
    t.equal(res.statusCode, 413, hook);
  }
  t.same(
    told.map(({ about, spec }) => [about.metadata.name, spec.action, spec.subject, spec.note.slice(0, 30)]),
    [
      ['one', 'Reconcile', 'finalize', 'a finalize request about this '],
      ['one', 'Customize', 'customize', 'a customize request about this'],
    ],
  );
});

t.test("a decorator's oversized sync is told on the object it decorates", async (t) => {
  const told: Told[] = [];
  const a = app(t, told);
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'u-p' } };
  const res = await a.inject({ method: 'POST', url: '/hooks/decor/sync', payload: padded('object', pod), headers });
  t.equal(res.statusCode, 413);
  t.same(
    told.map(({ about, spec }) => [about, spec.action, spec.subject]),
    [[pod, 'Reconcile', 'sync']],
  );
  t.match(told[0]!.spec.note, /^a sync request about this Pod was /);
});

t.test('a body within the limit is answered and tells nothing', async (t) => {
  const told: Told[] = [];
  const ran: string[] = [];
  const a = app(t, told, { ran });
  const body = JSON.stringify({ controller: {}, parent, children: {} });
  const res = await a.inject({ method: 'POST', url: '/hooks/toy/sync', payload: body, headers });
  t.equal(res.statusCode, 200);
  t.same(ran, ['toy/sync']);
  t.same(told, []);
  // One byte past the limit is over it; the limit itself is not.
  const at = await a.inject({
    method: 'POST',
    url: '/hooks/toy/sync',
    payload: padded('parent', parent, LIMIT),
    headers,
  });
  t.not(at.statusCode, 413, 'a body of exactly the limit is read');
  t.same(told, []);
  const past = await a.inject({
    method: 'POST',
    url: '/hooks/toy/sync',
    payload: padded('parent', parent, LIMIT + 1),
    headers,
  });
  t.equal(past.statusCode, 413);
  t.equal(told.length, 1);
});

t.test('a caller that is not authenticated is refused unread and tells nothing', async (t) => {
  const told: Told[] = [];
  // No credentials configured: pure hooks answer anyone, but such a caller is not authenticated.
  const a = app(t, told, { auth: {} });
  const res = await a.inject({
    method: 'POST',
    url: '/hooks/toy/sync',
    payload: padded('parent', parent),
    headers: { 'content-type': 'application/json' },
  });
  t.equal(res.statusCode, 413);
  t.same(told, []);
});

t.test('a start that names no object: refused, no event, the hook and the sizes logged', async (t) => {
  const told: Told[] = [];
  const logs = captureLogs();
  const a = app(t, told, { logger: { level: 'info', stream: logs.stream } });
  const body = padded('parent', { kind: 'Toy', metadata: { namespace: 'ns' } });
  const res = await a.inject({ method: 'POST', url: '/hooks/toy/sync', payload: body, headers });
  t.equal(res.statusCode, 413);
  t.same(told, []);
  const lines = logs
    .text()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l['msg'] === 'a request over the body limit refused; its start names no object');
  t.match(lines, [{ level: 40, hook: 'toy/sync', bytes: body.length, limit: LIMIT }]);
  t.equal(lines.length, 1);
});

t.test('an event recorder that fails changes nothing of the refusal', async (t) => {
  const a = buildApp({
    operators: definitions([]),
    metrics: new Metrics(false),
    auth: { bearer: TOKEN },
    bodyLimit: LIMIT,
    services: {
      events: () => ({
        record: () => Promise.reject(new Error('the API server is down')),
      }),
    },
  });
  t.teardown(() => a.close());
  const res = await a.inject({ method: 'POST', url: '/hooks/toy/sync', payload: padded('parent', parent), headers });
  t.equal(res.statusCode, 413);
});

t.test('the start of a body that comes in pieces names the object', async (t) => {
  const told: Told[] = [];
  const a = app(t, told);
  const start = JSON.stringify({ controller: {}, parent });
  const payload = new PassThrough();
  const answer = a.inject({
    method: 'POST',
    url: '/hooks/toy/sync',
    payload,
    headers: { ...headers, 'content-length': String(LIMIT * 100) },
  });
  // Sent a few bytes at a time, then the caller ends it short of what it declared.
  for (let i = 0; i < start.length; i += 7) {
    const piece = start.slice(i, i + 7);
    payload.write(i % 2 === 0 ? piece : Buffer.from(piece));
    await new Promise((resolve) => setImmediate(resolve));
  }
  payload.end();
  t.equal((await answer).statusCode, 413);
  t.same(
    told.map(({ about }) => about),
    [{ apiVersion: parent.apiVersion, kind: parent.kind, metadata: parent.metadata }],
  );
});

t.test(`at most ${MAX_HEADS_READ} oversized bodies are read at once: past it, refused unread and untold`, async (t) => {
  const told: Told[] = [];
  const a = app(t, told);
  const start = JSON.stringify({ controller: {}, parent });
  const declared = { ...headers, 'content-length': String(LIMIT + 1) };
  const stalled = Array.from({ length: MAX_HEADS_READ }, () => {
    const payload = new PassThrough();
    payload.write(start);
    return { payload, answer: a.inject({ method: 'POST', url: '/hooks/toy/sync', payload, headers: declared }) };
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const past = await a.inject({
    method: 'POST',
    url: '/hooks/toy/sync',
    payload: start + ' '.repeat(LIMIT + 1 - start.length),
    headers: declared,
  });
  t.equal(past.statusCode, 413, 'refused at once');
  t.same(told, [], 'not read: nothing told');
  for (const s of stalled) s.payload.end();
  const answers = await Promise.all(stalled.map((s) => s.answer));
  t.same(
    answers.map((r) => r.statusCode),
    stalled.map(() => 413),
  );
  t.equal(told.length, MAX_HEADS_READ, 'each stalled one told once its caller ended it');
  // The reads are given back: the next oversized body is read and told.
  const next = await a.inject({
    method: 'POST',
    url: '/hooks/toy/sync',
    payload: start + ' '.repeat(LIMIT + 1 - start.length),
    headers: declared,
  });
  t.equal(next.statusCode, 413);
  t.equal(told.length, MAX_HEADS_READ + 1);
});
