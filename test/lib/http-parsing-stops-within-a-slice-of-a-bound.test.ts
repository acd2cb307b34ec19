// Node's HTTP parser goes through a whole socket read (up to 64 KiB), a JavaScript callback per informational answer
// or body chunk, before anything it hands on can stop it: a server that sends a 64 KiB burst of `102`s, or of
// one-byte chunks, cost ~3,600 or ~11,000 callbacks a call after the bound that ended it. With maxParsedBytes the call
// hands the parser a read in slices and stops at the end of the slice in which a bound tripped; a body's pieces are
// counted as the parser hands them (not once the answer flows, a tick later, after the whole read).
import { createServer, type Socket } from 'node:net';
import { ClientRequest, IncomingMessage } from 'node:http';
import t from 'tap';
import { call, InvalidAnswerError } from '../../lib/http.js';

/** A server that answers every request by writing `answer` at once; its port. */
async function server(t: { teardown(fn: () => void): void }, answer: string): Promise<number> {
  const srv = createServer((s: Socket) => {
    s.on('error', () => {});
    s.once('data', () => s.write(answer));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.teardown(() => srv.close());
  return (srv.address() as { port: number }).port;
}

/** Counts the calls of `proto[method]` for `event` (all when undefined) until the teardown. */
function counting(t: { teardown(fn: () => void): void }, proto: any, method: string, event?: string) {
  const seen = { n: 0 };
  const original = proto[method];
  proto[method] = function (this: unknown, ...args: unknown[]) {
    if (event === undefined || args[0] === event) seen.n++;
    return original.apply(this, args);
  };
  t.teardown(() => {
    proto[method] = original;
  });
  return seen;
}

const SLICE = 1024;
const options = {
  method: 'GET',
  timeoutMs: 3000,
  timeoutError: () => new Error('timed out'),
  maxParsedBytes: SLICE,
};

t.test('informational answers are parsed no further than the slice in which one was refused', async (t) => {
  const informational = 'HTTP/1.1 102 P\r\n\r\n';
  const port = await server(t, informational.repeat(4096));
  const parsed = counting(t, ClientRequest.prototype, 'emit', 'information');
  const err = await call(new URL(`http://127.0.0.1:${port}/`), { ...options, maxInformational: 0 }).catch((e) => e);
  t.type(err, InvalidAnswerError);
  t.ok(
    parsed.n <= 1 + SLICE / informational.length + 1,
    `${parsed.n} informational answers parsed, at most a slice's (${Math.ceil(SLICE / informational.length)})`,
  );
});

t.test('a body in one-byte chunks is parsed no further than the slice in which a piece too many came', async (t) => {
  const maxPieces = 1024;
  const port = await server(
    t,
    'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n' + '1\r\nx\r\n'.repeat(60000) + '0\r\n\r\n',
  );
  const pieces = counting(t, IncomingMessage.prototype, 'push');
  const err = await call(new URL(`http://127.0.0.1:${port}/`), { ...options, maxPieces }).catch((e) => e);
  t.type(err, InvalidAnswerError);
  t.match(err.message, /more than 1024 pieces/);
  // Each piece of the body is 6 bytes on the wire ("1\r\nx\r\n").
  t.ok(
    pieces.n <= maxPieces + SLICE / 6 + 2,
    `${pieces.n} pieces parsed, at most the bound's and a slice's (${maxPieces + Math.ceil(SLICE / 6)})`,
  );
});

t.test('an answer larger than the bound is parsed no further than the slice in which it passed it', async (t) => {
  const maxBytes = 4096;
  const port = await server(
    t,
    'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n' + '10\r\n0123456789abcdef\r\n'.repeat(4000) + '0\r\n\r\n',
  );
  const pieces = counting(t, IncomingMessage.prototype, 'push');
  const err = await call(new URL(`http://127.0.0.1:${port}/`), { ...options, maxBytes }).catch((e) => e);
  t.equal(err?.name, 'AnswerTooLargeError');
  // Each piece is 16 bytes of body, 22 on the wire.
  t.ok(pieces.n <= maxBytes / 16 + SLICE / 22 + 2, `${pieces.n} pieces parsed`);
});

t.test('an answer read in slices is the answer sent', async (t) => {
  const body = JSON.stringify({ members: Array.from({ length: 200 }, (_, i) => ({ ID: String(i), name: `m-${i}` })) });
  const port = await server(
    t,
    `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  const answer = await call(new URL(`http://127.0.0.1:${port}/`), options);
  t.equal(answer.status, 200);
  t.equal(answer.body, body);
  t.ok(body.length > 4 * SLICE, 'the answer spans several slices');
});

t.test("a socket a keep-alive agent gives again is sliced with the next call's bound", async (t) => {
  let connections = 0;
  let requests = 0;
  const srv = createServer((s: Socket) => {
    connections++;
    s.on('error', () => {});
    s.on('data', () => {
      // The first request is answered and the connection kept; the second with endless informational answers.
      if (++requests === 1) s.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\n{}');
      else s.write('HTTP/1.1 102 P\r\n\r\n'.repeat(4096));
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.teardown(() => srv.close());
  const url = new URL(`http://127.0.0.1:${(srv.address() as { port: number }).port}/`);
  t.equal((await call(url, options)).body, '{}');
  const parsed = counting(t, ClientRequest.prototype, 'emit', 'information');
  const err = await call(url, { ...options, maxInformational: 0 }).catch((e) => e);
  t.type(err, InvalidAnswerError);
  t.equal(connections, 1, "the second call went over the first one's connection");
  t.ok(parsed.n <= 1 + SLICE / 18 + 1, `${parsed.n} informational answers parsed`);
});
