// The stamp's extra part (the authenticator's userInfo.extra) is sent in the SubjectAccessReview as it was stamped:
// "some authorizers decide on it, so the review sends it" (author.ts). Every key the policy can write is one the
// review carries, whatever its text: a key spelled like a property of JavaScript objects (`__proto__`, a legal
// HTTP header token, so an authenticating proxy's X-Remote-Extra-__proto__ or an Impersonate-Extra-__proto__ header
// puts it in userInfo.extra) is a key like any other, never dropped on the way to the authorizer.
import t from 'tap';
import { AUTHOR_ANNOTATION, AuthorCache, AuthorCheck, parseStamp } from '../../hooks/podbuggertool/author.js';
import { FakeApi, tool } from '../fixtures/pbt.js';

const STAMP = 'v1;alice;uid-alice;system:authenticated;__proto__=restricted,scopes=user:info';

t.test('a stamped extra key named __proto__ is read as the key it is', async (t) => {
  const author = parseStamp(STAMP);
  t.ok(author, 'the stamp is read');
  t.ok(author!.extra && Object.hasOwn(author!.extra, '__proto__'), 'the extra holds the key __proto__ as its own');
  t.same(Object.keys(author!.extra ?? {}).sort(), ['__proto__', 'scopes'], 'both stamped keys');
  t.same(JSON.parse(JSON.stringify(author!.extra)), JSON.parse('{"__proto__":["restricted"],"scopes":["user:info"]}'));
});

t.test("the review asks about the author with every stamped extra key, __proto__'s included", async (t) => {
  const api = new FakeApi();
  const extras: unknown[] = [];
  const create = api.create.bind(api);
  api.create = async (apiVersion: string, resource: string, ns: string, body: any) => {
    // As the API server reads the review: the JSON text the client sends.
    extras.push(JSON.parse(JSON.stringify(body)).spec.extra);
    return create(apiVersion, resource, ns, body);
  };
  const stamped = tool('a', { label: 'app=web', image: 'busybox' }, 'team-b', 'alice');
  stamped.metadata.annotations[AUTHOR_ANNOTATION] = STAMP;
  t.match(await new AuthorCheck(api, new AuthorCache()).verify(stamped), { allowed: true });
  t.equal(extras.length, 1, 'one review');
  t.same(
    extras[0],
    JSON.parse('{"__proto__":["restricted"],"scopes":["user:info"]}'),
    'the review carries the extra as stamped: an authorizer deciding on __proto__ is asked with it',
  );
});
