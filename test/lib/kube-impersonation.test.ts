// The impersonation headers (METAOPS_DEBUG_ACT_AS_AUTHOR): Impersonate-User, Impersonate-Uid, one Impersonate-Group per
// group, one Impersonate-Extra-<key> per value with the key percent-encoded as the API server decodes it (it
// lowercases the header name, then unescapes it as a URL path). A user, UID, group or extra value outside printable
// ASCII, or with white space at an end, cannot be carried exactly: it is refused, never approximated.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import t from 'tap';
import {
  extraKeyHeader,
  HttpKubeApi,
  type Impersonation,
  impersonationHeaders,
  KubeError,
  MAX_IMPERSONATION_BYTES,
  MAX_OBJECT_READ_BYTES,
  ReadTurns,
} from '../../lib/kube.js';
import { MAX_READ_BYTES } from '../../lib/http.js';

/** What the API server makes of an extra header's name: lowercased, then URL-path unescaped. */
const decoded = (name: string) => decodeURIComponent(name.toLowerCase());

t.test('the headers: user, UID, each group, each extra value', async (t) => {
  const made = impersonationHeaders({
    user: 'alice',
    uid: 'u-1',
    groups: ['team-a', 'system:authenticated'],
    extra: { scopes: ['read', 'debug'], 'example.com/Session ID%': ['s-1'] },
  });
  t.same(made, {
    headers: {
      'impersonate-user': 'alice',
      'impersonate-uid': 'u-1',
      'impersonate-group': ['team-a', 'system:authenticated'],
      'impersonate-extra-scopes': ['read', 'debug'],
      'impersonate-extra-example.com%2F%53ession%20%49%44%25': ['s-1'],
    },
  });
  t.same(
    impersonationHeaders({ user: 'bob', groups: [] }),
    { headers: { 'impersonate-user': 'bob' } },
    'no UID, no groups',
  );
});

t.test('an extra key comes back as it was, whatever its bytes', async (t) => {
  for (const key of ['scopes', 'Scopes', 'a/b', '50%', 'a b', 'ключ', 'x:y=z', 'UPPER-lower_9']) {
    const name = extraKeyHeader(key);
    t.match(name, /^[a-z0-9!#$&'*+\-.^_`|~%A-F]+$/, `${key}: token characters only`);
    t.equal(decoded(name), key, `${key} round-trips`);
  }
});

t.test('a name a header cannot carry exactly is refused', async (t) => {
  const refused: Impersonation[] = [
    { user: ' alice', groups: [] },
    { user: 'alice\t', groups: [] },
    { user: 'al\nice', groups: [] },
    { user: '', groups: [] },
    { user: 'alice', uid: 'u\r1', groups: [] },
    { user: 'alice', groups: ['ok', 'bad\u0000'] },
    { user: 'alice', groups: [''] },
    { user: 'alice', groups: [], extra: { '': ['v'] } },
    { user: 'alice', groups: [], extra: { k: [' v'] } },
    { user: 'jörg', groups: [] },
    { user: 'alice', groups: ['équipe'] },
  ];
  for (const who of refused) t.match(impersonationHeaders(who), { problem: /cannot|empty/ }, JSON.stringify(who));
  const many = Array.from({ length: MAX_IMPERSONATION_BYTES / 20 }, (_, i) => `g${i}`);
  t.match(impersonationHeaders({ user: 'alice', groups: many }), { problem: /too many groups/ });
});

t.test(
  'on the wire: one header line per group and per extra value; the client refuses whom it cannot name',
  async (t) => {
    let seen: { headers: IncomingHttpHeaders; raw: string[] } | undefined;
    const server = createServer((req, res) => {
      seen = { headers: req.headers, raw: req.rawHeaders };
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.teardown(() => server.close());
    const port = (server.address() as { port: number }).port;
    const kube = new HttpKubeApi(3000, { server: `http://127.0.0.1:${port}`, token: 'metaops-token-0123456789' });
    await kube
      .impersonating({ user: 'alice', uid: 'u-1', groups: ['a', 'b'], extra: { Scopes: ['x', 'y'] } })
      .addEphemeralContainers('ns', 'p', [{ name: 'debug-a' }]);
    const lines = (name: string) =>
      seen!.raw.flatMap((v, i) => (i % 2 === 0 && v.toLowerCase() === name ? [seen!.raw[i + 1]!] : []));
    t.same(lines('impersonate-group'), ['a', 'b'], 'one line per group');
    t.same(lines('impersonate-extra-%53copes'), ['x', 'y'], 'one line per value, the key keeps its case');
    t.same(lines('impersonate-user'), ['alice']);
    t.same(lines('impersonate-uid'), ['u-1']);
    t.equal(seen!.headers.authorization, 'Bearer metaops-token-0123456789', "the server's own token authenticates");
    // The plain client sends none.
    await kube.addEphemeralContainers('ns', 'p', [{ name: 'debug-a' }]);
    t.same(lines('impersonate-user'), []);
    t.throws(() => kube.impersonating({ user: 'alice ', groups: [] }), new KubeError(0, '', 'AuthorUnverified'));
  },
);

t.test('a large answer: read up to MAX_OBJECT_READ_BYTES, a PATCH answer not at all', async (t) => {
  const big = JSON.stringify({ metadata: { name: 'p', namespace: 'ns' }, blob: 'x'.repeat(MAX_READ_BYTES + 10) });
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(req.url!.includes('huge') ? JSON.stringify({ blob: 'x'.repeat(MAX_OBJECT_READ_BYTES) }) : big);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const port = (server.address() as { port: number }).port;
  const kube = new HttpKubeApi(3000, { server: `http://127.0.0.1:${port}` });
  await t.rejects(kube.get('v1', 'pods', 'ns', 'p'), { name: 'AnswerTooLargeError' }, 'the default bound holds');
  t.equal((await kube.get('v1', 'pods', 'ns', 'p', { maxBytes: MAX_OBJECT_READ_BYTES }))!.metadata.name, 'p');
  await t.rejects(
    kube.get('v1', 'pods', 'ns', 'huge', { maxBytes: 10 * MAX_OBJECT_READ_BYTES }),
    { name: 'AnswerTooLargeError' },
    'never more than MAX_OBJECT_READ_BYTES',
  );
  await kube.addEphemeralContainers('ns', 'huge', [{ name: 'debug-a' }]);
  t.pass('a PATCH whose answer is larger than any read succeeds');
});

t.test('large reads take turns: at most the turns at once, a waiter gives up at its deadline', async (t) => {
  const turns = new ReadTurns(2);
  const a = await turns.take(100);
  const b = await turns.take(100);
  t.equal(turns.available, 0);
  await t.rejects(turns.take(20), /no turn to read a large answer within 20 ms/, 'no turn within the deadline');
  const waiting = turns.take(1000);
  a();
  a(); // given back once only
  const c = await waiting;
  t.equal(turns.available, 0, 'the waiter took the turn given back');
  const ac = new AbortController();
  const aborted = turns.take(1000, ac.signal);
  ac.abort(new Error('deadline'));
  await t.rejects(aborted, /deadline/);
  b();
  c();
  t.equal(turns.available, 2);
});
