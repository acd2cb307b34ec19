// A large JSON text (a hook request, an answer of the Kubernetes API) is parsed a piece at a time (lib/json.ts
// parseInPieces): JSON.parse is never given more than about PIECE_BYTES of it at once, and the event loop turns
// between pieces, so that the members a text holds (a namespace's objects' labels and annotations: as many keys as
// their writers make) never hold the server's one thread in one go. What it gives is what JSON.parse gives: the same
// values, the same order of keys, the last of duplicate keys, `__proto__` an own property; a text that is not JSON
// is refused with JSON.parse's own message.
import fc from 'fast-check';
import t from 'tap';
import { parseHookBodyInPieces, parseInPieces, PIECE_BYTES, WHOLE_PARSE_BYTES } from '../../lib/json.js';
import { hasEscapedKey } from '../../lib/parse-json.js';
import { manyKeys, MAX_MEMBERS_PER_PARSE, members, parseText } from '../fixtures/parsed-members.js';

/** Every text JSON.parse is given while `run` runs. */
async function parsesWhile<T>(run: () => Promise<T>): Promise<{ result: T; texts: string[] }> {
  const original = JSON.parse;
  const texts: string[] = [];
  JSON.parse = function parse(text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) {
    texts.push(String(text));
    return original(text, reviver) as unknown;
  } as typeof JSON.parse;
  try {
    return { result: await run(), texts };
  } finally {
    JSON.parse = original;
  }
}

/** A value as text with its keys in order and its own `__proto__` members; and whether every object is plain. */
function shape(value: unknown): string {
  const plain = (v: unknown): boolean =>
    v === null ||
    typeof v !== 'object' ||
    (Array.isArray(v)
      ? v.every(plain)
      : Object.getPrototypeOf(v) === Object.prototype && Object.values(v as object).every(plain));
  return `${plain(value)}:${JSON.stringify(value)}`;
}

// JSON texts with what JSON.parse treats specially: duplicate keys, `__proto__`, integer-like keys (ordered first),
// escaped keys (`"\u0061"` is "a"), strings holding brackets, commas, quotes and backslashes, and whitespace anywhere.
// No key that is a backslash: once one has been parsed, Node 26.10's JSON.parse reads a later escaped key in the same
// place of an object as that backslash (`JSON.parse('{"\\\\":0}'); JSON.parse('{"\\u0062":0}')` gives `{"\\":0}`),
// so JSON.parse's own answer would depend on what the process parsed before.
const space = fc.constantFrom('', '', ' ', '\n  ', '\t', '\r\n');
const key = fc.constantFrom('a', 'b', '__proto__', 'constructor', '0', '7', '10', '\\u0061', 'x,}]', '\\"', 'é');
const text: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('0', '-1.5e3', 'true', 'false', 'null', '"s"', '"[{,\\"}]\\\\"', '""'),
    fc
      .tuple(fc.array(fc.tuple(space, tie('value'), space), { maxLength: 6 }), space)
      .map(([items, s]) => `[${s}${items.map(([a, v, b]) => `${a}${v}${b}`).join(',')}]`),
    fc
      .tuple(fc.array(fc.tuple(space, key, space, tie('value'), space), { maxLength: 6 }), space)
      .map(([items, s]) => `{${s}${items.map(([a, k, b, v, c]) => `${a}"${k}"${b}:${c}${v}`).join(',')}}`),
  ),
})).value;

t.test('parseInPieces gives what JSON.parse gives, whatever the size of its pieces', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.tuple(space, text, space).map(([a, v, b]) => a + v + b),
      fc.integer({ min: 1, max: 40 }),
      async (json, piece) => {
        const { result, texts } = await parsesWhile(() => parseInPieces(json, { whole: 0, piece }));
        // Read in pieces, not given to JSON.parse whole once found wrong (every text given is at most ~2 pieces and
        // the longest value that is not split, a string: here under 20 characters, or a key decoded).
        return shape(result) === shape(parseText(json)) && texts.every((x) => x.length <= 2 * piece + 64);
      },
    ),
    { numRuns: 3000 },
  );
});

