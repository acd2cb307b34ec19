// Metacontroller sends a parent (a decorator's object) as the API server stores it, and a stored object always has a
// name: the request schema requires `metadata.name` (lib/metacontroller.ts ParentMeta), so the hooks read it as a
// string. A request without one, or with an empty one, is refused at every route of every operator (400, saying which
// field), before any hook runs: never answered as if the parent had a name, never a 500.
import t from 'tap';
import { routesOf } from '../../lib/routes.js';
import { operators } from '../../main/operators.js';
import { testApp } from '../fixtures/app.js';

const app = testApp({ allowUnauthenticated: true });
t.teardown(() => app.close());

/** A request of a `type` operator's `hook` about an object whose metadata is `metadata`. */
function body(type: 'composite' | 'decorator', hook: string, metadata: Record<string, unknown>) {
  const about = { apiVersion: 'example.com/v1', kind: 'Thing', metadata, spec: {} };
  if (type === 'decorator')
    return { controller: {}, object: about, ...(hook === 'customize' ? {} : { attachments: {} }) };
  return { controller: {}, parent: about, ...(hook === 'customize' ? {} : { children: {} }) };
}

/** Where the schema finds the metadata of what a request of `type` is about. */
const where = (type: 'composite' | 'decorator') => `body/${type === 'decorator' ? 'object' : 'parent'}/metadata`;

for (const route of operators.flatMap(routesOf)) {
  t.test(
    `${route.path}: a request whose ${route.type === 'decorator' ? 'object' : 'parent'} has no name is refused`,
    async (t) => {
      const at = where(route.type);
      const unnamed = await app.inject({
        method: 'POST',
        url: route.path,
        payload: body(route.type, route.hook, { namespace: 'ns', uid: 'u-1', generation: 1 }),
      });
      t.equal(unnamed.statusCode, 400, 'no name: 400');
      t.equal(
        unnamed.json().message,
        `invalid hook request: ${at} must have required property 'name'`,
        'it says the name is missing, and where',
      );

      const empty = await app.inject({
        method: 'POST',
        url: route.path,
        payload: body(route.type, route.hook, { name: '', namespace: 'ns', uid: 'u-1', generation: 1 }),
      });
      t.equal(empty.statusCode, 400, 'an empty name: 400');
      t.equal(
        empty.json().message,
        `invalid hook request: ${at}/name must NOT have fewer than 1 characters`,
        'it says the name is empty, and where',
      );
    },
  );
}
