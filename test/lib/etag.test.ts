// The hooks' ETag (lib/answer.ts, sendTagged): the tag is the digest of the answer sent, so it follows the answer,
// never the request. The same request whose answer changed must get the new answer in full, not a 304.
import { createHash } from 'node:crypto';
import t from 'tap';
import { testApp as buildApp } from '../fixtures/app.js';
import { example, FIXED_NOW } from '../fixtures/requests.js';

const digest = (body: string) => `"${createHash('sha1').update(body).digest('base64url')}"`;

t.test('the same request with another answer: a new tag and the answer in full, never a 304', async (t) => {
  // A new MySQLCluster gets freshly generated passwords: the same request, a different answer each time.
  let n = 0;
  const app = buildApp({ services: { now: () => FIXED_NOW, randomSecret: () => `password-${++n}` } });
  t.teardown(() => app.close());
  const payload = example('mysqlcluster-sync');
  const first = await app.inject({ method: 'POST', url: '/hooks/mysqlcluster/sync', payload });
  t.equal(first.statusCode, 200);
  const etag = first.headers['etag'] as string;
  t.equal(etag, digest(first.body), 'the digest of the body sent');
  const second = await app.inject({
    method: 'POST',
    url: '/hooks/mysqlcluster/sync',
    payload,
    headers: { 'if-none-match': etag },
  });
  t.equal(second.statusCode, 200, 'the answer changed: sent in full');
  t.not(second.body, first.body);
  t.equal(second.headers['etag'], digest(second.body));
  t.not(second.headers['etag'], etag);
  t.match(second.headers['content-type'], /^application\/json; charset=utf-8$/);
  t.same(JSON.parse(second.body).children.length, JSON.parse(first.body).children.length);
});

t.test('a 304 carries the tag and no body; any other tag in the list does not match', async (t) => {
  const app = buildApp({ services: { now: () => FIXED_NOW, randomSecret: () => 'fixed' } });
  t.teardown(() => app.close());
  const payload = example('podset-sync');
  const first = await app.inject({ method: 'POST', url: '/hooks/podset/sync', payload });
  const etag = first.headers['etag'] as string;
  t.match(first.headers['content-type'], /^application\/json; charset=utf-8$/, 'an answer is JSON');
  const again = await app.inject({
    method: 'POST',
    url: '/hooks/podset/sync',
    payload,
    headers: { 'if-none-match': ` "a" , ${etag} ` },
  });
  t.equal(again.statusCode, 304);
  t.equal(again.headers['etag'], etag);
  t.equal(again.body, '');
  for (const other of ['"a", "b"', etag.slice(1, -1), `${etag}x`, '']) {
    const res = await app.inject({
      method: 'POST',
      url: '/hooks/podset/sync',
      payload,
      headers: { 'if-none-match': other },
    });
    t.equal(res.statusCode, 200, `If-None-Match ${JSON.stringify(other)}: no match`);
    t.equal(res.body, first.body);
  }
});
