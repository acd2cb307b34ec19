// A CompositeController's answer is written from the JSON of its children as the answer budget wrote them to count
// them (lib/answer.ts answerText, lib/operator.ts withinAnswerBudget), not written a second time by the response
// schema's serialiser. What is sent must be exactly what the serialiser writes, byte for byte (the ETag is a hash of
// it), and an answer whose children were not so measured, or changed since, is written by the serialiser.
import Fastify from 'fastify';
import fc from 'fast-check';
import t, { type Test } from 'tap';
import { answerText, childrenWritten } from '../../lib/answer.js';
import { buildApp } from '../../lib/app.js';
import { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { operators } from '../../main/operators.js';
import { body } from '../../bench/bodies.js';

/**
 * The response schema's serialiser, as a hook route has it. The value is handed to the route as it is, never sent as a
 * request body: Fastify's body parser refuses some keys an answer may hold (`__proto__`), and the comparison is of
 * the serialiser alone.
 */
async function serialiser(t: Test): Promise<(value: unknown) => Promise<string>> {
  const app = Fastify();
  let current: unknown;
  app.get('/', { schema: { response: { 200: CompositeSyncResponse } } }, async () => current);
  await app.ready();
  t.teardown(() => app.close());
  return async (value) => {
    current = value;
    return (await app.inject({ method: 'GET', url: '/' })).body;
  };
}

const written = (children: unknown[]) => children.map((c) => JSON.stringify(c) ?? 'null');

t.test('written as the serialiser writes it, for any answer of the shape', async (t) => {
  const serialise = await serialiser(t);
  const json = fc.jsonValue({ maxDepth: 3 });
  const answer = fc.record(
    {
      status: fc.oneof(fc.dictionary(fc.string(), json, { maxKeys: 4 }), fc.constant(null)),
      children: fc.array(fc.dictionary(fc.string(), json, { maxKeys: 4 }), { maxLength: 5 }),
      resyncAfterSeconds: fc.oneof(fc.nat(), fc.double({ min: 0, max: 1e6, noNaN: true })),
      finalized: fc.boolean(),
    },
    { requiredKeys: ['status', 'children'] },
  );
  await fc.assert(
    fc.asyncProperty(answer, async (a) => {
      const sent = JSON.parse(JSON.stringify(a)) as Record<string, unknown> & { children: unknown[] };
      childrenWritten(sent.children, written(sent.children));
      const text = answerText(sent);
      t.equal(text, await serialise(sent));
      return true;
    }),
    { numRuns: 200 },
  );
});

t.test('written as the serialiser writes it when the answer holds a key named __proto__', async (t) => {
  const serialise = await serialiser(t);
  const sent = JSON.parse('{"status":{"__proto__":{"a":1}},"children":[{"__proto__":"x","kind":"Pod"}]}') as {
    children: unknown[];
  };
  childrenWritten(sent.children, written(sent.children));
  const text = answerText(sent);
  t.equal(text, '{"status":{"__proto__":{"a":1}},"children":[{"__proto__":"x","kind":"Pod"}]}');
  t.equal(text, await serialise(sent));
});

t.test('the serialiser writes it when the children were not measured, or changed since', async (t) => {
  const children = [{ kind: 'Pod', metadata: { name: 'a' } }];
  t.equal(answerText({ status: {}, children }), undefined, 'not measured');
  childrenWritten(children, written(children));
  t.equal(answerText({ status: {}, children }), '{"status":{},"children":[{"kind":"Pod","metadata":{"name":"a"}}]}');
  children.push({ kind: 'Pod', metadata: { name: 'b' } });
  t.equal(answerText({ status: {}, children }), undefined, 'a child added');
  childrenWritten(children, written(children));
  children[1] = { kind: 'Pod', metadata: { name: 'c' } };
  t.equal(answerText({ status: {}, children }), undefined, 'a child replaced');
  childrenWritten(children, written(children));
  t.equal(answerText({ children }), undefined, 'no status: the serialiser says so');
  t.equal(answerText({ status: {}, children, resyncAfterSeconds: '5' }), undefined, 'a number as text');
  t.equal(answerText({ status: {}, children, finalized: 'yes' }), undefined);
  t.equal(answerText({ status: {}, children: {} }), undefined);
});

t.test("every operator's sync answers as its response schema writes it", async (t) => {
  const serialise = await serialiser(t);
  const app = buildApp({ operators });
  t.teardown(() => app.close());
  for (const kind of ['podset', 'memcached', 'mysqlcluster'] as const)
    for (const n of [0, 1, 10]) {
      const res = await app.inject({
        method: 'POST',
        url: `/hooks/${kind}/sync`,
        payload: JSON.stringify(body(kind, n)),
        headers: { 'content-type': 'application/json' },
      });
      t.equal(res.statusCode, 200, `${kind} ${n}`);
      t.equal(res.body, await serialise(JSON.parse(res.body)), `${kind} ${n}: as the serialiser writes it`);
    }
});
