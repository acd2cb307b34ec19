// The hook server's memories shared by every namespace (counts at rest, the author answers, the injector's runs):
// bounded over the whole server and shared fairly, so that one namespace's objects never push out another's.

import { NamespaceShares } from '../../lib/index.js';
import { parseJson } from '../../lib/index.js';

/**
 * Entries each memory of this kind keeps over every namespace, unless it says otherwise. Past it, an entry of the
 * namespace that holds the most is dropped (its oldest): one namespace's entries never push out another's while they
 * hold more, so with k namespaces remembering, each keeps at least MAX_REMEMBERED / k of its own.
 */
export const MAX_REMEMBERED = 1000;

/** The namespace of a key written as JSON with the namespace first ([namespace, ...]); '' for any other key. */
export function namespaceOfKey(key: string): string {
  try {
    const parsed: unknown = parseJson(key);
    return Array.isArray(parsed) && typeof parsed[0] === 'string' ? parsed[0] : '';
  } catch {
    return '';
  }
}

/**
 * Entries by key, in order of their last write, bounded by `bound` over all namespaces and shared fairly: a new
 * entry past the bound drops the oldest of the namespace holding the most (its own, when it holds as many).
 * `namespaceOf` reads a key's namespace (by default the first item of a JSON array). The bound counts entries, or,
 * with `sizeOf`, what they weigh (their bytes, say).
 */
export class SharedMemory<V> {
  private readonly shares: NamespaceShares<V>;
  constructor(
    readonly bound: number = MAX_REMEMBERED,
    private readonly namespaceOf: (key: string) => string = namespaceOfKey,
    sizeOf?: (value: V) => number,
  ) {
    this.shares = new NamespaceShares<V>(bound, bound, sizeOf);
  }

  /** The entries held. */
  get size(): number {
    return this.shares.size;
  }

  /** What the entries held weigh together (their number, without sizeOf). */
  get weight(): number {
    return this.shares.weight;
  }

  /** What a namespace's entries weigh (their number, without sizeOf). */
  held(namespace: string): number {
    return this.shares.held(namespace);
  }

  get(key: string): V | undefined {
    return this.shares.peek(this.namespaceOf(key), key);
  }

  has(key: string): boolean {
    return this.shares.has(this.namespaceOf(key), key);
  }

  /** Every key, namespace by namespace. */
  keys(): IterableIterator<string> {
    return this.shares.keys();
  }

  /** Every key and value, namespace by namespace. */
  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.shares.entries();
  }

  set(key: string, value: V): void {
    this.shares.set(this.namespaceOf(key), key, value);
  }

  delete(key: string): void {
    this.shares.delete(this.namespaceOf(key), key);
  }
}
