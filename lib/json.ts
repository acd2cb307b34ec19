import { hasEscapedKey, parseJson } from './parse-json.js';

/**
 * The deepest nesting of objects and arrays a hook may be asked to walk. Kubernetes objects nest a few dozen levels;
 * code that walks a value recursively (structuredClone, schema checks, a serialiser with a replacer) overflows the
 * stack a few thousand levels down, so a request nested deeper where code walks it is refused with a 400 rather
 * than failing somewhere inside (parseHookBody says where).
 */
export const MAX_JSON_DEPTH = 1000;

/**
 * How deep `text`'s arrays and objects nest, stopping as soon as it passes `limit`. One pass over the characters
 * outside strings; a string is skipped whole, to its closing quote (the next quote not escaped by an odd run of
 * backslashes), with indexOf: most of a Kubernetes object's text is strings, and a loop over each of their
 * characters cost 60% of what JSON.parse then spent on the same body (bench/RESULTS.md); this costs ~30% (perf: docs/performance.md).
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      for (;;) {
        const quote = text.indexOf('"', i + 1);
        if (quote < 0) return false;
        let b = quote - 1;
        while (text.charCodeAt(b) === 92 /* \ */) b--;
        i = quote;
        // An even number of backslashes before it (none, or escaped backslashes): the string ends here.
        if ((quote - 1 - b) % 2 === 0) break;
      }
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > limit) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
    }
  }
  return false;
}

/** The refusal of a request nested deeper than MAX_JSON_DEPTH: a clear 400, said the same wherever it is found. */
export function nestingRefused(): Error & { statusCode: number } {
  return Object.assign(new Error(`request body nests deeper than ${MAX_JSON_DEPTH} levels`), { statusCode: 400 });
}

/**
 * How deep a parsed value's arrays and objects nest, stopping as soon as it passes `limit` (the value itself is
 * level 1, as its text's outermost bracket). No recursion, so any depth is walked safely; it visits each object
 * once, so it is meant for the parts of a request that code recurses on (a parent, an object handed back), not for
 * a whole request. Depth first, one frame per level (the members of the object or array being walked, and the next
 * to look at): what it holds grows with the nesting, at most `limit` frames, never with the width of a level. A
 * stack of every member still to visit held two entries for each of a parent's 2.8 million empty managedFields
 * entries, and its growth ~130 MiB of heap on top of the parsed body (docs/operating.md, "Memory with the worst
 * objects").
 */
export function valueDepthExceeds(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (limit < 1) return true;
  // Object.values rather than for..in: on a parsed parent of ~70 objects 6 us against 66-96 us per walk (for..in
  // over objects of many shapes stays slow). An array is its own list of members. perf: docs/performance.md
  const lists: unknown[][] = [membersOf(value)];
  const next: number[] = [0];
  while (lists.length > 0) {
    const top = lists.length - 1;
    const list = lists[top]!;
    const i = next[top]!;
    if (i >= list.length) {
      lists.pop();
      next.pop();
      continue;
    }
    next[top] = i + 1;
    const v = list[i];
    if (v === null || typeof v !== 'object') continue;
    // The members of the top frame are one level below it: `v` is at level lists.length + 1.
    if (lists.length >= limit) return true;
    const members = membersOf(v);
    if (members.length === 0) continue;
    lists.push(members);
    next.push(0);
  }
  return false;
}

function membersOf(value: object): unknown[] {
  return Array.isArray(value) ? value : Object.values(value);
}

/**
 * A request body as the hook routes read it: JSON.parse, and a malformed body refused with where it went wrong.
 * Its depth is not scanned here. V8's JSON.parse does not recurse (Node 26 parses, and JSON.stringify without a
 * replacer or indentation writes, 200 000 levels), so depth matters only where code recurses on what it read, and
 * is bounded there: the parent or object a hook is about (lib/hook-routes.ts, before the hook), every observed
 * object handed back (lib/objects.ts keepObserved), and a stack overflow anywhere on a request nested past the
 * limit is that request's 400 (lib/app.ts). perf: docs/performance.md: the scan of every body was 14.9% of the
 * server's CPU on a 100-pod PodSet request (927 us of 6220 per request, `npm run bench:profile`).
 */
