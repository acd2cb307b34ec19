// How many replicas of the hook server serve behind its one Service (METAOPS_REPLICAS): the caps a namespace has on
// its syncs waiting at once (EtcdCluster's TENANT_MAX_SYNCS, S3's S3_TENANT_MAX_SYNCS) are kept in each process's
// memory, and Metacontroller's five workers per controller reach every replica through the Service. Each replica
// allows a namespace max(1, floor(cap / replicas)) of them, so that the namespace holds at most `cap` workers over
// all the replicas when replicas ≤ cap, and one per replica beyond (docs/operating.md, "Metacontroller's workers").
// The Deployment and the Helm chart set it from the same value as `replicas`; unset, a server counts itself alone (1).

/** The setting: the number of the Deployment's replicas (the same value as its `replicas`). */
export const REPLICAS_ENV = 'METAOPS_REPLICAS';
/** The most METAOPS_REPLICAS may be. */
export const MAX_REPLICAS = 100;

/** METAOPS_REPLICAS as given (a whole number from 1 to MAX_REPLICAS), 1 when unset or wrong (config.ts refuses it). */
export function replicasOf(env: NodeJS.ProcessEnv): number {
  const text = env[REPLICAS_ENV]?.trim();
  if (text === undefined || !/^\d+$/.test(text)) return 1;
  const value = Number(text);
  return value >= 1 && value <= MAX_REPLICAS ? value : 1;
}

/** What one replica of `replicas` allows of a namespace's `cap` (syncs waiting at once): max(1, floor(cap / replicas)). */
export function perReplica(cap: number, replicas: number): number {
  return Math.max(1, Math.floor(cap / Math.max(1, replicas)));
}
