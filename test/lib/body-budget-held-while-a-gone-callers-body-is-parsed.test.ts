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
import { serverBudget } from '../../lib/body-budget.js';
import { testApp } from '../fixtures/app.js';
import { largeSync, silentEtcd } from '../fixtures/slow-tenant-syncs.js';

const TOKEN = 'body-budget-gone-caller-token-0123456789abcdef';

t.test("a body's bytes stay counted in the budget while it is parsed, even once its caller has gone", async (t) => {
  const budget = serverBudget();
  const app = testApp({ auth: { bearer: TOKEN }, deps: { etcdClient: () => silentEtcd }, bodyBudget: budget });
  t.teardown(() => app.close());
  const base = new URL(await app.listen({ port: 0, host: '127.0.0.1' }));
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
