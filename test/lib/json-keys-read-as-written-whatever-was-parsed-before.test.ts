// One tenant's object never changes how another request is read. V8's JSON.parse in Node 24.x, 25.x and
// 26.x up to 26.10.0 reads a key written as P and one escape (`"example.com/team\u003c"`) as P and a backslash once
// an earlier text held, in the same place (an object with the same keys before it), the key P and a backslash
// (`"example.com/team\\"`), in any later parse of the process (lib/parse-json.ts). Every parse goes through
// parseJson, which never gives JSON.parse a text with such a key. Each case runs on this runtime's own JSON.parse,
// and on a stand-in that misreads as the affected releases do (test/fixtures/json-keeps-keys.ts), so the guard is
// tested whatever Node runs the suite.
import t from 'tap';
import { parseHookBody, parseInPieces, parseJsonBody } from '../../lib/json.js';
import { hasEscapedKey, jsonParseKeepsKeys, parseByHand, parseJson } from '../../lib/parse-json.js';
import { cloneData } from '../../lib/spec.js';
import { testApp } from '../fixtures/app.js';
import { etcdParent } from '../fixtures/etcd.js';
import { keepKeysAcrossCalls } from '../fixtures/json-keeps-keys.js';

/**
 * An EtcdCluster sync request of namespace `ns` whose member pods carry the annotations `first` and `key`, the
 * latter as Go's encoding/json (Metacontroller) writes it: `written`.
 */
function annotated(ns: string, first: string, key: string, written: string): string {
  const parent = etcdParent({ size: 1, pod: { annotations: { [first]: ns, [key]: 'v' } } });
  parent.metadata.namespace = ns;
  parent.metadata.uid = `uid-${ns}`;
  return JSON.stringify({ controller: {}, parent, children: {} }).replace(JSON.stringify(key), written);
}

async function sync(app: ReturnType<typeof testApp>, body: string): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/hooks/etcdcluster/sync',
    payload: body,
    headers: { 'content-type': 'application/json' },
  });
  return (res.json() as { status: { conditions: Array<{ message: string }> } }).status.conditions[0]!.message;
}

const runtimes: Array<[string, () => () => void]> = [
  ['on this runtime', () => () => {}],
  ['on a JSON.parse that keeps keys across calls', keepKeysAcrossCalls],
];

for (const [where, install] of runtimes) {
  t.test(
    `${where}: a namespace's annotation key is read as written after another's ended in a backslash`,
    async (t) => {
      const restore = install();
      t.teardown(restore);
      // A prefix of its own for each case: what one leaves behind in a runtime's JSON.parse is not the other's.
      const prefix = where.startsWith('on this') ? 'example.com/team-a' : 'example.com/team-b';
      const app = testApp({ allowUnauthenticated: true });
      t.teardown(() => app.close());
      // Tenant A: after a key tenant B's annotations start with too, that key and one backslash (the hook refuses it;
      // the parse has happened).
      const a = await sync(app, annotated('tenant-a', prefix, `${prefix}\\`, JSON.stringify(`${prefix}\\`)));
      t.match(a, `spec.pod.annotations key ${JSON.stringify(`${prefix}\\`)}`);
      // Tenant B: a key ending in `<`, which Go's encoding/json (Metacontroller) writes as \u003c.
      const b = await sync(app, annotated('tenant-b', prefix, `${prefix}<`, `"${prefix}\\u003c"`));
      t.match(b, `spec.pod.annotations key ${JSON.stringify(`${prefix}<`)}`, 'the key tenant B wrote, not tenant A');
    },
  );
}

t.test('the stand-in misreads as the affected releases do (else the cases above would prove nothing)', async (t) => {
  const restore = keepKeysAcrossCalls();
  t.teardown(restore);
  JSON.parse(String.raw`{"k\\":1}`);
  t.same(JSON.parse(String.raw`{"k\u0062":2}`), { 'k\\': 2 });
  t.same(JSON.parse(String.raw`{"\u0062":2}`), { b: 2 }, 'another prefix is read right');
  t.equal(jsonParseKeepsKeys(), true, 'the start-up check finds it');
  restore();
  t.equal(jsonParseKeepsKeys(), jsonParseKeepsKeys(), 'the check answers the same each time it runs');
});

