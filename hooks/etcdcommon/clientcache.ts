// The etcd clients the hook server keeps between syncs (index.ts etcdClients), one per TLS identity of a namespace.
// The identity is the cluster's TLS.static.operatorSecret, which its tenant writes: any edit of its text is another
// identity. The cache is bounded over the server, and shared between namespaces so that no namespace's identities
// push another's clients (their TLS sessions and learned gateway prefixes) out.

import { NamespaceShares as Shares } from '../../lib/index.js';

/** The most clients kept over the whole server. */
export const MAX_ETCD_CLIENTS = 64;
/**
 * The most clients one namespace keeps: a quarter of the server's. A namespace's clusters with more identities than
 * this (certificates rotated, or a tenant editing its Secret) drop that namespace's least recently used first.
 */
export const MAX_ETCD_CLIENTS_PER_NAMESPACE = 16;

/** The clients kept (lib/shares.ts): least recently used first out, a namespace held to its share. */
export class NamespaceShares<V> extends Shares<V> {
  constructor(bound: number = MAX_ETCD_CLIENTS, share: number = MAX_ETCD_CLIENTS_PER_NAMESPACE) {
    super(bound, share);
  }
}
