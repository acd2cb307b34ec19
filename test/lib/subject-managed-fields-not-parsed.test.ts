// The managedFields of the object a hook request is about (its `parent`, or a DecoratorController's `object`), and
// those of every observed object it carries (`children`, `attachments`, `related`), are cut out of the request's text
// before it is parsed (lib/json.ts withoutManagedFields): no hook reads them, and they are as large as each object's
// writer makes them (an 8 MiB body of `{},` parsed to ~136 MiB of heap). Everything else is parsed as it was sent.
import { Type } from '@sinclair/typebox';
import fc from 'fast-check';
import t from 'tap';
import { buildApp } from '../../lib/app.js';
import { withoutManagedFields } from '../../lib/json.js';
import type { ParentObject } from '../../lib/metacontroller.js';
import { defineComposite } from '../../lib/operator.js';
import { specParser } from '../../lib/spec.js';
import { resource as podsetResource } from '../../hooks/podset/schema.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const entry = {
  manager: 'kubectl-client-side-apply',
  operation: 'Update',
  apiVersion: 'x/v1',
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:spec': { 'f:size': {} } },
};

/** A request as Metacontroller writes it: controller, then the subject, then the observed objects. */
function request(subject: 'parent' | 'object', metadata: Record<string, unknown>, spec: unknown = {}) {
  return {
    controller: { metadata: { name: 'c', managedFields: [entry] } },
    [subject]: { apiVersion: 'x/v1', kind: 'Thing', metadata, spec },
    children: {
      'Pod.v1': { p: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', managedFields: [entry] } } },
    },
    related: {
      'Thing.x/v1': { r: { apiVersion: 'x/v1', kind: 'Thing', metadata: { name: 'r', managedFields: [entry] } } },
    },
  };
}

/** The request with the metadata.managedFields of the subject and the observed objects taken out: what the server
 * should parse (the controller's kept). */
function expected(req: Record<string, any>, subject: 'parent' | 'object') {
  const copy = structuredClone(req);
  delete copy[subject].metadata.managedFields;
  delete copy.children['Pod.v1'].p.metadata.managedFields;
  delete copy.related['Thing.x/v1'].r.metadata.managedFields;
  return copy;
}

t.test(
  "the subject's and observed objects' managedFields are cut, wherever they are among its metadata, and nothing else",
  async (t) => {
    const json = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(
        fc.constantFrom('parent' as const, 'object' as const),
        fc.dictionary(fc.string(), json, { maxKeys: 5 }),
        fc.array(json, { maxLength: 5 }),
        fc.nat(6),
        json,
        fc.constantFrom(undefined, 1, 2, '\t'),
        (subject, rest, managedFields, position, spec, indent) => {
          delete rest['managedFields'];
          const keys = Object.entries(rest);
          keys.splice(Math.min(position, keys.length), 0, ['managedFields', managedFields]);
          // A key `__proto__` stays data, as JSON.parse makes it.
          const metadata = JSON.parse(JSON.stringify(Object.fromEntries(keys))) as Record<string, unknown>;
          const req = request(subject, metadata, spec);
          const text = JSON.stringify(req, null, indent);
          t.same(JSON.parse(withoutManagedFields(text)), expected(req, subject));
          return true;
        },
      ),
      { numRuns: 300 },
    );
  },
);

t.test('cut in every spelling of the members around it', async (t) => {
  const cases: Array<[string, unknown]> = [
    ['{"parent":{"metadata":{"managedFields":[{}]}}}', { parent: { metadata: {} } }],
    ['{"parent":{"metadata":{"managedFields":[],"name":"a"}}}', { parent: { metadata: { name: 'a' } } }],
    ['{"parent":{"metadata":{"name":"a","managedFields":null}}}', { parent: { metadata: { name: 'a' } } }],
    [
      '{ "parent" : { "metadata" : { "a" : 1 , "managedFields" : [ {} , {} ] , "b" : "]}\\"" } } }',
      { parent: { metadata: { a: 1, b: ']}"' } } },
    ],
    // Duplicates: JSON.parse keeps the last of each; none of them is kept.
    [
      '{"parent":{"metadata":{"managedFields":[1],"managedFields":[2],"name":"a"}}}',
      { parent: { metadata: { name: 'a' } } },
    ],
    ['{"parent":{"metadata":{"managedFields":[1],"managedFields":[2]}}}', { parent: { metadata: {} } }],
    [
      '{"parent":{"metadata":{"a":1,"managedFields":[1],"b":2,"managedFields":[2]}}}',
      { parent: { metadata: { a: 1, b: 2 } } },
    ],
    [
      '{"parent":{"metadata":{"managedFields":[1]},"metadata":{"name":"b","managedFields":[2]}}}',
      { parent: { metadata: { name: 'b' } } },
    ],
    // Observed objects: each child, attachment and related object, wherever the subject is.
    [
      '{"children":{"P":{"p":{"metadata":{"managedFields":[1],"name":"p"}},"q":{"metadata":{"managedFields":[2]}}}},"parent":{"metadata":{"name":"a"}}}',
      { children: { P: { p: { metadata: { name: 'p' } }, q: { metadata: {} } } }, parent: { metadata: { name: 'a' } } },
    ],
    [
      '{"object":{"metadata":{}},"attachments":{"A":{"a":{"metadata":{"name":"a","managedFields":[1]}}}},"related":{"R":{"ns/r":{"spec":{"managedFields":1},"metadata":{"managedFields":[{}]}}}}}',
      {
        object: { metadata: {} },
        attachments: { A: { a: { metadata: { name: 'a' } } } },
        related: { R: { 'ns/r': { spec: { managedFields: 1 }, metadata: {} } } },
      },
    ],
    // A map of another shape beside: skipped whole, the objects after it still cut.
    [
      '{"related":{"X":[1,{"metadata":{"managedFields":[1]}}],"Y":{"y":"s","z":{"metadata":{"managedFields":[1]}}}}}',
      { related: { X: [1, { metadata: { managedFields: [1] } }], Y: { y: 's', z: { metadata: {} } } } },
    ],
  ];
  for (const [text, parsed] of cases) t.same(JSON.parse(withoutManagedFields(text)), parsed, text);
});

