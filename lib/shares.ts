// Memories the hook server keeps between calls and shares between tenants (the etcd clients, the PodBuggerTool
// counts, author answers and injector runs): bounded over the whole server and shared fairly, so that one
// namespace's entries never push another's out while it holds more.

/**
 * Values by namespace and key, in order of last write (and of last use, for `get`), bounded per namespace (`share`)
 * and over all (`bound`): a new entry of a namespace at its share drops that namespace's oldest; past the bound over
 * all, the oldest of the namespace that holds the most (the new entry's own when it holds as many). With k
 * namespaces remembering, each keeps at least min(share, bound / k) of its own. The share and the bound count
 * entries, or, with `sizeOf`, what each entry weighs (its bytes, say): an entry heavier than the share is not kept.
 */
export class NamespaceShares<V> {
  private readonly namespaces = new Map<string, Map<string, V>>();
  /** What each namespace's entries weigh together (their number, without sizeOf). */
  private readonly weights = new Map<string, number>();
  private count = 0;
  private total = 0;
  constructor(
    readonly bound: number,
    readonly share: number = bound,
    private readonly sizeOf: (value: V) => number = () => 1,
  ) {}

  /** The entries held. */
  get size(): number {
    return this.count;
  }

  /** What the entries held weigh together (their number, without sizeOf). */
  get weight(): number {
    return this.total;
  }

  /** What a namespace's entries weigh (their number, without sizeOf). */
  held(namespace: string): number {
    return this.weights.get(namespace) ?? 0;
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
    const weight = this.sizeOf(value);
    if (weight > this.share || weight > this.bound) return;
    while (this.held(namespace) + weight > this.share) this.dropOldest(namespace);
    while (this.total + weight > this.bound) this.dropOldest(this.largest(namespace));
    let entries = this.namespaces.get(namespace);
    if (!entries) this.namespaces.set(namespace, (entries = new Map()));
    entries.set(key, value);
    this.weights.set(namespace, this.held(namespace) + weight);
    this.count += 1;
    this.total += weight;
  }

  delete(namespace: string, key: string): void {
    const entries = this.namespaces.get(namespace);
    if (!entries?.has(key)) return;
    const weight = this.sizeOf(entries.get(key)!);
    entries.delete(key);
    this.count -= 1;
    this.total -= weight;
    if (entries.size === 0) {
      this.namespaces.delete(namespace);
      this.weights.delete(namespace);
    } else this.weights.set(namespace, this.held(namespace) - weight);
  }

  /** The namespace that holds the most (`namespace` itself when it holds as many). */
  private largest(namespace: string): string {
    let largest = namespace;
    let most = this.held(namespace);
    for (const name of this.namespaces.keys())
      if (this.held(name) > most) {
        largest = name;
        most = this.held(name);
      }
    return largest;
  }

  private dropOldest(namespace: string): void {
    const oldest = this.namespaces.get(namespace)?.keys().next();
    if (oldest && !oldest.done) this.delete(namespace, oldest.value);
  }
}

/**
 * What a namespace may take now of a cap every namespace shares (the server's calls to etcd in flight, its Event
 * writes under way), up to `want`: never past its own `share`, and never more than leaves as much free as it then
 * holds (it holds at most half, rounded up, of what it holds and what is free). However the namespaces come, each
 * one that fills what it may leaves at least half of the room it found to the next: with a cap of 256 and shares of
 * 48, eleven namespaces are needed to take it all (48, 48, 48, 48, 32, 16, 8, 4, 2, 1, 1), and a namespace holding
 * none still finds 8 beside six that took all they could; with 64 and 8, 2 beside eight. A namespace alone takes its
 * whole share while the share is at most half the cap.
 */
export function fairTake(want: number, held: number, total: number, bound: number, share: number): number {
  const free = bound - total;
  const most = Math.min(share, Math.ceil((free + held) / 2));
  return Math.max(0, Math.min(want, most - held, free));
}
