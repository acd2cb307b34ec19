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
