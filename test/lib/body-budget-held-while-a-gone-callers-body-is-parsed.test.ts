// The body budget (lib/body-budget.ts) bounds the request bodies in hand at once: a request's turn is given back
// once its answer is sent or its caller has gone, and its hook has settled. A body over 1 MiB is parsed a piece at a
// time (lib/json.ts parseInPieces), the event loop turning between pieces, so its parse now spans many turns of the
// loop, and a caller may go while it runs (Metacontroller's webhook timeout, a retry, a dropped connection). The
// turn is then given back at once (lib/hook-routes.ts takeTurn: no hook pending yet), while the body's text and the
// value being built stay in hand until the parse ends: the next request takes the freed bytes, and N callers that
// go once their body is being parsed put N bodies of the limit in hand with the budget saying none or one.
// Tenant A decides the size of its own syncs (its EtcdRestores' labels, test/fixtures/slow-tenant-syncs.ts).
// Expected: every piece of a body is parsed while that body's bytes are counted in the budget.
import { request } from 'node:http';
import t from 'tap';
import { budgetServer, largeSync } from '../fixtures/slow-tenant-syncs.js';

const TOKEN = 'body-budget-gone-caller-token-0123456789abcdef';

t.test("a body's bytes stay counted in the budget while it is parsed, even once its caller has gone", async (t) => {
  const server = await budgetServer(t, TOKEN);
  const { budget } = server;
  const base = new URL(server.base);
  const body = largeSync();

  // Every piece of a large body given to JSON.parse, with the bytes the budget counts at that moment.
  const original = JSON.parse;
  const pieces: number[] = [];
  let firstPiece: (() => void) | undefined;
  JSON.parse = function parse(text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) {
    if (String(text).length > 64 * 1024) {
      pieces.push(budget.used);
      firstPiece?.();
    }
    return original(text, reviver) as unknown;
  } as typeof JSON.parse;
  t.teardown(() => {
    JSON.parse = original;
  });

  // The caller sends the whole body and goes as soon as the server is parsing it.
  const parsing = new Promise<void>((resolve) => (firstPiece = resolve));
  const req = request({
    host: base.hostname,
    port: base.port,
    path: '/hooks/etcdcluster/sync',
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      authorization: `Bearer ${TOKEN}`,
    },
  });
  req.on('error', () => {});
  req.end(body);
  await parsing;
  const before = pieces.length;
  req.destroy();
  // The parse of the body goes on after the caller went; let it end (the answer is never read).
  let seen = -1;
  while (seen !== pieces.length) {
    seen = pieces.length;
    await new Promise((r) => setTimeout(r, 500));
  }
  t.ok(
    pieces.length > before + 1,
    `the body was still being parsed after its caller went (${pieces.length - before} pieces after, ${before} before)`,
  );
  const uncounted = pieces.filter((used) => used === 0).length;
  t.equal(
    uncounted,
    0,
    `no piece is parsed while the budget counts none of its body (${uncounted} of ${pieces.length} were)`,
  );
  t.equal(budget.used, 0, 'every turn given back in the end');
});

t.test('callers that go while their bodies are parsed put no more bodies in hand than the budget holds', async (t) => {
  // One large sync takes the whole budget (8 MiB; its reserve is for small requests only): one in hand at a time.
  const base = new URL((await budgetServer(t, TOKEN)).base);
  // Five of A's syncs, each told apart by the last character of its labels' keys (the same size).
  const bodies = Array.from({ length: 5 }, (_, i) => largeSync().replaceAll('kk":', `k${i}":`));

  // Which body each piece given to JSON.parse belongs to, in order.
  const original = JSON.parse;
  const order: number[] = [];
  let piece: ((body: number) => void) | undefined;
  JSON.parse = function parse(text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) {
    const s = String(text);
    const of = s.length > 64 * 1024 ? /k([0-4])":/.exec(s) : null;
    if (of) {
      order.push(Number(of[1]));
      piece?.(Number(of[1]));
    }
    return original(text, reviver) as unknown;
  } as typeof JSON.parse;
  t.teardown(() => {
    JSON.parse = original;
  });

  // One after another, each caller going once the server is parsing its body (or once it has waited a while for a
  // turn: then it never had one).
  for (const [i, body] of bodies.entries()) {
    const parsing = new Promise<void>((resolve) => {
      piece = (b) => {
        if (b === i) resolve();
      };
      setTimeout(resolve, 3000);
    });
    const req = request({
      host: base.hostname,
      port: base.port,
      path: '/hooks/etcdcluster/sync',
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        authorization: `Bearer ${TOKEN}`,
      },
    });
    req.on('error', () => {});
    req.end(body);
    await parsing;
    piece = undefined;
    req.destroy();
  }
  // Every parse ended (no piece for half a second).
  let seen = -1;
  while (seen !== order.length) {
    seen = order.length;
    await new Promise((r) => setTimeout(r, 500));
  }
  // The bodies being parsed at once: between the first and the last piece of each.
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  order.forEach((b, i) => {
    if (!first.has(b)) first.set(b, i);
    last.set(b, i);
  });
  let most = 0;
  for (let i = 0; i < order.length; i++)
    most = Math.max(most, [...first.keys()].filter((b) => first.get(b)! <= i && i <= last.get(b)!).length);
  t.comment(`pieces by body, in order: ${order.join('')}`);
  t.ok(first.size > 0, 'the bodies were parsed');
  t.ok(most <= 1, `at most one large body is being parsed at once, as the budget holds one (${most} were)`);
});