export function parseHookBody(text: string): unknown {
  try {
    return parseJson(text);
  } catch (err) {
    throw notJson(err);
  }
}

/** The 400 of a body JSON.parse refused with `err`. */
function notJson(err: unknown): Error & { statusCode: number } {
  // V8 quotes the body around an unexpected token (`Unexpected token 'h', ..."assword": hunter2"... is not valid
  // JSON`): that text is neither echoed nor logged, only the messages that say where the body went wrong.
  const detail = (err as Error).message;
  const where = detail.endsWith(' is not valid JSON') ? '' : `: ${detail}`;
  return Object.assign(new Error(`Body is not valid JSON${where}`), { statusCode: 400 });
}

/**
 * JSON text that code will then walk recursively (JSON inside an annotation): refused when nested deeper than
 * MAX_JSON_DEPTH, else parsed as parseHookBody does. Keys such as `__proto__` stay plain own properties (valid
 * Kubernetes data; see lib/app.ts).
 */
export function parseJsonBody(text: string): unknown {
  if (text.length > MAX_JSON_DEPTH * 2 && jsonDepthExceeds(text, MAX_JSON_DEPTH)) throw nestingRefused();
  return parseHookBody(text);
}

/**
 * A hook request's text without the `metadata.managedFields` of any object it carries, cut out before it is parsed:
 * the object it is about (its top-level `parent`, or `object` for a DecoratorController) and every observed object
 * (each object of the maps of maps `children`, `attachments` and `related`, `{"<Kind>.<version>": {"<name>": {...}}}`).
 * No hook reads them (who made a PodBuggerTool is an annotation the server trusts, and the author policy's own
 * managedFields are read from the API, docs/podbuggertool.md), and each object's are as large as its writer makes
 * them: a parent whose managedFields were 8 MiB of `{},` parsed to ~136 MiB of heap, and five EtcdRestores of a
 * namespace with ~1.4 MiB each of small objects with keys of their own (`{"f:k1":{"f:x1":{}}, ...}`) held the
 * server's thread 2.5-4.5 s a sync that carried them (docs/operating.md, "Memory with the worst objects" and the
 * server's CPU). A key named `managedFields` anywhere else (in a spec, in an annotation's text, in the controller,
 * under a top-level key of another name) is not touched.
 *
 * The server parses a request with parsedWithoutManagedFields first, which gives the same value without this walk
 * (perf: docs/performance.md); this is what it falls back on, and what that function is checked against.
 *
 * One pass over the text, each character read once (strings skipped whole with indexOf as in jsonDepthExceeds): the
 * work is bounded by the size of the request, which the body limit bounds. A key spelled with escapes
 * (`"managed\u0046ields"`) is left, and so is text this does not read as JSON, which JSON.parse then refuses as it
 * would have (an object of another shape where one is expected is skipped whole and parsed as sent); the text inside
 * a managedFields value cut out is not checked (it is never read).
 */
