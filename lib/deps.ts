// The side effects hooks may use, passed in so that decisions stay pure and tests control them.
import { randomBytes } from 'node:crypto';
import { HttpEtcdClient, type EtcdClient, type TlsFiles } from '../hooks/etcdcluster/etcd.js';

export interface Deps {
  /** The clock, read once per hook call for condition timestamps. */
  now(): Date;
  /** A new random secret of this many bytes of entropy, URL-safe base64. */
  randomSecret(bytes: number): string;
  /** A client for etcd's member API, with the operator's TLS material when the cluster uses TLS. */
  etcdClient(tls?: TlsFiles): EtcdClient;
}

export function defaultDeps(): Deps {
  return {
    now: () => new Date(),
    randomSecret: (bytes) => randomBytes(bytes).toString('base64url'),
    etcdClient: (tls) => new HttpEtcdClient(tls ? { tls } : {}),
  };
}