t.test('left as sent: other keys so named, escaped spellings, text that is not JSON', async (t) => {
  const kept = [
    // In the subject's spec, in an annotation's text, in the controller and the observed objects.
    '{"parent":{"metadata":{"name":"a"},"spec":{"managedFields":[1]}}}',
    '{"parent":{"metadata":{"annotations":{"x":"\\"managedFields\\":[1]"}}}}',
    '{"controller":{"metadata":{"managedFields":[1]}},"parent":{"metadata":{"name":"a"}}}',
    // Under a top-level key that is not a map of maps of objects, or one of another name.
    '{"children":{"P":[{"metadata":{"managedFields":[1]}}]},"parent":{"metadata":{"name":"a"}}}',
    '{"children":[{"p":{"metadata":{"managedFields":[1]}}}],"parent":{"metadata":{"name":"a"}}}',
    '{"desired":{"P":{"p":{"metadata":{"managedFields":[1]}}}},"parent":{"metadata":{"name":"a"}}}',
    // Not JSON as read after the subject: left whole.
    '{"parent":{"metadata":{"managedFields":[1]}},"children":{"P":{"p":{"metadata":{"managedFields":[1]}},}}}',
    // The subject's metadata not an object, a key spelled with an escape, a subject that is not an object.
    '{"parent":{"metadata":[{"managedFields":[1]}]}}',
    '{"parent":{"metadata":{"managed\\u0046ields":[1]}}}',
    '{"parent":"{\\"metadata\\":{\\"managedFields\\":[1]}}"}',
    '{"parents":{"metadata":{"managedFields":[1]}}}',
    // Not JSON as read: JSON.parse refuses it as it was sent.
    '{"parent":{"metadata":{"managedFields":[1]},}}',
    '{"parent":{"metadata":{"managedFields":[1] "name":"a"}}}',
    '{"parent":{"metadata":{"managedFields":[1]',
    '["parent",{"metadata":{"managedFields":[1]}}]',
    '',
  ];
  for (const text of kept) t.equal(withoutManagedFields(text), text, text);
});

t.test('a hook is handed its parent and the observed objects without managedFields', async (t) => {
  const handed: Array<{ parent: ParentObject; observed: unknown; related: unknown }> = [];
  const recording = defineComposite({
    name: 'recording',
    resource: { ...podsetResource, kind: 'Recording', plural: 'recordings', singular: 'recording' },
    spec: specParser(Type.Object({})),
    childResources: [],
    sync: ({ parent, observed, related }) => {
      handed.push({ parent, observed, related });
      return { status: {}, children: [] };
    },
  });
  const app = buildApp({ operators: [recording], services: { now: () => FIXED_NOW } });
  t.teardown(() => app.close());
  const metadata = { name: 'p', namespace: 'default', uid: 'u', generation: 3, managedFields: [entry, {}, {}] };
  const req = request('parent', metadata);
  const res = await app.inject({
    method: 'POST',
    url: '/hooks/recording/sync',
    payload: JSON.stringify(req),
    headers: { 'content-type': 'application/json' },
  });
  t.equal(res.statusCode, 200, res.body);
  t.equal(handed.length, 1);
  const { managedFields: _cut, ...rest } = metadata;
  t.same(handed[0]!.parent.metadata, rest, "the parent's metadata but its managedFields");
  t.notOk('managedFields' in handed[0]!.parent.metadata);
  const sent = expected(req, 'parent');
  t.same(handed[0]!.observed, sent.children, 'the children as sent but their managedFields');
  t.same(handed[0]!.related, sent.related, 'the related objects as sent but their managedFields');
});
