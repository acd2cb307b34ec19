// A hook request is parsed without the managedFields of the objects it carries in two ways (lib/json.ts): cut out of
// the text before the parse (withoutManagedFields), or each value replaced by a number and the key taken out after the
// parse (parsedWithoutManagedFields, what the server tries first: it reads only the managedFields, not every character
// of the request). The second must give exactly the first's value, keys in the same order, or say SLOW: never another
// value, whatever the request holds.
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import t, { type Test } from 'tap';
import { MAX_MARKERS, parsedWithoutManagedFields, SLOW, withoutManagedFields } from '../../lib/json.js';
import { parseJson } from '../../lib/parse-json.js';
import { body } from '../../bench/bodies.js';

const entry = {
  manager: 'kubectl-client-side-apply',
  operation: 'Update',
  apiVersion: 'x/v1',
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:spec': { 'f:size': {} }, 'f:containers': { 'k:{"name":"c"}': { '.': {} } } },
};

/** What JSON.stringify writes with an escape. */
// eslint-disable-next-line no-control-regex
const WRITTEN_ESCAPED = /["\\\u0000-\u001f]/g;

/** A value with every key's `"` and backslashes taken out: keys as Kubernetes writes them, with no escape. */
function plainKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plainKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(WRITTEN_ESCAPED, ''), plainKeys(v)]));
}

