/**
 * The deepest nesting of objects and arrays a hook request may have. Kubernetes objects nest a few dozen levels;
 * code that walks a value recursively (structuredClone, schema checks, serialisers) overflows the stack a few
 * thousand levels down, so a deeper request is refused whole with a 400 rather than failing somewhere inside.
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

/**
 * The hook service's JSON body parser: JSON.parse, after refusing a body nested deeper than MAX_JSON_DEPTH. Keys
 * such as `__proto__` stay plain own properties (valid Kubernetes data; see lib/app.ts).
 */
export function parseJsonBody(text: string): unknown {
  if (text.length > MAX_JSON_DEPTH * 2 && jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
    throw Object.assign(new Error(`request body nests deeper than ${MAX_JSON_DEPTH} levels`), { statusCode: 400 });
  }
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
