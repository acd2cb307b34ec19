// JSON text a hook already knows for (part of) its answer, so that the service does not serialise it again.

const TEXT = Symbol('metaops.json');

/**
 * Marks `list` with the JSON text it serialises to (what `JSON.stringify(list)` would write). The service
 * sends that text for the hook's children instead of serialising the list; the list itself stays an ordinary
 * array for everything else (tests, logs). A symbol key: JSON.stringify and every spread ignore it.
 */
export function withJsonText<T extends unknown[]>(list: T, text: string): T {
  Object.defineProperty(list, TEXT, { value: text });
  return list;
}

/** The text `withJsonText` gave this value, if any. */
export function jsonTextOf(value: unknown): string | undefined {
  return (value as { [TEXT]?: string } | null | undefined)?.[TEXT];
}

/** A name no Kubernetes object has (object names are DNS labels or subdomains) and JSON writes unchanged. */
const SENTINEL = '<metaops name>';
const SENTINEL_JSON = JSON.stringify(SENTINEL);

/**
 * The objects `make` builds for each name, and their JSON as an array, for objects that are alike but for the
 * name `make` is given (a PodSet's pods; `make` must not otherwise depend on it): one object is serialised, with a sentinel for the name, and each name
 * is spliced into that text. A PodSet's answer is mostly its pods, and JSON.stringify is most of what
 * answering costs (bench/RESULTS.md). Should the sentinel occur anywhere else in the object (say in a
 * command), the text is written by JSON.stringify instead.
 */
export function alikeButName<T>(names: readonly string[], make: (name: string) => T): T[] {
  const objects = names.map(make);
  if (objects.length === 0) return withJsonText(objects, '[]');
  const one = JSON.stringify(make(SENTINEL));
  const at = one.indexOf(SENTINEL_JSON);
  if (at < 0 || one.includes(SENTINEL_JSON, at + 1)) return objects;
  const head = one.slice(0, at);
  const tail = one.slice(at + SENTINEL_JSON.length);
  const texts = new Array<string>(names.length);
  for (let i = 0; i < names.length; i++) texts[i] = head + JSON.stringify(names[i]) + tail;
  return withJsonText(objects, `[${texts.join(',')}]`);
}