t.test('a text that is not JSON is refused as JSON.parse refuses it, whatever the size of its pieces', async (t) => {
  const broken = [
    '{"a":1,}',
    '{"a":1,,"b":2}',
    '[1,2,]',
    '[,1]',
    '{,"a":1}',
    '{"a" 1}',
    '{"a":{"b":[1,2,3]} "c":1}',
    '{"a":{"b":[1,2,3]},,"c":1}',
    '{"a":{"b":[1,2,3]} , }',
    '[[1,2,3],,[4]]',
    '[[1,2,3] [4]]',
    '{"a":[1,2}',
    '{"a":1} x',
    '{"a":1}}',
    '[1,2] [3]',
    '{a:{"b":[1,2,3,4,5]}}',
    '{"a\u0001":{"b":[1,2,3,4,5]}}',
    '{"a":{"b":[1,2,3,4,5]},"c":"\u0001"}',
    '{"a":"unterminated',
    '{"a":[1,2,3,4,5,6,7,8]',
  ];
  for (const json of broken)
    for (const piece of [1, 2, 3, 5, 8]) {
      let expected = '';
      try {
        parseText(json);
      } catch (err) {
        expected = (err as Error).message;
      }
      t.not(expected, '', `JSON.parse refuses ${json}`);
      await t.rejects(parseInPieces(json, { whole: 0, piece }), { message: expected }, `${json} in pieces of ${piece}`);
    }
  // Any text near JSON: a valid one with a character dropped or added.
  await fc.assert(
    fc.asyncProperty(
      text,
      fc.nat(),
      fc.constantFrom('', ',', '}', ']', '{', '[', '"', ':', 'x'),
      fc.integer({ min: 1, max: 12 }),
      async (json, at, put, piece) => {
        const i = at % (json.length + 1);
        const near = json.slice(0, i) + put + json.slice(i + (put === '' ? 1 : 0));
        let expected: string;
        try {
          expected = shape(parseText(near));
        } catch (err) {
          expected = `refused: ${(err as Error).message}`;
        }
        let got: string;
        try {
          got = shape(await parseInPieces(near, { whole: 0, piece }));
        } catch (err) {
          got = `refused: ${(err as Error).message}`;
        }
        // A text with a key holding a backslash is read by lib/parse-json.ts parseByHand, never by JSON.parse (its
        // state across calls): refused too, with its own message of where.
        if (hasEscapedKey(near) && expected.startsWith('refused: ')) return got.startsWith('refused: ');
        return got === expected;
      },
    ),
    { numRuns: 3000 },
  );
  // A hook request's body: the 400 parseHookBody gives.
  const body = `{"parent":${JSON.stringify({ metadata: { labels: manyKeys(WHOLE_PARSE_BYTES, 1) } })},,}`;
  await t.rejects(parseHookBodyInPieces(body), { statusCode: 400, message: /^Body is not valid JSON/ });
});

t.test('a large text is given to JSON.parse a piece at a time, the event loop turning between pieces', async (t) => {
  // A namespace's objects of ~1.4 MiB of labels each, carried by one request (as the hook server is sent them),
  // and as one page of a list (as the API server answers the server's own reads).
  const objects = [0, 1, 2, 3, 4].map((n) => ({
    apiVersion: 'debug.metaops.dev/v1alpha1',
    kind: 'PodBuggerTool',
    metadata: { name: `tool-${n}`, namespace: 'tenant-a', labels: manyKeys(1.4 * 1024 * 1024, n) },
    spec: { label: 'app=web', image: 'busybox:1.36' },
  }));
  const texts = {
    request: JSON.stringify({
      controller: {},
      object: { metadata: { name: 'web-1' } },
      related: { 'PodBuggerTool.debug.metaops.dev/v1alpha1': Object.fromEntries(objects.map((o, n) => [n, o])) },
    }),
    list: JSON.stringify({ kind: 'PodBuggerToolList', metadata: {}, items: objects }),
    // One map of many keys at the top, and a text nested far below SPLIT_DEPTH (not split there, never recursed).
    keys: JSON.stringify(manyKeys(3 * 1024 * 1024, 9)),
    deep: `${'['.repeat(200_000)}${JSON.stringify(manyKeys(1.2 * 1024 * 1024, 3))}${']'.repeat(200_000)}`,
  };
  // The text of a value: the deep one's levels walked without recursion (JSON.stringify of it overflows the stack).
  const textOf = (value: unknown): string => {
    let levels = 0;
    let inner = value;
    while (Array.isArray(inner) && inner.length === 1 && levels < 200_000) {
      inner = inner[0];
      levels++;
    }
    return levels === 200_000
      ? `${'['.repeat(levels)}${JSON.stringify(inner)}${']'.repeat(levels)}`
      : JSON.stringify(value);
  };
  for (const [name, json] of Object.entries(texts)) {
    let turns = 0;
    let turning = true;
    const tick = () => {
      turns++;
      if (turning) setImmediate(tick);
    };
    setImmediate(tick);
    const { result, texts: parsed } = await parsesWhile(() => parseInPieces(json));
    turning = false;
    t.ok(textOf(result) === json, `${name}: the value JSON.parse gives`);
    const largest = Math.max(...parsed.map((x) => x.length));
    const most = Math.max(...parsed.map((x) => members(parseText(x))));
    t.ok(most <= MAX_MEMBERS_PER_PARSE, `${name}: no JSON.parse makes more than ${MAX_MEMBERS_PER_PARSE} (${most})`);
    if (name === 'deep') {
      // Below SPLIT_DEPTH nothing is split: the value there is one piece, as large as what is there (one object the
      // API server stores is at most ~1.5 MiB); the levels above are walked without recursion.
      t.equal(parsed.length, 1, `${name}: the value below SPLIT_DEPTH parsed in one piece (${largest})`);
      continue;
    }
    t.ok(largest <= 2 * PIECE_BYTES + 64, `${name}: no text given to JSON.parse over ~2 pieces (${largest})`);
    t.ok(parsed.length > 8, `${name}: parsed in ${parsed.length} pieces`);
    t.ok(turns > 8, `${name}: the event loop turned while it was parsed (${turns} turns)`);
  }
});

t.test('a text up to WHOLE_PARSE_BYTES is parsed whole, at once', async (t) => {
  const json = JSON.stringify({ labels: manyKeys(WHOLE_PARSE_BYTES - 1024, 2) });
  const { texts } = await parsesWhile(() => parseInPieces(json));
  t.same(
    texts.map((x) => x.length),
    [json.length],
  );
});