export function withoutManagedFields(text: string): string {
  const cuts: Array<[number, number]> = [];
  const metadata = (at: number): number => {
    // The end of the last member kept (-1: none yet): a member cut takes the comma before it, or the one after it
    // when it comes first.
    let keptEnd = -1;
    return eachMember(text, at, (keyStart, keyEnd, valueStart) => {
      const end = valueEnd(text, valueStart);
      if (end < 0 || !isKey(text, keyStart, keyEnd, 'managedFields')) {
        keptEnd = end;
        return end;
      }
      if (keptEnd >= 0) cuts.push([keptEnd, end]);
      else {
        const next = skipSpace(text, end);
        cuts.push([keyStart, text.charCodeAt(next) === 44 /* , */ ? next + 1 : end]);
      }
      return end;
    });
  };
  // An object carried: every member of it named metadata (JSON.parse keeps the last of duplicates). A value that is
  // not an object is skipped whole.
  const object = (at: number): number =>
    text.charCodeAt(at) !== 123 /* { */
      ? valueEnd(text, at)
      : eachMember(text, at, (keyStart, keyEnd, valueStart) =>
          isKey(text, keyStart, keyEnd, 'metadata') && text.charCodeAt(valueStart) === 123 /* { */
            ? metadata(valueStart)
            : valueEnd(text, valueStart),
        );
  // A map of objects (`{"<name>": {...}}`), and a map of those (`{"<Kind>.<version>": {...}}`).
  const objects = (at: number): number =>
    text.charCodeAt(at) !== 123 ? valueEnd(text, at) : eachMember(text, at, (_s, _e, valueStart) => object(valueStart));
  const groups = (at: number): number =>
    text.charCodeAt(at) !== 123
      ? valueEnd(text, at)
      : eachMember(text, at, (_s, _e, valueStart) => objects(valueStart));
  const read = eachMember(text, skipSpace(text, 0), (keyStart, keyEnd, valueStart) => {
    if (isKey(text, keyStart, keyEnd, 'parent') || isKey(text, keyStart, keyEnd, 'object')) return object(valueStart);
    if (
      isKey(text, keyStart, keyEnd, 'children') ||
      isKey(text, keyStart, keyEnd, 'attachments') ||
      isKey(text, keyStart, keyEnd, 'related')
    )
      return groups(valueStart);
    return valueEnd(text, valueStart);
  });
  if (read === UNREAD || cuts.length === 0) return text;
  let out = '';
  let from = 0;
  for (const [start, end] of cuts) {
    if (start > from) out += text.slice(from, start);
    from = Math.max(from, end);
  }
  return out + text.slice(from);
}

/**
 * A hook request's text parsed as `parseJson(withoutManagedFields(text))` parses it: the same value, every key in
 * the same place, without the managedFields of the objects the request carries ever being parsed; or SLOW when this
 * cannot say so, and the caller cuts and parses as before.
 *
 * perf: docs/performance.md. withoutManagedFields reads every character of the request to find the objects it
 * carries: on the 10-pod PodSet request as much CPU as parsing what is left (66 us and 85 us), so the cut paid
 * nothing back. Here only the managedFields values are read: every key `"managedFields"` of the text is found with
 * indexOf (a quote with an even run of backslashes before it starts a string, so such a key is never inside one), the
 * member replaced by a marker, a key the text does not hold, whose value is its number in the text (`"\u00ff":3`), the
 * text parsed, and the marker taken out of the metadata of the objects withoutManagedFields cuts (their metadata
 * copied without it); the controller's managedFields are put back as sent (parsed from their own text). Unless every
 * member replaced was found there, each once, the request is SLOW: a key so named in a spec, a label, an object of
 * another shape, a duplicate, a key spelled with an escape (any key holding a backslash), text that is not JSON, a text
 * holding the marker. A text still over WHOLE_PARSE_BYTES once replaced is SLOW too (parsed in pieces).
 */
export function parsedWithoutManagedFields(text: string): unknown {
  if (text.includes(MARKER)) return SLOW;
  const marked = markedManagedFields(text);
  if (marked === SLOW) return SLOW;
  if (marked.values.length === 0) return text.length > WHOLE_PARSE_BYTES ? SLOW : parseOrSlow(text);
  // A key spelled with an escape (`"managed\u0046ields"`, `"\u00ff"`) is one indexOf does not find: such a text is
  // SLOW (the managedFields values, which hold keys such as `k:{\"name\":\"c\"}`, are replaced by then).
  if (marked.text.length > WHOLE_PARSE_BYTES || hasEscapedKey(marked.text)) return SLOW;
  const request = parseOrSlow(marked.text);
  if (request === SLOW || !isMap(request)) return SLOW;
  const markers = new Markers(marked.values.length / 2);
  if (!markers.cut(request['parent']) || !markers.cut(request['object'])) return SLOW;
  for (const key of ['children', 'attachments', 'related']) if (!markers.cutEach(request[key])) return SLOW;
  // The controller's managedFields as sent, in the marker's place (a copy, its keys in their order; fromEntries
  // makes a key `__proto__` data, as JSON.parse does).
  const controller = request['controller'];
  const metadata = isMap(controller) ? controller['metadata'] : undefined;
  if (isMap(controller) && isMap(metadata) && Object.hasOwn(metadata, MARKER)) {
    const i = markers.take(metadata);
    const sent = i < 0 ? SLOW : parseOrSlow(text.slice(marked.values[2 * i], marked.values[2 * i + 1]));
    if (sent === SLOW) return SLOW;
    controller['metadata'] = Object.fromEntries(
      Object.entries(metadata).map(([key, value]) => (key === MARKER ? ['managedFields', sent] : [key, value])),
    );
  }
  return markers.all() ? request : SLOW;
}

