// The side effects hooks may use, passed in so that decisions stay pure and tests control them.
import { randomBytes } from 'node:crypto';
import { HttpEtcdClient, type EtcdClient, type TlsFiles } from '../hooks/etcdcluster/etcd.js';
import { SdkAwsApi, type AwsApi } from '../hooks/s3/aws.js';

export interface Deps {
  /** The clock, read once per hook call for condition timestamps. */
  now(): Date;
  /** A new random secret of this many bytes of entropy, URL-safe base64. */
  randomSecret(bytes: number): string;
  /** A client for etcd's member API, with the operator's TLS material when the cluster uses TLS. */
  etcdClient(tls?: TlsFiles): EtcdClient;
  /** AWS (S3 and IAM), from the SDK's standard credential chain; created on first use. */
  aws(): AwsApi;
}

export function defaultDeps(): Deps {
  let aws: AwsApi | undefined;
  return {
    now: () => new Date(),
    randomSecret: (bytes) => randomBytes(bytes).toString('base64url'),
    etcdClient: (tls) => new HttpEtcdClient(tls ? { tls } : {}),
    aws: () => (aws ??= new SdkAwsApi()),
  };
}
