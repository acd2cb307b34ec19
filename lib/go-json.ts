// The size of a value as Metacontroller sends it. Metacontroller writes its hook requests with Go's encoding/json,
// whose strings differ from JSON.stringify's in seven characters: `<`, `>` and `&` are written `\u003c`, `\u003e`,
// `\u0026` (HTML escaping, on in json.Marshal and in the unstructured objects' encoder), and U+2028 and U+2029
// `\u2028`, `\u2029`, always: six bytes each, against one (`<`, `>`, `&`) and three (the line and paragraph
// separators, in UTF-8); and `\b` and `\f`, which Go wrote `\u0008` and `\u000c` (six bytes) until Go 1.22 and
// writes `\b` and `\f` (two, as JSON.stringify) since. Both Metacontroller releases the suite runs send: v4.17.2
// (built with go1.26: two bytes) and v1.5.20 (built with go1.16.6: six), so `\b` and `\f` are counted six bytes, the
// larger, and a size measured here is never below what either writes. Everything else is the same: `"` and `\` in
// two bytes, `\n`, `\r`, `\t` in two, the other control characters `\u00XX`, other characters as UTF-8, no white
// space. The hook server's body limit is on these bytes (what arrives), so a size the hooks compare with it is
// measured so (test/lib/go-json-bytes.test.ts checks it against Go's own output where `go` is installed,
// test/lib/go-json-bytes-older-go-encoders.test.ts against go1.16's escapes).

/** The bytes Go's encoding/json writes for each of the characters JSON.stringify writes shorter, less JSON's. */
const GO_EXTRA: Readonly<Record<number, number>> = { 0x3c: 5, 0x3e: 5, 0x26: 5, 0x2028: 3, 0x2029: 3 };
/** What go1.16 (Metacontroller v1.5.20) adds to JSON.stringify's `\b` and `\f` (`\u0008`, `\u000c`: six bytes for two). */
const OLD_GO_EXTRA = 4;

/** The characters goEscapeExtra counts: a backslash with the character it escapes, or one Go escapes longer. */
const GO_ESCAPED = /\\[^]|[<>&\u2028\u2029]/g;
/** Whether a text holds any character goEscapeExtra looks at. */
const ANY_ESCAPED = /[\\<>&\u2028\u2029]/;

/**
 * The bytes Go's encoding/json adds to `text` (JSON as JSON.stringify writes it) for the characters it escapes, as
 * the larger of the two releases writes each (GO_EXTRA, OLD_GO_EXTRA). In JSON.stringify's text a backslash always
 * begins an escape of two characters (or six, `\uXXXX`, whose tail is plain): the character after it is its.
 *
 * perf: the text is searched with a regular expression, not read a character at a time: 4.8 us against 28 us for a
 * 5.4 KB pod (Node 26, 2026-11-28), and PodSet's sync measures up to 16 such texts per request
 * (hooks/podset/measure.ts), 12.6% of a 10-pod sync's CPU before (docs/performance.md).
 */
export function goEscapeExtra(text: string): number {
  if (!ANY_ESCAPED.test(text)) return 0;
  let extra = 0;
  for (const [c] of text.matchAll(GO_ESCAPED)) {
    if (c.length === 2) {
      if (c === '\\b' || c === '\\f') extra += OLD_GO_EXTRA;
    } else extra += GO_EXTRA[c.charCodeAt(0)]!;
  }
  return extra;
}

/** The characters Go writes longer than JSON.stringify which are not escapes of JSON.stringify's. */
const GO_LONGER = /[<>&\u2028\u2029]/g;

/**
 * The bytes Go's encoding/json writes for the string `asGoWritesIt(text)` (JSON text kept in a string, as
 * Metacontroller keeps a child it applied in an annotation), without writing it: its quotes, the text as Go writes it
 * (`goBytes`: goJsonTextBytes(text)), and a backslash before each `"` and `\` of that, which are those of `text`
 * (counted as what JSON.stringify adds writing `text` as a string: it holds no control character, no lone surrogate)
 * and one for each character Go writes `\uXXXX` that JSON.stringify writes as it is (GO_LONGER). The escapes of that
 * string are `\\`, `\"` and `\uXXXX`'s tail: Go writes none of them longer.
 *
 * perf: docs/performance.md: written out (asGoWritesIt, then JSON.stringify, then goEscapeExtra over its every
 * escape) it was ~5% of a 10-pod PodSet request's CPU (its pod's request estimate, `bench:profile`).
 */
export function goJsonStringOfTextBytes(text: string, goBytes = goJsonTextBytes(text)): number {
  let longer = 0;
  if (ANY_ESCAPED.test(text)) for (const _ of text.matchAll(GO_LONGER)) longer++;
  const slashes = JSON.stringify(text).length - 2 - text.length;
  return 2 + goBytes + slashes + longer;
}

/** The bytes of JSON text (as JSON.stringify writes it) once Go's encoding/json has written the same value. */
export function goJsonTextBytes(text: string): number {
  return Buffer.byteLength(text) + goEscapeExtra(text);
}

/**
 * The bytes of `value` as Go's encoding/json writes it (json.Marshal: compact, HTML-escaped), which is how
 * Metacontroller sends every object of a hook request, managedFields and all: what the hook server's body limit
 * counts. Key order and number forms aside (the same lengths for the integers and strings of Kubernetes objects).
 */
export function goJsonBytes(value: unknown): number {
  return goJsonTextBytes(JSON.stringify(value) ?? '');
}

/**
 * JSON text as Go's encoding/json writes the same value (for tests and benchmarks that send as Metacontroller does),
 * each character as the larger of the two releases writes it (`\b` and `\f` as go1.16 did): goJsonTextBytes of the
 * text is the length of this.
 */
export function asGoWritesIt(text: string): string {
  return text.replace(/\\[^]|[<>&\u2028\u2029]/g, (c) =>
    c === '\\b'
      ? '\\u0008'
      : c === '\\f'
        ? '\\u000c'
        : c.length === 2
          ? c
          : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