/**
 * The text with every member keyed `"managedFields"` replaced by `"<MARKER>":<its number>`, and where each value
 * replaced starts and ends (two numbers a member); SLOW when a value does not end.
 */
function markedManagedFields(text: string): { text: string; values: number[] } | typeof SLOW {
  const values: number[] = [];
  let marked = '';
  let from = 0;
  // `Fields"` looked for, then what comes before it read: V8 finds a pattern of 7 characters or fewer starting with a
  // rare one ~18 times faster than `"managedFields"` (0.9 against 16.7 us over the 10-pod request).
  for (let tail = text.indexOf(FIELDS_END, TAIL_AT); tail >= 0; tail = text.indexOf(FIELDS_END, tail + 1)) {
    const at = tail - TAIL_AT;
    if (!text.startsWith(MANAGED_FIELDS_HEAD, at)) continue;
    let b = at - 1;
    while (text.charCodeAt(b) === 92 /* \ */) b--;
    if ((at - 1 - b) % 2 === 1) continue;
    const colon = skipSpace(text, at + MANAGED_FIELDS.length);
    if (text.charCodeAt(colon) !== 58 /* : */) continue;
    const start = skipSpace(text, colon + 1);
    const end = valueEnd(text, start);
    if (end < 0) return SLOW;
    // Past MAX_MARKERS the text is SLOW: the markers' bookkeeping is bounded whatever a body holds.
    if (values.length >= 2 * MAX_MARKERS) return SLOW;
    marked += `${text.slice(from, at)}"${MARKER}":${values.length / 2}`;
    values.push(start, end);
    from = end;
    tail = end - 1;
  }
  return { text: marked + text.slice(from), values };
}

/** The markers of a parsed request taken out of the objects it carries, each once. */
class Markers {
  private readonly seen: Uint8Array;
  private found = 0;
  constructor(count: number) {
    this.seen = new Uint8Array(count);
  }

  /** The number of the marker of `metadata`, the first time it is taken; else -1 (the request is SLOW). */
  take(metadata: Record<string, unknown>): number {
    const i = metadata[MARKER];
    if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= this.seen.length || this.seen[i] === 1)
      return -1;
    this.seen[i] = 1;
    this.found++;
    return i;
  }

  /**
   * An object carried: its metadata copied without the marker (a copy keeps its fast properties; `delete` would make
   * it a dictionary). False when its marker was not one to take.
   */
  cut(object: unknown): boolean {
    if (!isMap(object)) return true;
    const metadata = object['metadata'];
    if (!isMap(metadata) || !Object.hasOwn(metadata, MARKER)) return true;
    if (this.take(metadata) < 0) return false;
    const { [MARKER]: _cut, ...kept } = metadata;
    object['metadata'] = kept;
    return true;
  }

  /** Every object of a map of maps of objects (`{"<Kind>.<version>": {"<name>": {...}}}`). */
  cutEach(groups: unknown): boolean {
    if (!isMap(groups)) return true;
    for (const kind in groups) {
      const objects = groups[kind];
      if (!isMap(objects)) continue;
      for (const name in objects) if (!this.cut(objects[name])) return false;
    }
    return true;
  }

  /** Whether every marker was taken. */
  all(): boolean {
    return this.found === this.seen.length;
  }
}

