// Attacks on the confinement of related objects, the body parser, the URL in refusals and the log context
// (lib/app.ts, lib/objects.ts, lib/json.ts): hostile but well-formed requests, each answered as the promise says.
import t from 'tap';
import { rawGet } from '../fixtures/net.js';
import { buildApp } from '../../lib/app.js';
import type { CallContext, HookDefinition } from '../../lib/hook.js';
import { Metrics } from '../../lib/metrics.js';
import { captureLogs } from '../fixtures/logs.js';

type Tap = { teardown(fn: () => unknown): void };

const object = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'decorated', namespace: 'ns', uid: 'u-decorated' },
};
const pod = (namespace: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace } });

/** A decorator that records the related objects it was given and logs a line (as hooks do). */
function decorator(seen: Array<Record<string, unknown>>): HookDefinition {
  return {
    type: 'decorator',
    name: 'decor',
    resources: [{ apiVersion: 'v1', resource: 'configmaps' }],
    attachments: [],
    sync: (body: any, ctx: CallContext<any, any>) => {
      seen.push(body.related?.['Pod.v1'] ?? {});
      ctx.log.info('decorating');
      return { attachments: [] };
    },
  } as unknown as HookDefinition;
}

function app(t: Tap, operators: HookDefinition[], logs?: ReturnType<typeof captureLogs>) {
  const a = buildApp({
    operators,
    metrics: new Metrics(false),
    ...(logs ? { logger: { level: 'info', stream: logs.stream } } : {}),
  });
  t.teardown(() => a.close());
  return a;
}

t.test(
  "a decorator request with a `parent` as well: related objects confined to the decorated object's namespace",
  async (t) => {
    // Metacontroller sends a DecoratorController's hook `object`; the envelope is open, so a `parent` member is
    // passed through unchecked. confineRelated took the namespace from `parent ?? object`: such a member chose the
    // namespace the decorator saw (or, without one, left every namespace's objects in).
    const seen: Array<Record<string, unknown>> = [];
    const logs = captureLogs();
    const a = app(t, [decorator(seen)], logs);
    const parents = [{ metadata: { namespace: 'other' } }, { metadata: {} }, {}, 'other', 0, false, [], null];
    for (const parent of parents) {
      seen.length = 0;
      const res = await a.inject({
        method: 'POST',
        url: '/hooks/decor/sync',
        payload: {
          controller: {},
          object,
          parent,
          related: { 'Pod.v1': { 'ns/p': pod('ns'), 'other/p': pod('other') } },
        },
      });
      const what = `parent: ${JSON.stringify(parent)}`;
      t.equal(res.statusCode, 200, `${what}: answered (${res.body.slice(0, 120)})`);
      t.same(Object.keys(seen[0] ?? {}), ['ns/p'], `${what}: only the decorated object's namespace`);
    }
    // The log context names the decorated object, whatever `parent` says.
    const lines = logs
      .text()
      .split('\n')
      .filter((l) => l.includes('decorating'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    t.equal(lines.length, parents.length);
    for (const line of lines) t.match(line, { namespace: 'ns', name: 'decorated', uid: 'u-decorated' });
  },
);

t.test(
  'a target the router cannot decode: its query, user information and host neither logged nor echoed',
  async (t) => {
    const logs = captureLogs();
    const a = app(t, [], logs);
    await a.listen({ port: 0, host: '127.0.0.1' });
    const port = (a.server.address() as { port: number }).port;
    for (const target of [
      '/hooks/%zz/sync?token=hunter2',
      'http://user:hunter2@evil.example/hooks/toy/sync#frag',
      'http://user:hunter2@evil.example/hooks/%zz?q=hunter2',
    ]) {
      const answer = await rawGet(port, target);
      t.match(answer, /^HTTP\/1.1 400/, target);
      t.notMatch(answer, /hunter2|evil|user|frag/, `${target}: not echoed`);
    }
    t.notMatch(logs.text(), /hunter2|evil|user|frag/, 'not logged');
    t.match(logs.text(), '"url":"/hooks/%zz/sync"');
  },
);

t.test('an absolute-form target whose user information holds a slash: neither it nor the host logged', async (t) => {
  // The authority ended at the first `/`, so `http://user:pw/hunter2@evil.example/nope` was logged as
  // `/hunter2@evil.example/nope`: the rest of the password and the host (a client that puts a password with a `/`
  // in the URL as it is).
  const logs = captureLogs();
  const a = app(t, [], logs);
  await a.listen({ port: 0, host: '127.0.0.1' });
  const port = (a.server.address() as { port: number }).port;
  for (const target of ['http://user:pw/hunter2@evil.example/nope?q=1', 'http://user/hunter2@evil.example/nope']) {
    const answer = await rawGet(port, target);
    t.notMatch(answer, /hunter2|evil/, `${target}: not echoed`);
  }
  t.notMatch(logs.text(), /hunter2|evil/, 'not logged');
  t.match(logs.text(), '"url":"/nope"');
});

t.test('a body that is not JSON: no text of it in the refusal or the log', async (t) => {
  // V8 quotes the text around an unexpected token (`Unexpected token 'h', ..."assword": hunter2"... is not valid
  // JSON`): a form or a credential posted as JSON would reach the log at warn.
  const logs = captureLogs();
  const seen: Array<Record<string, unknown>> = [];
  const a = app(t, [decorator(seen)], logs);
  for (const payload of ['{"password": hunter2}', 'token=hunter2&user=x', 'hunter2']) {
    const res = await a.inject({
      method: 'POST',
      url: '/hooks/decor/sync',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    t.equal(res.statusCode, 400, payload);
    t.match(res.json().message, /^Body is not valid JSON/);
    t.notMatch(res.body, /hunter2|assword/, `${payload}: not echoed`);
  }
  t.notMatch(logs.text(), /hunter2|assword/, 'not logged');
  t.equal(seen.length, 0);
});
