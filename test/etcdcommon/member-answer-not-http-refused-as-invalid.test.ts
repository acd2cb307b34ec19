// A member's answer that is no etcd answer at the HTTP level (an informational answer before it, a body in more
// pieces than MAX_ANSWER_PIECES) ends the call as that member's invalid answer, said so; lib/http.ts bounds the
// informational answers of every call (MAX_INFORMATIONAL), and a body's pieces when asked.
import { createServer, type Server, type Socket } from 'node:net';
import t from 'tap';
import { ClientRequest } from 'node:http';
import { HttpEtcdClient, MAX_ANSWER_PIECES, MAX_PARSED_BYTES } from '../../hooks/etcdcommon/etcd.js';
import { call, InvalidAnswerError, MAX_INFORMATIONAL } from '../../lib/http.js';

const HEALTH = '{"health":"true"}';

/** A server that answers every request as `answer` writes it on the socket; its port. */
async function server(t: { teardown(fn: () => void): void }, answer: (s: Socket) => void): Promise<number> {
  const srv: Server = createServer((s) => {
    s.on('error', () => {});
    s.once('data', () => answer(s));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.teardown(() => srv.close());
  return (srv.address() as { port: number }).port;
}

function chunked(body: string, size: number): string {
  let out = '';
  for (let at = 0; at < body.length; at += size) {
    const piece = body.slice(at, at + size);
    out += `${piece.length.toString(16)}\r\n${piece}\r\n`;
  }
  return out + '0\r\n\r\n';
}

const ok = (body: string) =>
  `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n${body}`;

function client(port: number): HttpEtcdClient {
  return new HttpEtcdClient({
    resolve: (url) => {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
  });
}

t.test('an informational answer from a member ends the call as its invalid answer', async (t) => {
  const port = await server(t, (s) => s.end(`HTTP/1.1 102 Processing\r\n\r\n${ok(chunked(HEALTH, 64))}`));
  const health = await client(port).health('http://a-0.a.ns-a.svc:2379');
  t.equal(health.healthy, false);
  t.match(health.error, /sent no etcd answer \(more than 0 informational \(1xx\) answers\): the answer is refused/);
  await t.rejects(
    client(port).memberList(['http://a-0.a.ns-a.svc:2379']),
    { code: 'Invalid', message: /sent no etcd answer/ },
    "the member list through it: the member's invalid answer",
  );
});

t.test(
  "a member's informational answers are parsed no further than the slice in which the first was refused",
  async (t) => {
    const informational = 'HTTP/1.1 102 Processing\r\n\r\n';
    const port = await server(t, (s) => s.write(informational.repeat(4096)));
    let parsed = 0;
    const emit = ClientRequest.prototype.emit;
    ClientRequest.prototype.emit = function (this: ClientRequest, event: string | symbol, ...args: unknown[]) {
      if (event === 'information') parsed++;
      return emit.call(this, event, ...args);
    } as typeof emit;
    t.teardown(() => {
      ClientRequest.prototype.emit = emit;
    });
    const health = await client(port).health('http://a-0.a.ns-a.svc:2379');
    ClientRequest.prototype.emit = emit;
    t.equal(health.healthy, false);
    // A health read is three calls; each parses at most one slice of MAX_PARSED_BYTES (a socket read is up to 64 KiB).
    const most = 3 * (Math.ceil(MAX_PARSED_BYTES / informational.length) + 1);
    t.ok(parsed <= most, `${parsed} informational answers parsed in one health read, at most ${most}`);
  },
);

t.test(
  "an answer in more pieces than the bound ends the call as the member's invalid answer; at the bound it is read",
  async (t) => {
    const padded = (n: number) => JSON.stringify({ health: 'true', pad: 'x'.repeat(n - 26) });
    const at = await server(t, (s) => s.end(ok(chunked(padded(MAX_ANSWER_PIECES), 1))));
    const past = await server(t, (s) => s.end(ok(chunked(padded(MAX_ANSWER_PIECES + 1), 1))));
    t.equal(padded(MAX_ANSWER_PIECES).length, MAX_ANSWER_PIECES);
    const read = await client(at).health('http://a-0.a.ns-a.svc:2379');
    t.equal(read.healthy, true, `an answer in ${MAX_ANSWER_PIECES} pieces is read`);
    const refused = await client(past).health('http://a-0.a.ns-a.svc:2379');
    t.equal(refused.healthy, false);
    t.match(refused.error, new RegExp(`sent no etcd answer \\(an answer in more than ${MAX_ANSWER_PIECES} pieces\\)`));
    await t.rejects(
      client(past).memberList(['http://a-0.a.ns-a.svc:2379']),
      { code: 'Invalid', message: /an answer in more than/ },
      "the member list through it: the member's invalid answer",
    );
  },
);

t.test('a call reads at most MAX_INFORMATIONAL informational answers by default', async (t) => {
  const answering = (n: number) =>
    server(t, (s) =>
      s.end('HTTP/1.1 102 Processing\r\n\r\n'.repeat(n) + 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}'),
    );
  const options = { method: 'GET', timeoutMs: 2000, timeoutError: () => new Error('timeout') };
  const within = await call(new URL(`http://127.0.0.1:${await answering(MAX_INFORMATIONAL)}/`), options);
  t.same(within, { status: 200, body: '{}' }, `${MAX_INFORMATIONAL} informational answers, then the answer`);
  await t.rejects(
    call(new URL(`http://127.0.0.1:${await answering(MAX_INFORMATIONAL + 1)}/`), options),
    InvalidAnswerError,
    'one more fails the call',
  );
});