/** What parsedWithoutManagedFields answers when it cannot say what the text parses to. */
export const SLOW: unique symbol = Symbol('slow');

const MANAGED_FIELDS = '"managedFields"';
/**
 * The most managedFields members parsedWithoutManagedFields replaces: one per object a request carries, and a
 * request of the body limit carries a few thousand objects (the bench's 1000-pod PodSet request: 1,001).
 */
export const MAX_MARKERS = 10_000;
/** The key a managedFields member is replaced by: one character, written as it is (no escape), rare in requests. */
const MARKER = '\u00ff';
const FIELDS_END = 'Fields"';
const MANAGED_FIELDS_HEAD = '"managed';
const TAIL_AT = MANAGED_FIELDS.length - FIELDS_END.length;

function parseOrSlow(text: string): unknown {
  try {
    return parseJson(text);
  } catch {
    return SLOW;
  }
}

/** A JSON object (not an array, not null). */
function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What eachMember's visitor returns instead of a value's end: the text is not JSON as read. */
const UNREAD = -1;

/**
 * The members of the object whose `{` is at `at`, in order: `visit` is given where each key's quotes start and end
 * and where its value starts, and returns where the value ends (or UNREAD). The index after the closing `}`,
 * else what the visitor returned.
 */
function eachMember(
  text: string,
  at: number,
  visit: (keyStart: number, keyEnd: number, valueStart: number) => number,
): number {
  if (text.charCodeAt(at) !== 123 /* { */) return UNREAD;
  let i = skipSpace(text, at + 1);
  if (text.charCodeAt(i) === 125 /* } */) return i + 1;
  for (;;) {
    if (text.charCodeAt(i) !== 34 /* " */) return UNREAD;
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0) return UNREAD;
    const colon = skipSpace(text, keyEnd);
    if (text.charCodeAt(colon) !== 58 /* : */) return UNREAD;
    const end = visit(i, keyEnd, skipSpace(text, colon + 1));
    if (end < 0) return end;
    i = skipSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === 125 /* } */) return i + 1;
    if (c !== 44 /* , */) return UNREAD;
    i = skipSpace(text, i + 1);
  }
}

/** Whether the key whose quotes span [start, end) is `name`, as written (no escapes). */
function isKey(text: string, start: number, end: number, name: string): boolean {
  return end - start - 2 === name.length && text.startsWith(name, start + 1);
}

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return i;
    i++;
  }
}

/** The index after the string whose opening quote is at `at` (its closing quote: one not escaped), else UNREAD. */
function stringEnd(text: string, at: number): number {
  let from = at;
  for (;;) {
    const quote = text.indexOf('"', from + 1);
    if (quote < 0) return UNREAD;
    let b = quote - 1;
    while (text.charCodeAt(b) === 92 /* \ */) b--;
    // An even number of backslashes before it (none, or escaped backslashes): the string ends here.
    if ((quote - 1 - b) % 2 === 0) return quote + 1;
    from = quote;
  }
}

/**
 * The index after the value that starts at `at`: a string, an array or object to its matching bracket (strings in
 * it skipped whole), or a number, `true`, `false` or `null` to the next delimiter. UNREAD when it does not end.
 */
function valueEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === 34 /* " */) return stringEnd(text, at);
  if (first === 123 /* { */ || first === 91 /* [ */) return closingEnd(text, at);
  let i = at;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 44 || c === 125 || c === 93 || c === 32 || c === 10 || c === 13 || c === 9) break;
  }
  return i > at ? i : UNREAD;
}

/** The index after the bracket that closes the one at `at`, strings in between skipped whole; else UNREAD. */
function closingEnd(text: string, at: number): number {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const end = stringEnd(text, i);
      if (end < 0) return UNREAD;
      i = end - 1;
    } else if (c === 123 /* { */ || c === 91 /* [ */) depth++;
    // A closing } or ]: the value ends with the one that closes its first bracket.
    else if ((c === 125 || c === 93) && --depth === 0) return i + 1;
  }
  return UNREAD;
}

