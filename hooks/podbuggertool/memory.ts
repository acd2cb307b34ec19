// The hook server's memories shared by every namespace (counts at rest, the author answers, the injector's runs):
// bounded over the whole server and shared fairly, so that one namespace's objects never push out another's.

/**
 * Entries each memory of this kind keeps over every namespace, unless it says otherwise. Past it, an entry of the
 * namespace that holds the most is dropped (its oldest): one namespace's entries never push out another's while they
 * hold more, so with k namespaces remembering, each keeps at least MAX_REMEMBERED / k of its own.
 */
export const MAX_REMEMBERED = 1000;

/** The namespace of a key written as JSON with the namespace first ([namespace, ...]); '' for any other key. */
export function namespaceOfKey(key: string): string {
  try {
    const parsed: unknown = JSON.parse(key);
    return Array.isArray(parsed) && typeof parsed[0] === 'string' ? parsed[0] : '';
  } catch {
    return '';
  }
}

/**
 * Entries by key, in order of their last write, bounded by `bound` over all namespaces and shared fairly: a new
 * entry past the bound drops the oldest of the namespace holding the most (its own, when it holds as many).
 * `namespaceOf` reads a key's namespace (by default the first item of a JSON array).
 */
export class SharedMemory<V> {
  private readonly namespaces = new Map<string, Map<string, V>>();
  private count = 0;
  constructor(
    readonly bound: number = MAX_REMEMBERED,
    private readonly namespaceOf: (key: string) => string = namespaceOfKey,
  ) {}

  get size(): number {
    return this.count;
  }

  /** The entries a namespace holds. */
  held(namespace: string): number {
    return this.namespaces.get(namespace)?.size ?? 0;
  }

  get(key: string): V | undefined {
    return this.namespaces.get(this.namespaceOf(key))?.get(key);
  }

  has(key: string): boolean {
    return this.namespaces.get(this.namespaceOf(key))?.has(key) ?? false;
  }

  /** Every key, namespace by namespace. */
  *keys(): IterableIterator<string> {
    for (const entries of this.namespaces.values()) yield* entries.keys();
  }

  set(key: string, value: V): void {
    const namespace = this.namespaceOf(key);
    this.delete(key);
    if (this.count >= this.bound) this.dropFromLargest(namespace);
    let entries = this.namespaces.get(namespace);
    if (!entries) this.namespaces.set(namespace, (entries = new Map()));
    entries.set(key, value);
    this.count += 1;
  }

  delete(key: string): void {
    const namespace = this.namespaceOf(key);
    const entries = this.namespaces.get(namespace);
    if (!entries?.delete(key)) return;
    this.count -= 1;
    if (entries.size === 0) this.namespaces.delete(namespace);
  }

  /** Drops the oldest entry of the namespace that holds the most (`namespace` itself when it holds as many). */
  private dropFromLargest(namespace: string): void {
    let largest = namespace;
    let most = this.held(namespace);
    for (const [name, entries] of this.namespaces)
      if (entries.size > most) {
        largest = name;
        most = entries.size;
      }
    const entries = this.namespaces.get(largest);
    const oldest = entries?.keys().next();
    if (oldest && !oldest.done) this.delete(oldest.value);
  }
}