t.test('every parse of text in lib/ reads keys as written whatever was parsed before', async (t) => {
  const restore = keepKeysAcrossCalls();
  t.teardown(restore);
  const poison = String.raw`{"x\\":1,"y\\":{"z\\":[]}}`;
  const victim = String.raw`{"x\u003c":1,"y\"":{"z\n":[],"z\/":2}}`;
  const expected = { 'x<': 1, 'y"': { 'z\n': [], 'z/': 2 } };
  const parsers: Array<[string, (text: string) => unknown]> = [
    ['parseJson', parseJson],
    ['parseHookBody', parseHookBody],
    ['parseJsonBody', parseJsonBody],
    ['cloneData', (text) => cloneData(parseJson(text))],
  ];
  for (const [name, parse] of parsers) {
    t.same(parse(poison), { 'x\\': 1, 'y\\': { 'z\\': [] } }, `${name}: the backslash keys`);
    t.same(parse(victim), expected, `${name}: the later keys as written`);
  }
  // A Kubernetes API answer parsed a piece at a time (lib/kube.ts): each piece is a text of its own.
  const members = (n: number, key: string) =>
    `{${Array.from({ length: n }, (_, i) => `"${key}${i}x":"${'v'.repeat(40)}"`).join(',')}}`;
  const large = `{"items":[${members(400, 'p').replace(/x"/g, '\\\\"')},${members(400, 'p').replace(/x"/g, '\\u003c"')}]}`;
  const parsed = (await parseInPieces(large, { whole: 1024, piece: 512 })) as { items: Array<Record<string, string>> };
  t.same(Object.keys(parsed.items[0]!).slice(0, 2), ['p0\\', 'p1\\']);
  t.same(Object.keys(parsed.items[1]!).slice(0, 2), ['p0<', 'p1<'], 'pieces after pieces: the keys as written');
  t.equal(Object.keys(parsed.items[1]!).length, 400);
});

t.test('parseByHand reads what JSON.parse reads', async (t) => {
  const texts = [
    '0',
    '-0',
    '1.5e3',
    '-12.25E-2',
    '"a\\u00e9\\ud83d\\ude00\\ud800 \\"\\\\\\/\\b\\f\\n\\r\\t"',
    ' [ 1 , "x" , true , false , null , [ ] , { } ] ',
    '{"a":1,"a":2,"b":{"__proto__":{"x":1},"constructor":3},"2":0,"1":"one"}',
    '{"\\u0000\\u001f":"","\\"":1,"\\\\":2,"é":3}',
    '[[[[[[[[[[{"k":[{}]}]]]]]]]]]]',
    '{"text":"\\u2028\\u2029 <>&"}',
  ];
  for (const text of texts) t.same(parseByHand(text), JSON.parse(text), text);
  const dup = parseByHand('{"a":1,"b":2,"a":3}') as Record<string, number>;
  t.same(Object.keys(dup), ['a', 'b'], 'a duplicate keeps its first place and its last value');
  const proto = parseByHand('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
  t.ok(Object.hasOwn(proto, '__proto__'), '__proto__ an own property');
  t.equal(Object.getPrototypeOf(proto), Object.prototype);
  t.equal(({} as Record<string, unknown>)['polluted'], undefined);
  const deep = '['.repeat(100_000) + ']'.repeat(100_000);
  t.doesNotThrow(() => parseByHand(deep), 'no recursion: any depth JSON.parse reads');
  // Random values, written by JSON.stringify, read back whole.
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const chars = ['a', 'Z', '\\', '"', '\n', '\u0001', 'é', '\u2028', '\ud83d', '/', ' ', '<'];
  const str = () =>
    Array.from({ length: Math.floor(random() * 6) }, () => chars[Math.floor(random() * chars.length)]).join('');
  const value = (depth: number): unknown => {
    const r = random();
    if (depth > 4 || r < 0.3) return [str(), random() * 1e6 - 5e5, 1e-7, true, false, null][Math.floor(random() * 6)];
    if (r < 0.65) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = Math.floor(random() * 4); i > 0; i--) o[str()] = value(depth + 1);
    return o;
  };
  for (let i = 0; i < 2000; i++) {
    const v = value(0);
    t.same(parseByHand(JSON.stringify(v)), v, { diagnostic: false });
  }
});

