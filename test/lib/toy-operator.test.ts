// An eighth operator, defined only in test/toy/ (its own folder) and served by adding it to the list: nothing in
// lib/ names it, yet the framework parses its spec, answers InvalidSpec, stamps observedGeneration, renders its
// TemporaryError, counts its client's calls, refuses its client to a stranger, aborts its work at the deadline,
// checks its settings at start and generates its CRD and controller.
import t from 'tap';
import { buildApp } from '../../lib/app.js';
import { ConfigError, settingsFromEnv } from '../../lib/config.js';
import { controller, crd } from '../../lib/manifests.js';
import type { CompositeSyncRequest } from '../../lib/metacontroller.js';
import { operators as registry } from '../../main/operators.js';
import { greeting, type Translator } from '../toy/index.js';

const TOKEN = 'toy-token-0123456789abcdef';
const operators = [...registry, greeting];
const NOW = new Date('2026-11-24T10:00:00Z');
const auth = { authorization: `Bearer ${TOKEN}` };

function request(spec: unknown, status?: unknown, name = 'hello'): CompositeSyncRequest {
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'toys' },
    data: { message: 'kept' },
  };
  return {
    controller: {},
    parent: {
      apiVersion: 'toy.metaops.dev/v1',
      kind: 'Greeting',
      metadata: { name, namespace: 'toys', uid: 'u1', generation: 4 },
      spec,
      ...(status ? { status } : {}),
    } as never,
    children: { 'ConfigMap.v1': { [name]: configMap } },
  };
}

function app(translator: Translator, options: { hookDeadlineMs?: number } = {}) {
  const a = buildApp({
    operators,
    auth: { bearer: TOKEN },
    services: { now: () => NOW },
    clients: { greeting: { translator: () => translator } },
    env: { TOY_LANGUAGE: 'nb' },
    ...options,
  });
  t.teardown(() => a.close());
  return a;
}

const post = (a: ReturnType<typeof app>, body: unknown, headers: Record<string, string> = auth) =>
  a.inject({ method: 'POST', url: '/hooks/greeting/sync', payload: body as object, headers });

t.test('served: its answer, its setting, observedGeneration stamped by the framework', async (t) => {
  const languages: string[] = [];
  const a = app({ translate: async (text, language) => (languages.push(language), `hei: ${text}`) });
  const res = await post(a, request({ message: 'hello', shout: true }));
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.same(body.children, [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'hello', namespace: 'toys' },
      data: { message: 'HEI: HELLO' },
    },
  ]);
  t.equal(body.status.said, 'HEI: HELLO');
  t.equal(body.status.observedGeneration, 4, 'stamped with the parent generation');
  t.match(body.status.conditions, [{ type: 'Ready', status: 'True', reason: 'Said', observedGeneration: 4 }]);
  t.same(languages, ['nb'], 'its setting, read from the environment the app was given');
  const listed = (await a.inject({ method: 'GET', url: '/hooks' }))
    .json()
    .hooks.filter((h: { name: string }) => h.name === 'greeting');
  t.same(
    listed.map((h: { path: string }) => h.path),
    ['/hooks/greeting/sync'],
  );
});

t.test('an invalid spec or parent: InvalidSpec, every child kept, observedGeneration left where it was', async (t) => {
  let called = 0;
  const a = app({ translate: async (text) => (called++, text) });
  for (const [label, req] of [
    ['spec', request({ message: '' }, { observedGeneration: 3 })],
    ['parent', request({ message: 'x' }, { observedGeneration: 3 }, 'nameless')],
  ] as const) {
    const body = (await post(a, req)).json();
    t.match(body.status.conditions, [{ type: 'Ready', status: 'False', reason: 'InvalidSpec' }], label);
    t.equal(body.status.observedGeneration, 3, `${label}: not stamped`);
    t.same(
      body.children.map((c: { data: unknown }) => c.data),
      [{ message: 'kept' }],
      `${label}: the observed child kept as it is`,
    );
  }
  t.equal(called, 0, 'the client is never reached');
});

t.test('a TemporaryError: conditions, the resync it asks for, every observed child kept', async (t) => {
  const a = app({ translate: async () => Promise.reject(new Error('503 from the translator')) });
  const body = (await post(a, request({ message: 'hello' }, { said: 'before' }))).json();
  t.match(body.status.conditions, [
    { type: 'Ready', status: 'False', reason: 'TranslatorDown', message: /503 from the translator/ },
  ]);
  t.equal(body.status.said, 'before', 'the rest of the status kept');
  t.equal(body.resyncAfterSeconds, 7);
  t.same(
    body.children.map((c: { data: unknown }) => c.data),
    [{ message: 'kept' }],
  );
  const metrics = (await a.inject({ method: 'GET', url: '/metrics' })).body;
  t.match(
    metrics,
    /metaops_dependency_calls_total\{dependency="translator",operation="translate",outcome="error"\} 1/,
    'its client is counted under its own name',
  );
});

t.test('a caller without credentials gets no client of the toy', async (t) => {
  let called = 0;
  const a = buildApp({
    operators,
    clients: { greeting: { translator: () => ({ translate: async (x: string) => (called++, x) }) } },
  });
  t.teardown(() => a.close());
  const res = await post(a, request({ message: 'hello' }), {});
  t.equal(res.statusCode, 401);
  t.equal(called, 0);
});

t.test('the route deadline aborts the work the toy started', async (t) => {
  let aborted: unknown;
  const a = app(
    {
      translate: (_text, _language, signal) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => ((aborted = signal.reason), reject(signal.reason))),
        ),
    },
    { hookDeadlineMs: 150 },
  );
  const res = await post(a, request({ message: 'hello' }));
  t.equal(res.statusCode, 429);
  t.match(String(aborted), /did not answer within 150 ms/, 'the signal the hook was given was aborted with the reason');
});

t.test('its settings are checked at start, its CRD and controller generated', async (t) => {
  const problems = (env: NodeJS.ProcessEnv) => operators.flatMap((op) => op.configProblems?.(env) ?? []);
  t.throws(() => settingsFromEnv({ TOY_LANGUAGE: 'norsk' }, problems), ConfigError);
  t.doesNotThrow(() => settingsFromEnv({ TOY_LANGUAGE: 'nb' }, problems));
  const definition = crd(greeting.resource) as any;
  t.equal(definition.metadata.name, 'greetings.toy.metaops.dev');
  t.equal(definition.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.shout.default, false);
  const rendered = JSON.stringify(controller(greeting, { target: { kind: 'url', base: 'http://toy' } }));
  t.match(rendered, /\/hooks\/greeting\/sync/);
  t.match(rendered, /configmaps/);
});
