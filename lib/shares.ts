// Memories the hook server keeps between calls and shares between tenants (the etcd clients, the PodBuggerTool
// counts, author answers and injector runs): bounded over the whole server and shared fairly, so that one
// namespace's entries never push another's out while it holds more.

/**
 * Values by namespace and key, in order of last write (and of last use, for `get`), bounded per namespace (`share`)
 * and over all (`bound`): a new entry of a namespace at its share drops that namespace's oldest; past the bound over
 * all, the oldest of the namespace that holds the most (the new entry's own when it holds as many). With k
 * namespaces remembering, each keeps at least min(share, bound / k) of its own.
 */
export class NamespaceShares<V> {
  private readonly namespaces = new Map<string, Map<string, V>>();
  private count = 0;
  constructor(
    readonly bound: number,
    readonly share: number = bound,
  ) {}

  get size(): number {
    return this.count;
  }

  /** The entries a namespace holds. */
  held(namespace: string): number {
    return this.namespaces.get(namespace)?.size ?? 0;
  }

  /** The value, now the namespace's most recently used. */
  get(namespace: string, key: string): V | undefined {
    const entries = this.namespaces.get(namespace);
    if (!entries?.has(key)) return undefined;
    const value = entries.get(key)!;
    entries.delete(key);
    entries.set(key, value);
    return value;
  }

  /** The value, its place left as it is. */
  peek(namespace: string, key: string): V | undefined {
    return this.namespaces.get(namespace)?.get(key);
  }

  has(namespace: string, key: string): boolean {
    return this.namespaces.get(namespace)?.has(key) ?? false;
  }

  /** Every key, namespace by namespace. */
  *keys(): IterableIterator<string> {
    for (const entries of this.namespaces.values()) yield* entries.keys();
  }

  /** Every key and value, namespace by namespace. */
  *entries(): IterableIterator<[string, V]> {
    for (const entries of this.namespaces.values()) yield* entries.entries();
  }

  set(namespace: string, key: string, value: V): void {
    this.delete(namespace, key);
    if (this.held(namespace) >= this.share) this.dropOldest(namespace);
    if (this.count >= this.bound) this.dropOldest(this.largest(namespace));
    let entries = this.namespaces.get(namespace);
    if (!entries) this.namespaces.set(namespace, (entries = new Map()));
    entries.set(key, value);
    this.count += 1;
  }

  delete(namespace: string, key: string): void {
    const entries = this.namespaces.get(namespace);
    if (!entries?.delete(key)) return;
    this.count -= 1;
    if (entries.size === 0) this.namespaces.delete(namespace);
  }

  /** The namespace that holds the most (`namespace` itself when it holds as many). */
  private largest(namespace: string): string {
    let largest = namespace;
    let most = this.held(namespace);
    for (const [name, entries] of this.namespaces)
      if (entries.size > most) {
        largest = name;
        most = entries.size;
      }
    return largest;
  }

  private dropOldest(namespace: string): void {
    const oldest = this.namespaces.get(namespace)?.keys().next();
    if (oldest && !oldest.done) this.delete(namespace, oldest.value);
  }
}
