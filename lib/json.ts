// JSON text a hook already knows for (part of) its answer, so that the service does not serialise it again.

const ITEMS = Symbol('metaops.json');

/**
 * Marks `list` with the JSON text of each of its items (what `JSON.stringify(list[i])` would write). The
 * service writes those texts for the hook's children instead of serialising the list; the list itself stays an
 * ordinary array for everything else (tests, logs). A symbol key: JSON.stringify and every spread ignore it.
 */
export function withJsonItems<T extends unknown[]>(list: T, items: string[]): T {
  Object.defineProperty(list, ITEMS, { value: items });
  return list;
}

/** The item texts `withJsonItems` gave this value, if any. */
export function jsonItemsOf(value: unknown): string[] | undefined {
  return (value as { [ITEMS]?: string[] } | null | undefined)?.[ITEMS];
}

/**
 * `before` + the JSON array of `items` + `after`, as one string built in one copy (a 1000-pod answer is
 * ~0.4 MB: concatenating the array's text with the envelope would copy it again when it is hashed).
 */
export function joinedJson(before: string, items: readonly string[], after: string): string {
  const n = items.length;
  if (n === 0) return `${before}[]${after}`;
  const parts = items.slice();
  parts[0] = `${before}[${parts[0]!}`;
  parts[n - 1] = `${parts[n - 1]!}]${after}`;
  return parts.join(',');
}

/** A name no Kubernetes object has (object names are DNS labels or subdomains) and JSON writes unchanged. */
const SENTINEL = '<metaops name>';
const SENTINEL_JSON = JSON.stringify(SENTINEL);

/**
 * The objects `make` builds for each name, marked with the JSON text of each, for objects that are alike but for
 * the name `make` is given (a PodSet's pods; `make` must not otherwise depend on it): one object is serialised
 * with a sentinel for the name, and each name is spliced into that text. A PodSet's answer is mostly its pods,
 * and serialising them was most of what answering cost (bench/RESULTS.md). Should the sentinel occur anywhere
 * else in the object (say in a command), the list is left to JSON.stringify.
 */
export function alikeButName<T>(names: readonly string[], make: (name: string) => T): T[] {
  const objects = names.map(make);
  if (objects.length === 0) return withJsonItems(objects, []);
  const one = JSON.stringify(make(SENTINEL));
  const at = one.indexOf(SENTINEL_JSON);
  if (at < 0 || one.includes(SENTINEL_JSON, at + 1)) return objects;
  const head = one.slice(0, at);
  const tail = one.slice(at + SENTINEL_JSON.length);
  const texts = new Array<string>(names.length);
  for (let i = 0; i < names.length; i++) texts[i] = head + JSON.stringify(names[i]) + tail;
  return withJsonItems(objects, texts);
}

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
 * characters cost 60% of what JSON.parse then spent on the same body (bench/RESULTS.md); this costs ~30%.
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
    throw Object.assign(new Error(`Body is not valid JSON: ${(err as Error).message}`), { statusCode: 400 });
  }
}