t.test('parseByHand refuses what JSON.parse refuses', async (t) => {
  const bad = [
    '',
    ' ',
    '{',
    '[1,]',
    '{"a":1,}',
    '{"a" 1}',
    '{a:1}',
    '01',
    '1.',
    '.5',
    '-',
    '+1',
    'tru',
    'truex',
    'nul',
    '"\\x"',
    '"\\u12"',
    '"a\nb"',
    '"open',
    '[1 2]',
    '{"a":1}}',
    '{"a":1} x',
    "'a'",
    'NaN',
  ];
  for (const text of bad) {
    t.throws(() => JSON.parse(text), SyntaxError, `JSON.parse refuses ${JSON.stringify(text)}`);
    t.throws(() => parseByHand(text), SyntaxError, `parseByHand refuses ${JSON.stringify(text)}`);
  }
});

t.test('hasEscapedKey finds a key holding a backslash, and nothing else', async (t) => {
  t.equal(hasEscapedKey('{"a":"\\\\","b":["\\u0062"]}'), false, 'backslashes in values only');
  t.equal(hasEscapedKey('{"a":"x\\":y"}'), false, 'an escaped quote and a colon inside a value');
  t.equal(hasEscapedKey('{"a\\u0062":1}'), true);
  t.equal(hasEscapedKey('{"a":{"b" : [{"\\\\"  :1}]}}'), true, 'deep, with spaces before the colon');
  t.equal(hasEscapedKey('{"a":"\\\\", "b\\n":1}'), true, 'after a value that ends in an escaped backslash');
  t.equal(hasEscapedKey('{"plain":1}'), false);
});

/** Whether a key of JSON `text` is written with a backslash, read a character at a time (the reference). */
function keyWrittenWithBackslash(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '"') continue;
    let slash = false;
    for (i++; text[i] !== '"'; i++)
      if (text[i] === '\\') {
        slash = true;
        i++;
      }
    let j = i + 1;
    while (' \t\n\r'.includes(text[j] ?? '.')) j++;
    if (slash && text[j] === ':') return true;
  }
  return false;
}

t.test('hasEscapedKey answers as a reading of every character does, on JSON of any shape', async (t) => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const pick = <T>(a: readonly T[]): T => a[Math.floor(random() * a.length)]!;
  const chars = ['a', '\\', '"', ':', ',', '{', '}', '[', ']', ' ', '\n', 'u', '\u2028', 'é'];
  const text = () => Array.from({ length: Math.floor(random() * 6) }, () => pick(chars)).join('');
  const space = () => (random() < 0.2 ? pick([' ', '\n', '\t', '\r']) : '');
  const value = (depth: number): string => {
    const r = random();
    if (depth > 3 || r < 0.3) return JSON.stringify(text());
    if (r < 0.4) return pick(['1', 'true', 'null']);
    const n = Math.floor(random() * 4);
    const object = r < 0.7;
    const members = Array.from({ length: n }, () =>
      object
        ? `${space()}${JSON.stringify(text())}${space()}:${space()}${value(depth + 1)}${space()}`
        : `${space()}${value(depth + 1)}${space()}`,
    );
    return object ? `{${members.join(',')}}` : `[${members.join(',')}]`;
  };
  let differ = 0;
  let keys = 0;
  for (let k = 0; k < 20_000; k++) {
    const json = value(0);
    const expected = keyWrittenWithBackslash(json);
    if (expected) keys++;
    if (hasEscapedKey(json) !== expected && differ++ < 3) t.fail(`${JSON.stringify(json)}: not ${expected}`);
  }
  t.equal(differ, 0, `20,000 texts, ${keys} with such a key`);
  t.ok(keys > 1000, 'keys with a backslash among them');
  // Strings of many escapes: read on past each search's 256, and 8 MiB of them read without running out of stack.
  const escapes = '\\n\\"\\\\'.repeat(200);
  t.equal(hasEscapedKey(`{"a":"${escapes}","b":1}`), false, 'a value of 600 escapes');
  t.equal(hasEscapedKey(`{"a":1,"${escapes}x":1}`), true, 'a key of 600 escapes');
  t.equal(
    hasEscapedKey(`{"a":"${'\\n'.repeat(1 << 22)}"}`),
    false,
    'a value of four million escapes (8 MiB, the body limit)',
  );
  t.equal(
    hasEscapedKey(`{"${'\\n'.repeat(1 << 22)}":1}`),
    true,
    'a key of four million escapes (8 MiB, the body limit)',
  );
});
