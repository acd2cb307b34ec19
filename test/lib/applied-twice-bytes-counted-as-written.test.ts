// A child's bytes in each sync request once the API server stores it (lib/budget.ts appliedTwiceBytes): its fields as
// Go writes them, and once more in Metacontroller's last-applied annotation, the same JSON kept in a string. The
// annotation's bytes are counted without writing it (lib/go-json.ts goJsonStringOfTextBytes); they must be exactly
// the bytes of the string written out: asGoWritesIt, then Go's writing of that string.
import fc from 'fast-check';
import t from 'tap';
import { appliedTwiceBytes } from '../../lib/budget.js';
import { asGoWritesIt, goJsonBytes, goJsonStringOfTextBytes, goJsonTextBytes } from '../../lib/go-json.js';

const KEY = 'metacontroller.k8s.io/last-applied-configuration';

/** appliedTwiceBytes as it was written before: the annotation written out, then measured. */
function writtenOut(value: unknown): number {
  const text = JSON.stringify(value) ?? '';
  return goJsonTextBytes(text) + goJsonBytes(asGoWritesIt(text)) + KEY.length + 32;
}

// Every character JSON.stringify or Go escapes, or writes in more than one UTF-8 byte, and plain ones.
const tricky = fc.constantFrom(
  '<',
  '>',
  '&',
  '\u2028',
  '\u2029',
  '\b',
  '\f',
  '"',
  '\\',
  '\n',
  '\u0001',
  '\u007f',
  'é',
  '€',
  '😀',
  '\ud800',
  '\udfff',
  'a',
  '/',
  'u',
);
const text = fc.array(fc.oneof(tricky, fc.string({ unit: 'binary' })), { maxLength: 12 }).map((xs) => xs.join(''));

t.test('the annotation counted is the annotation written, for any value', async (t) => {
  let checked = 0;
  const value = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      text,
      fc.integer(),
      fc.constant(null),
      fc.boolean(),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(text, tie('value'), { maxKeys: 4 }),
    ),
  })).value;
  fc.assert(
    fc.property(value, (v) => (checked++, appliedTwiceBytes(v) === writtenOut(v))),
    { numRuns: 2000 },
  );
  t.equal(checked, 2000);
});

t.test('examples: each escape, and a pod', async (t) => {
  for (const v of [
    '<',
    '\u2028',
    '\b\f',
    '\\b',
    '"\\"',
    'é😀',
    '\ud800',
    { a: ['<&>', { '\u2029': '\u2028' }] },
    undefined,
  ])
    // (A message holding U+2028 would end TAP's line: the value's code points are said.)
    t.equal(appliedTwiceBytes(v), writtenOut(v), String([...(JSON.stringify(v) ?? '')].map((c) => c.codePointAt(0))));
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p-0', annotations: { 'a/b': '<script>alert("x")</script>', json: '{"k":"v\\n"}' } },
    spec: { containers: [{ name: 'c', image: 'busybox:1.36', command: ['sh', '-c', 'echo "a && b" > /x\n'] }] },
  };
  t.equal(appliedTwiceBytes(pod), writtenOut(pod));
  const json = JSON.stringify(pod);
  t.equal(goJsonStringOfTextBytes(json), Buffer.byteLength(asGoWritesIt(JSON.stringify(asGoWritesIt(json)))));
});
