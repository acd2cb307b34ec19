// The hook deadline (METAOPS_HOOK_DEADLINE_MS) counts from the request's arrival, so that the answer reaches
// Metacontroller before its own webhook timeout: the time a request waited for its turn of the body budget is spent,
// and so is the time its body took to be read and parsed (a body over 1 MiB is parsed a piece at a time, over many
// turns of the event loop, lib/json.ts). Here the parse is made to take the whole deadline (JSON.parse held by a busy
// wait): the hook, which would answer at once, gets no time of its own and the request is answered 429 with
// Retry-After. Before, the hook had the whole deadline again after the parse.
import t from 'tap';
import { buildApp, OVERLOADED, RETRY_AFTER_SECONDS } from '../../lib/app.js';
import type { CompositeSyncRequest } from '../../lib/metacontroller.js';
import { greeting, type Translator } from '../toy/index.js';

const TOKEN = 'deadline-parse-token-0123456789abcdef';
const DEADLINE_MS = 1000;

/** A Greeting's sync of about 2 MiB: its ConfigMap child's data of many small fields (parsed in pieces). */
function request(): string {
  const data: Record<string, string> = { message: 'kept' };
  for (let i = 0; i < 40_000; i++) data[`k${i}`] = 'x'.repeat(40);
  const body: CompositeSyncRequest = {
    controller: {},
    parent: {
      apiVersion: 'toy.metaops.dev/v1',
      kind: 'Greeting',
      metadata: { name: 'slow', namespace: 'toys', uid: 'u-slow', generation: 1 },
      spec: { message: 'hello' },
    } as never,
    children: {
      'ConfigMap.v1': {
        slow: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'slow', namespace: 'toys' }, data },
      },
    },
  };
  return JSON.stringify(body);
}

t.test("the body's parse is spent from the hook's deadline", async (t) => {
  let calls = 0;
  // The hook answers 50 ms after it is called: well within the deadline it would have after the parse.
  const translator: Translator = {
    translate: async (text) => {
      calls++;
      await new Promise((r) => setTimeout(r, 50));
      return text;
    },
  };
  const app = buildApp({
    operators: [greeting],
    auth: { bearer: TOKEN },
    clients: { greeting: { translator: () => translator } },
    env: { TOY_LANGUAGE: 'nb' },
    hookDeadlineMs: DEADLINE_MS,
  });
  t.teardown(() => app.close());

  // The body's parse takes the whole deadline: the first piece of it given to JSON.parse waits that long.
  const original = JSON.parse;
  let held = false;
  JSON.parse = function parse(text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) {
    if (!held && String(text).length > 64 * 1024) {
      held = true;
      const until = performance.now() + DEADLINE_MS;
      while (performance.now() < until);
    }
    return original(text, reviver) as unknown;
  } as typeof JSON.parse;
  t.teardown(() => {
    JSON.parse = original;
  });

  const body = request();
  t.ok(body.length > 1024 * 1024, 'a body over 1 MiB (parsed in pieces)');
  const res = await app.inject({
    method: 'POST',
    url: '/hooks/greeting/sync',
    payload: body,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
  });
  t.ok(held, 'the parse took the whole deadline');
  t.equal(calls, 1, 'the hook was called once the body was parsed');
  t.equal(res.statusCode, OVERLOADED, 'answered 429: the deadline was spent by the parse');
  t.equal(res.headers['retry-after'], String(RETRY_AFTER_SECONDS));
  t.match(res.json().message, /the hook did not answer within/);
});