/**
 * The largest text JSON.parse is given in one go by parseInPieces: below it a text is parsed whole, as before. A
 * megabyte of the costliest shape to parse per byte, many short keys of their own (`{"a-0":"","b-0":"",...}`, ~9
 * bytes a member), makes ~120,000 members: ~0.3 s of the server's thread on the loaded 2-core machine, under the
 * kubelet's 1 s probe timeout. Ordinary requests (a parent with its children) are far below it.
 */
export const WHOLE_PARSE_BYTES = 1024 * 1024;
/**
 * The text of one piece parseInPieces gives JSON.parse: a run of an object's members (or an array's items) of about
 * this many bytes, ending at the first separating comma past it (so at most this plus one member that is not itself
 * split), at most ~15,000 members of short keys (~30-60 ms of the thread); the event loop turns between pieces.
 */
export const PIECE_BYTES = 128 * 1024;
/**
 * How deep parseInPieces looks for objects and arrays to split (the text's outermost is level 1): a Kubernetes
 * object's maps of many keys (labels and annotations: request > related > kind > object > metadata > labels) are
 * at level 6; a value deeper than this is parsed in one piece with the members around it, and one object stored by
 * the API server is at most ~1.5 MiB (etcd's request limit). The scan keeps one frame a level up to this depth, never
 * more, whatever the nesting.
 */
export const SPLIT_DEPTH = 32;
/** The sizes parseInPieces works with: a text parsed whole up to `whole` bytes, else in pieces of about `piece`. */
export interface PieceSizes {
  whole: number;
  piece: number;
}
const PIECES: PieceSizes = { whole: WHOLE_PARSE_BYTES, piece: PIECE_BYTES };
/** How much text parseInPieces scans before it lets the event loop turn. */
const SCAN_SLICE = 512 * 1024;

/**
 * An object or array of a text being split by parseInPieces: where it opens (its bracket), where its current member
 * starts (after its opening bracket or the last comma of its own), the commas where its members are cut into
 * pieces, and its members' values that are themselves split (larger than PIECE_BYTES).
 */
interface Frame {
  open: number;
  end: number;
  object: boolean;
  /** Where the member holding this value starts in its parent (after the parent's bracket or comma). */
  memberStart: number;
  current: number;
  lastCut: number;
  cuts: number[] | undefined;
  split: Frame[] | undefined;
}

/** Why parseInPieces gave up on a text: it parses it whole instead (which says what is wrong with it). */
class NotPieces extends Error {}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A JSON text parsed as JSON.parse parses it (the same values, key order, duplicate keys the last one's, `__proto__`
 * an own property), without ever giving JSON.parse more than about PIECE_BYTES of it at once, and letting the event
 * loop turn between pieces: the server's one thread is never held by one request's parse. What a parse costs grows
 * with the members it makes, and a text of the body limit of many short keys (a namespace's objects' labels and
 * annotations, which their writers choose) is ~600,000 of them, ~2 s of the thread in one JSON.parse, when nothing
 * else is answered (docs/operating.md, "the server's thread while it parses a request").
 *
 * A text of at most WHOLE_PARSE_BYTES, or whose outermost value is not an object or an array, is parsed whole, at
 * once. Otherwise, two passes. The scan (no recursion, the event loop turning every SCAN_SLICE) finds, for every
 * object and array down to SPLIT_DEPTH, where it ends, the commas between its members that cut it into pieces of
 * about PIECE_BYTES, and which of its members' values are larger than that; the build then parses each run of
 * members between those cuts as an object (or array) of its own and copies its members into the value being built
 * in order, and builds the larger values the same way, one level down. Every character of the text is read by one
 * JSON.parse or checked by the build (brackets, separating commas, the keys of values split): a text that is not
 * JSON is refused. Anything this does not read as it expects is parsed whole instead (JSON.parse then refuses a
 * text that is not JSON with its own message, or parses one this misread): never another value than JSON.parse's.
 */
