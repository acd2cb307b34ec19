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
 * a whole request.
 */
export function valueDepthExceeds(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  // Pairs of (object, its depth) on one stack. Object.values rather than for..in: on a parsed parent of ~70 objects
  // 6 us against 66-96 us per walk (for..in over objects of many shapes stays slow). perf: docs/performance.md
  const pending: unknown[] = [value, 1];
  while (pending.length > 0) {
    const depth = pending.pop() as number;
    const at = pending.pop() as object;
    if (depth > limit) return true;
    const inner: unknown[] = Array.isArray(at) ? at : Object.values(at);
    for (let i = 0; i < inner.length; i++) {
      const v = inner[i];
      if (v !== null && typeof v === 'object') pending.push(v, depth + 1);
    }
  }
  return false;
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
