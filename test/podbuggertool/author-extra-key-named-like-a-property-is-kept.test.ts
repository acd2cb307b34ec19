// A stamped extra key is the authenticator's text, and a key spelled like a property of JavaScript objects
// (`__proto__`) is a key like any other wherever the author's extra goes: in the headers that make the API server take
// a PATCH as the author's (METAOPS_DEBUG_ACT_AS_AUTHOR=true), and in what the author check remembers its answers by
// (an answer about the author with that key is not the answer about the author without it).
import t from 'tap';
import { actingAuthor, AUTHOR_ANNOTATION, AuthorCache, AuthorCheck } from '../../hooks/podbuggertool/author.js';
import { impersonationHeaders } from '../../lib/kube.js';
import { FakeApi, tool } from '../fixtures/pbt.js';

const WITH_KEY = 'v1;alice;uid-alice;system:authenticated;__proto__=restricted';
const WITHOUT = 'v1;alice;uid-alice;system:authenticated';

const stamped = (text: string) => {
  const t = tool('a', { label: 'app=web', image: 'busybox' }, 'team-b', 'alice');
  t.metadata.annotations[AUTHOR_ANNOTATION] = text;
  return t;
};

t.test('the impersonation headers carry the extra key __proto__', async (t) => {
  const acting = actingAuthor(stamped(WITH_KEY));
  t.ok('author' in acting, 'the author can be impersonated');
  if (!('author' in acting)) return;
  const made = impersonationHeaders(acting.author);
  t.ok('headers' in made, 'headers are made');
  if (!('headers' in made)) return;
  t.same(made.headers['impersonate-extra-__proto__'], ['restricted'], 'Impersonate-Extra-__proto__: restricted');
});

t.test('the answer about an author with the extra key __proto__ is not taken for one without it', async (t) => {
  const api = new FakeApi();
  const asked: unknown[] = [];
  const create = api.create.bind(api);
  api.create = async (apiVersion: string, resource: string, ns: string, body: any) => {
    const extra = JSON.parse(JSON.stringify(body)).spec.extra;
    asked.push(extra ?? null);
    const answer: any = await create(apiVersion, resource, ns, body);
    // An authorizer that refuses a session restricted by the key __proto__.
    if (extra && Object.hasOwn(extra, '__proto__')) answer.status = { allowed: false, denied: true };
    return answer;
  };
  const check = new AuthorCheck(api, new AuthorCache());
  t.match(await check.verify(stamped(WITH_KEY)), { allowed: false, reason: 'AuthorNotAllowed' }, 'refused with it');
  t.match(await check.verify(stamped(WITHOUT)), { allowed: true }, 'allowed without it: asked, not remembered');
  t.match(await check.verify(stamped(WITH_KEY)), { allowed: false }, 'and refused again with it');
  t.same(asked, [JSON.parse('{"__proto__":["restricted"]}'), null], 'two questions, each about the author as stamped');
});