export async function parseInPieces(text: string, sizes: PieceSizes = PIECES): Promise<unknown> {
  if (text.length <= sizes.whole) return parseJson(text);
  const start = skipSpace(text, 0);
  const first = text.charCodeAt(start);
  if (first !== 123 /* { */ && first !== 91 /* [ */) return parseJson(text);
  try {
    return await build(text, await scanFrames(text, start, sizes.piece));
  } catch {
    // Not read as expected (NotPieces, or a piece JSON.parse refused): the text whole, as JSON.parse reads it.
    return parseJson(text);
  }
}

/** parseInPieces of a hook request's body, refused with parseHookBody's 400 when it is not JSON. */
export async function parseHookBodyInPieces(text: string): Promise<unknown> {
  try {
    return await parseInPieces(text);
  } catch (err) {
    throw notJson(err);
  }
}

/** The scan of parseInPieces: the outermost value's frame, its cuts and the frames of its values that are split. */
async function scanFrames(text: string, start: number, piece: number): Promise<Frame> {
  const scan = new FrameScan(text, piece);
  let slice = SCAN_SLICE;
  const n = text.length;
  for (let i = start; i < n; i++) {
    if (i >= slice) {
      await turn();
      slice = i + SCAN_SLICE;
    }
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const end = stringEnd(text, i);
      if (end < 0) throw new NotPieces();
      i = end - 1;
    } else if (c === 123 /* { */ || c === 91 /* [ */) scan.open(i, c === 123);
    else if (c === 125 /* } */ || c === 93 /* ] */) {
      const root = scan.close(i, c === 125);
      if (root !== undefined) return root;
    } else if (c === 44 /* , */) scan.comma(i);
  }
  throw new NotPieces();
}

/** What scanFrames keeps: a frame for each level open down to SPLIT_DEPTH, and a count of those open below. */
class FrameScan {
  private readonly frames: Frame[] = [];
  private deeper = 0;

  constructor(
    private readonly text: string,
    private readonly piece: number,
  ) {}

  open(at: number, object: boolean): void {
    if (this.deeper > 0 || this.frames.length >= SPLIT_DEPTH) {
      this.deeper++;
      return;
    }
    const parent = this.frames[this.frames.length - 1];
    this.frames.push({
      open: at,
      end: -1,
      object,
      memberStart: parent ? parent.current : at,
      current: at + 1,
      lastCut: at,
      cuts: undefined,
      split: undefined,
    });
  }

  /** The outermost frame when this bracket closes it (only whitespace after it), else undefined. */
  close(at: number, object: boolean): Frame | undefined {
    if (this.deeper > 0) {
      this.deeper--;
      return undefined;
    }
    const frame = this.frames.pop();
    if (frame === undefined || frame.object !== object) throw new NotPieces();
    frame.end = at + 1;
    const parent = this.frames[this.frames.length - 1];
    if (parent === undefined) {
      if (skipSpace(this.text, at + 1) !== this.text.length) throw new NotPieces();
      return frame;
    }
    if (frame.end - frame.open > this.piece) (parent.split ??= []).push(frame);
    return undefined;
  }

  comma(at: number): void {
    if (this.deeper > 0) return;
    const frame = this.frames[this.frames.length - 1];
    if (frame === undefined) throw new NotPieces();
    frame.current = at + 1;
    if (at - frame.lastCut >= this.piece) {
      (frame.cuts ??= []).push(at);
      frame.lastCut = at;
    }
  }
}

