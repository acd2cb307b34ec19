// The etcd clients the hook server keeps between syncs (index.ts etcdClients), one per TLS identity of a namespace.
// The identity is the cluster's TLS.static.operatorSecret, which its tenant writes: any edit of its text is another
// identity. The cache is bounded over the server, and shared between namespaces so that no namespace's identities
// push another's clients (their TLS sessions and learned gateway prefixes) out.

/** The most clients kept over the whole server. */
export const MAX_ETCD_CLIENTS = 64;
/**
 * The most clients one namespace keeps: a quarter of the server's. A namespace's clusters with more identities than
 * this (certificates rotated, or a tenant editing its Secret) drop that namespace's least recently used first.
 */
export const MAX_ETCD_CLIENTS_PER_NAMESPACE = 16;

/**
 * Values by namespace and key, in order of last use (a get refreshes), bounded per namespace and over all: a new
 * entry of a namespace at its share drops that namespace's least recently used; past the bound over all, the least
 * recently used of the namespace that holds the most (the new entry's own when it holds as many).
 */
export class NamespaceShares<V> {
  private readonly namespaces = new Map<string, Map<string, V>>();
  private count = 0;
  constructor(
    readonly bound: number = MAX_ETCD_CLIENTS,
    readonly share: number = MAX_ETCD_CLIENTS_PER_NAMESPACE,
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