/** What the cut and parse gives, or the refusal's message. */
function cutThenParsed(text: string): { value: unknown } | { error: string } {
  try {
    return { value: parseJson(withoutManagedFields(text)) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** parsedWithoutManagedFields gives SLOW, or the same value as the cut and parse, keys in the same order. */
function agrees(t: Test, text: string, what = text.slice(0, 120)): unknown {
  const fast = parsedWithoutManagedFields(text);
  if (fast === SLOW) return SLOW;
  const slow = cutThenParsed(text);
  if ('error' in slow) {
    t.fail(`parsed, where the cut and parse refuses it (${slow.error}): ${what}`);
    return fast;
  }
  // Compared quietly (a passing check per request would fill the output), said when they differ.
  const same = isDeepStrictEqual(fast, slow.value) && JSON.stringify(fast) === JSON.stringify(slow.value);
  if (!same) t.same(fast, slow.value, `${what}: the same value, keys in the same order`);
  return fast;
}

t.test(
  'the bench requests (objects as the API server stores them) are parsed without a cut, as the cut parses them',
  async (t) => {
    for (const kind of ['podset', 'memcached', 'mysqlcluster'] as const)
      for (const n of [0, 1, 10]) {
        const text = JSON.stringify(body(kind, n));
        t.ok(text.includes('"managedFields"'), `${kind} ${n}: carries managedFields`);
        t.not(agrees(t, text, `${kind} ${n}`), SLOW, `${kind} ${n}: not SLOW`);
      }
  },
);

t.test('the controller keeps its managedFields; the subject and every observed object lose theirs', async (t) => {
  const text = JSON.stringify({
    controller: { metadata: { name: 'c', managedFields: [entry] }, spec: {} },
    parent: { apiVersion: 'x/v1', kind: 'T', metadata: { a: 1, managedFields: [entry], name: 'p' } },
    children: { 'Pod.v1': { p: { metadata: { name: 'p', managedFields: [entry, entry], uid: 'u' } } } },
    related: { 'T.x/v1': { 'ns/r': { metadata: { managedFields: [] } } } },
    attachments: { 'A.v1': { a: { metadata: { managedFields: null, z: 0 } } } },
  });
  const parsed = agrees(t, text) as Record<string, any>;
  t.not(parsed, SLOW);
  t.same(parsed['controller'].metadata.managedFields, [entry]);
  t.same(Object.keys(parsed['parent'].metadata), ['a', 'name']);
  t.same(Object.keys(parsed['children']['Pod.v1'].p.metadata), ['name', 'uid']);
  t.same(parsed['related']['T.x/v1']['ns/r'].metadata, {});
  t.same(parsed['attachments']['A.v1'].a.metadata, { z: 0 });
});

t.test(
  'SLOW, or the cut and parse: keys so named elsewhere, escaped spellings, duplicates, text that is not JSON',
  async (t) => {
    const texts = [
      '{"parent":{"metadata":{"name":"a"},"spec":{"managedFields":[1]}}}',
      '{"parent":{"metadata":{"annotations":{"x":"\\"managedFields\\":[1]"}}}}',
      '{"parent":{"metadata":{"labels":{"managedFields":"x"},"managedFields":[1]}}}',
      '{"controller":{"metadata":{"managedFields":[1]}},"parent":{"metadata":{"name":"a"}}}',
      '{"controller":{"metadata":{"managedFields":[1],"managedFields":[2]}},"parent":{"metadata":{"name":"a"}}}',
      '{"children":{"P":[{"metadata":{"managedFields":[1]}}]},"parent":{"metadata":{"name":"a"}}}',
      '{"children":[{"p":{"metadata":{"managedFields":[1]}}}],"parent":{"metadata":{"name":"a"}}}',
      '{"desired":{"P":{"p":{"metadata":{"managedFields":[1]}}}},"parent":{"metadata":{"name":"a"}}}',
      '{"parent":{"metadata":{"managedFields":[1]}},"children":{"P":{"p":{"metadata":{"managedFields":[1]}},}}}',
      '{"parent":{"metadata":[{"managedFields":[1]}]}}',
      '{"parent":{"metadata":{"managed\\u0046ields":[1]}}}',
      '{"parent":{"metadata":{"managed\\u0046ields":0}},"x":{"managedFields":[1]}}',
      '{"parent":{"metadata":{"managed\\u0046ields":0,"managedFields":[1]}}}',
      '{"parent":{"metadata":{"managedFields":[1],"managed\\u0046ields":[2]}}}',
      '{"parent":"{\\"metadata\\":{\\"managedFields\\":[1]}}"}',
      '{"parents":{"metadata":{"managedFields":[1]}}}',
      '{"parent":{"metadata":{"managedFields":[1]},}}',
      '{"parent":{"metadata":{"managedFields":[1] "name":"a"}}}',
      '{"parent":{"metadata":{"managedFields":[1]',
      '{"parent":{"metadata":{"managedFields":[1,,]}}}',
      '{"parent":{"metadata":{"managedFields":[1]]}}}',
      '{"x":{"managedFields":[1,,]},"parent":{"metadata":{}}}',
      '["parent",{"metadata":{"managedFields":[1]}}]',
      '{"parent":{"metadata":{"managedFields":[1],"managedFields":[2],"name":"a"}}}',
      '{"parent":{"metadata":{"managedFields":[1]},"metadata":{"name":"b","managedFields":[2]}}}',
      '{"parent":{"metadata":{"managedFields":[1]}},"parent":{"metadata":{"managedFields":[2]}}}',
      '{"children":{"P":{"p":{"metadata":{"managedFields":[1]}},"p":{"metadata":{"managedFields":[2]}}}}}',
      '{"children":{"P":{"__proto__":{"metadata":{"__proto__":1,"managedFields":[1]}}}}}',
      '{"parent":{"metadata":{"managedFields":0}},"children":{"P":{"p":{"metadata":{"managedFields":1}}}}}',
      '{"parent":{"metadata":{"managedFields" : [ {} ] , "b" : "]}\\"" } } }',
      '{"parent":{"metadata":{"x":"\\\\","managedFields":[{"k:{\\"a\\"}":{}}]}}}',
      '{"parent":{"metadata":{"x":"a\\\\\\"managedFields\\":[1]"}}}',
      '',
      'managedFields"',
    ];
    for (const text of texts) agrees(t, text);
    t.pass(`${texts.length} texts`);
    // What the server parses faster is said: the value, or SLOW.
    t.equal(parsedWithoutManagedFields(texts[0]!) === SLOW, true, 'a key so named in a spec: SLOW');
    t.equal(
      parsedWithoutManagedFields('{"parent":{"metadata":{"managed\\u0046ields":0}},"x":{"managedFields":[1]}}'),
      SLOW,
    );
  },
);

t.test('any request of this shape: SLOW, or the cut and parse', async (t) => {
  let parsed = 0;
  const json = fc.jsonValue({ maxDepth: 3 });
  const metadata = fc
    .tuple(fc.dictionary(fc.string(), json, { maxKeys: 4 }), fc.array(json, { maxLength: 3 }), fc.nat(5), fc.boolean())
    .map(([rest, managed, position, has]) => {
      const keys = Object.entries(rest).filter(([k]) => k !== 'managedFields');
      if (has) keys.splice(Math.min(position, keys.length), 0, ['managedFields', managed]);
      return JSON.parse(JSON.stringify(Object.fromEntries(keys))) as Record<string, unknown>;
    });
  const object = fc.record({ metadata, spec: json });
  const objects = fc.dictionary(fc.string(), fc.dictionary(fc.string(), object, { maxKeys: 3 }), { maxKeys: 2 });
  fc.assert(
    fc.property(
      fc.constantFrom('parent', 'object'),
      object,
      objects,
      objects,
      metadata,
      fc.constantFrom(undefined, 1, '\t'),
      fc.boolean(),
      (subject, parent, children, related, controller, indent, plain) => {
        const request = { controller: { metadata: controller }, [subject]: parent, children, related };
        const text = JSON.stringify(plain ? plainKeys(request) : request, null, indent);
        if (agrees(t, text) !== SLOW) parsed++;
        return true;
      },
    ),
    { numRuns: 400 },
  );
  // Many are parsed without a cut (a key holding a backslash, which fast-check's strings often write, is SLOW).
  t.ok(parsed > 100, `${parsed} of 400 parsed without a cut`);
});

t.test('a text that holds the marker (ÿ) anywhere: SLOW, or the cut and parse', async (t) => {
  const texts = [
    '{"parent":{"metadata":{"ÿ":0,"managedFields":[1]}}}',
    '{"parent":{"metadata":{"managedFields":[1]},"spec":{"a":"ÿ"}}}',
    '{"controller":{"metadata":{"ÿ":1,"managedFields":[1]}},"parent":{"metadata":{"managedFields":[2]}}}',
    '{"parent":{"metadata":{"\\u00ff":0,"managedFields":[1]}}}',
  ];
  for (const text of texts) {
    t.equal(parsedWithoutManagedFields(text), SLOW, text);
    agrees(t, text);
  }
});

t.test("the controller's metadata keeps its keys in their order, `__proto__` a key as sent", async (t) => {
  const text =
    '{"controller":{"metadata":{"a":1,"__proto__":{"x":1},"managedFields":[{"m":1}],"z":2}},"parent":{"metadata":{"managedFields":[]}}}';
  const parsed = agrees(t, text) as Record<string, any>;
  t.not(parsed, SLOW);
  t.same(Object.keys(parsed['controller'].metadata), ['a', '__proto__', 'managedFields', 'z']);
  t.equal(Object.getPrototypeOf(parsed['controller'].metadata), Object.prototype);
});

t.test('a request of more managedFields than MAX_MARKERS is SLOW, and cut and parsed as before', async (t) => {
  const objects = (n: number) =>
    Object.fromEntries(
      Array.from({ length: n }, (_, i) => [`p${i}`, { metadata: { name: `p${i}`, managedFields: [{}] } }]),
    );
  const at = JSON.stringify({
    parent: { metadata: { managedFields: [] } },
    children: { 'Pod.v1': objects(MAX_MARKERS - 1) },
  });
  t.not(agrees(t, at, 'MAX_MARKERS'), SLOW, 'MAX_MARKERS: parsed with markers');
  const past = JSON.stringify({
    parent: { metadata: { managedFields: [] } },
    children: { 'Pod.v1': objects(MAX_MARKERS) },
  });
  t.equal(parsedWithoutManagedFields(past), SLOW, 'one more: SLOW');
  const cut = parseJson(withoutManagedFields(past)) as {
    children: Record<string, Record<string, { metadata: object }>>;
  };
  t.same(cut.children['Pod.v1']!['p0']!.metadata, { name: 'p0' }, 'the cut still takes them out');
});
