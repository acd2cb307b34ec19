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
    return JSON.parse(text);
  } catch (err) {
    // V8 quotes the body around an unexpected token (`Unexpected token 'h', ..."assword": hunter2"... is not valid
    // JSON`): that text is neither echoed nor logged, only the messages that say where the body went wrong.
    const detail = (err as Error).message;
    const where = detail.endsWith(' is not valid JSON') ? '' : `: ${detail}`;
    throw Object.assign(new Error(`Body is not valid JSON${where}`), { statusCode: 400 });
  }
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
