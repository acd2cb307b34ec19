// A body over 1 MiB is parsed a piece at a time (lib/json.ts parseInPieces), the event loop turning between pieces,
// so its caller may go while it is parsed (Metacontroller's webhook timeout, a retry, a dropped connection). Nobody
// reads that answer: the hook is not run (Metacontroller calls again, and hooks are functions of what it sends), and
// the request's turn of the body budget is given back once the parse has ended (lib/hook-routes.ts).
// Expected: a caller gone during the parse has no hook run, and the same body from a caller that stays is answered.
import { request } from 'node:http';
import t, { type Test } from 'tap';
import { buildApp } from '../../lib/app.js';
import { serverBudget } from '../../lib/body-budget.js';
import { operators as registry } from '../../main/operators.js';
import { greeting } from '../toy/index.js';

const TOKEN = 'hook-not-run-gone-caller-token-0123456789';

/** A Greeting's sync of about 2 MiB (a note on the parent): parsed in pieces. */
function largeGreeting(): string {
  return JSON.stringify({
    controller: {},
    parent: {
      apiVersion: 'toy.metaops.dev/v1',
      kind: 'Greeting',
      metadata: {
        name: 'hello',
        namespace: 'toys',
        uid: 'u1',
        generation: 1,
        annotations: Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`note-${i}`, 'x'.repeat(32 * 1024)])),
      },
      spec: { message: 'hello' },
    },
    children: {},
  });
}

function served(t: Test) {
  const translated: string[] = [];
  const budget = serverBudget();
  const app = buildApp({
    operators: [...registry, greeting],
    auth: { bearer: TOKEN },
    services: { now: () => new Date('2026-11-29T12:00:00Z') },
    clients: { greeting: { translator: () => ({ translate: async (text: string) => (translated.push(text), text) }) } },
    env: { TOY_LANGUAGE: 'nb' },
    bodyBudget: budget,
  });
  t.teardown(() => app.close());
  return { app, budget, translated };
}

/** Calls `f` with every piece of a large body the server gives JSON.parse, while the test runs. */
function onPiece(t: Test, f: () => void): { count: () => number } {
  const original = JSON.parse;
  let n = 0;
  JSON.parse = function parse(text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) {
    if (typeof text === 'string' && text.length > 64 * 1024) {
      n++;
      f();
    }
    return original(text, reviver) as unknown;
  } as typeof JSON.parse;
  t.teardown(() => {
    JSON.parse = original;
  });
  return { count: () => n };
}

function post(base: URL, body: string) {
  return request({
    host: base.hostname,
    port: base.port,
    path: '/hooks/greeting/sync',
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      authorization: `Bearer ${TOKEN}`,
    },
  });
}

t.test('a caller that goes while its body is parsed has no hook run, and its turn is given back', async (t) => {
  const { app, budget, translated } = served(t);
  const base = new URL(await app.listen({ port: 0, host: '127.0.0.1' }));
  let firstPiece: (() => void) | undefined;
  const pieces = onPiece(t, () => firstPiece?.());
  const parsing = new Promise<void>((resolve) => (firstPiece = resolve));
  const body = largeGreeting();
  const req = post(base, body);
  req.on('error', () => {});
  req.end(body);
  await parsing;
  const before = pieces.count();
  req.destroy();
  // The parse goes on after the caller went; once it has ended, the handler gives the turn back.
  const until = Date.now() + 20_000;
  while (budget.used !== 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  t.ok(pieces.count() > before, 'the body was still being parsed after its caller went');
  t.equal(budget.used, 0, 'the turn given back once the parse ended');
  await new Promise((r) => setTimeout(r, 100));
  t.same(translated, [], 'the hook was not run for a caller that had gone');
});

t.test('the same body from a caller that stays is answered by its hook', async (t) => {
  const { app, budget, translated } = served(t);
  const res = await app.inject({
    method: 'POST',
    url: '/hooks/greeting/sync',
    payload: largeGreeting(),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
  });
  t.equal(res.statusCode, 200, 'answered');
  t.same(translated, ['hello'], 'the hook ran once');
  t.equal(budget.used, 0, 'the turn given back');
});
