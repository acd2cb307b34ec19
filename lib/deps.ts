// The side effects hooks may use, passed in so that decisions stay pure and tests control them.
import { hash, randomBytes } from 'node:crypto';
import { HttpEtcdClient, type EtcdClient, type TlsFiles } from '../hooks/etcdcluster/etcd.js';
import { DEFAULT_IMAGE } from '../hooks/etcdbackup/sync.js';
import { policyFromEnv, type DebugPolicy } from '../hooks/podbuggertool/match.js';
import type { AwsApi } from '../hooks/s3/api.js';
import { KubeEventRecorder, type EventRecorder } from './events.js';
import { HttpKubeApi, type KubeApi } from './kube.js';

export interface Deps {
  /** The clock, read once per hook call for condition timestamps. */
  now(): Date;
  /** A new random secret of this many bytes of entropy, URL-safe base64. */
  randomSecret(bytes: number): string;
  /** A client for etcd's member API, with the operator's TLS material when the cluster uses TLS. */
  etcdClient(tls?: TlsFiles): EtcdClient;
  /**
   * AWS (S3 and IAM), from the SDK's standard credential chain; created on first use. The SDK is loaded only
   * then, so a server that serves no S3 resource never pays its memory.
   */
  aws(): Promise<AwsApi>;
  /** The Kubernetes API, for what Metacontroller cannot write (ephemeral containers); created on first use. */
  kube(): KubeApi;
  /**
   * Where hooks record Events (lib/events.ts), through kube(). An unauthenticated call gets one that records
   * nothing (lib/app.ts).
   */
  events(): EventRecorder;
  /** What PodBuggerTools may do: images, security profiles, namespaces (METAOPS_DEBUG_*). */
  debugPolicy: DebugPolicy;
  /** This project's image (METAOPS_IMAGE), for the children that run `metaops` commands (backups, restores). */
  image: string;
}

const MAX_ETCD_CLIENTS = 64;

export function defaultDeps(): Deps {
  let aws: Promise<AwsApi> | undefined;
  let kube: KubeApi | undefined;
  let events: EventRecorder | undefined;
  // One client per TLS identity, kept for the life of the server: it remembers which gateway prefix each
  // endpoint serves (/v3alpha for the default 3.2.13), which would otherwise cost two extra calls every sync.
  const etcdClients = new Map<string, EtcdClient>();
  return {
    now: () => new Date(),
    randomSecret: (bytes) => randomBytes(bytes).toString('base64url'),
    etcdClient: (tls) => {
      const key = tls ? hash('sha256', JSON.stringify([tls.ca ?? '', tls.cert ?? '', tls.key ?? ''])) : '';
      let client = etcdClients.get(key);
      if (!client) {
        // Rotated certificates leave old identities behind: keep the most recent few.
        if (etcdClients.size >= MAX_ETCD_CLIENTS) etcdClients.delete(etcdClients.keys().next().value!);
        etcdClients.set(key, (client = new HttpEtcdClient(tls ? { tls } : {})));
      }
      return client;
    },
    aws: () => (aws ??= import('../hooks/s3/aws.js').then((m) => new m.SdkAwsApi())),
    kube: () => (kube ??= new HttpKubeApi()),
    events: () => (events ??= new KubeEventRecorder(() => (kube ??= new HttpKubeApi()))),
    debugPolicy: policyFromEnv(process.env),
    image: process.env['METAOPS_IMAGE'] ?? DEFAULT_IMAGE,
  };
}