/** The value of a frame of scanFrames: its runs of members parsed a piece at a time, its split values built. */
async function build(text: string, frame: Frame): Promise<unknown> {
  // The first piece parsed is the value built, when the frame starts with one (its members are not copied again).
  let value: unknown[] | Record<string, unknown> | undefined;
  const cuts = frame.cuts ?? [];
  let cut = 0;
  // The runs of members between the values split (and before the first, after the last), each cut at the frame's
  // cuts that fall inside it.
  const run = async (from: number, to: number): Promise<void> => {
    for (;;) {
      while (cut < cuts.length && cuts[cut]! < from) cut++;
      const at = cut < cuts.length && cuts[cut]! < to ? cuts[cut]! : to;
      const piece = text.slice(from, at);
      if (isBlank(piece)) throw new NotPieces();
      const parsed = parseJson(frame.object ? `{${piece}}` : `[${piece}]`);
      if (value === undefined) value = parsed as unknown[] | Record<string, unknown>;
      else add(value, parsed);
      await turn();
      if (at === to) return;
      from = at + 1;
    }
  };
  let from = frame.open + 1;
  const split = frame.split ?? [];
  for (let k = 0; k < split.length; k++) {
    const child = split[k]!;
    // Before this member: after a split value, the comma that ends it; then members, each run ended by the comma
    // before this member's start, unless this member follows the bracket or that comma.
    if (k > 0) {
      const comma = skipSpace(text, from);
      if (text.charCodeAt(comma) !== 44 /* , */) throw new NotPieces();
      from = comma + 1;
    }
    if (child.memberStart !== from) {
      const comma = child.memberStart - 1;
      const a = skipSpace(text, from);
      if (text.charCodeAt(comma) !== 44 || a >= comma) throw new NotPieces();
      await run(a, comma);
    }
    const built = await build(text, child);
    value ??= frame.object ? {} : [];
    if (frame.object) define(value as Record<string, unknown>, keyBefore(text, child.memberStart, child.open), built);
    else if (isBlank(text.slice(child.memberStart, child.open))) (value as unknown[]).push(built);
    else throw new NotPieces();
    from = child.end;
  }
  // The members after the last split value (or all of them), to the closing bracket.
  const close = frame.end - 1;
  let a = skipSpace(text, from);
  if (split.length > 0 && a < close) {
    if (text.charCodeAt(a) !== 44 /* , */) throw new NotPieces();
    a = skipSpace(text, a + 1);
    if (a >= close) throw new NotPieces();
  }
  if (a < close) await run(a, close);
  return value ?? (frame.object ? {} : []);
}

/** The key of the member whose value opens at `open`: `"key" :` between `from` and it, whitespace around. */
function keyBefore(text: string, from: number, open: number): string {
  const q = skipSpace(text, from);
  if (text.charCodeAt(q) !== 34 /* " */) throw new NotPieces();
  const e = stringEnd(text, q);
  if (e < 0) throw new NotPieces();
  const colon = skipSpace(text, e);
  if (text.charCodeAt(colon) !== 58 /* : */ || skipSpace(text, colon + 1) !== open) throw new NotPieces();
  const inner = text.slice(q + 1, e - 1);
  // A key without escapes or control characters is its text; else JSON.parse reads (or refuses) it.
  // eslint-disable-next-line no-control-regex
  if (!/[\\\u0000-\u001f]/.test(inner)) return inner;
  const key = parseJson(text.slice(q, e));
  if (typeof key !== 'string') throw new NotPieces();
  return key;
}

/** The members (or items) of a piece parsed, added to the value being built in their order. */
function add(value: unknown[] | Record<string, unknown>, parsed: unknown): void {
  if (Array.isArray(value)) {
    for (const item of parsed as unknown[]) value.push(item);
    return;
  }
  const members = parsed as Record<string, unknown>;
  // Key by key (Object.assign took half as long again: 126,000 short keys), never assigned a `__proto__` (define).
  for (const key of Object.keys(members)) define(value, key, members[key]);
}

/**
 * A member set as JSON.parse sets it: an own property, in the place of the first member of that name (a later one
 * replaces its value), `__proto__` too (assigned, it would set the object's prototype instead).
 */
function define(value: Record<string, unknown>, key: string, member: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(value, key, { value: member, writable: true, enumerable: true, configurable: true });
  else value[key] = member;
}

/** Whether a text is only JSON whitespace (or nothing). */
function isBlank(piece: string): boolean {
  return skipSpace(piece, 0) === piece.length;
}
