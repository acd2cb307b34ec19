// How many replicas of the hook server serve behind its one Service (METAOPS_REPLICAS): the caps a namespace has on
// its syncs waiting at once (EtcdCluster's TENANT_MAX_SYNCS, S3's S3_TENANT_MAX_SYNCS) are kept in each process's
// memory, and Metacontroller's five workers per controller reach every replica through the Service. Each replica
// allows a namespace max(1, floor(cap / replicas)) of them, so that the namespace holds at most `cap` workers over
// all the replicas. That holds only while replicas ≤ cap: a replica allows at least one (a replica that allowed none
// would refuse the namespace for good, its requests spread over the replicas by the Service), so with 3 replicas a
// namespace held 3 workers, with 5 all 5 of a controller's. A replica count above the smallest cap (2) is refused: the
// server does not start (lib/config.ts), the chart does not render (scripts/render-chart.ts), saying why
// (docs/operating.md, "Metacontroller's workers"). The Deployment and the Helm chart set it from the same value as
// `replicas`; unset, a server counts itself alone (1).

/** The setting: the number of the Deployment's replicas (the same value as its `replicas`). */
export const REPLICAS_ENV = 'METAOPS_REPLICAS';
/**
 * The smallest of the caps an operator keeps per namespace on its hook calls waiting at once (EtcdCluster's
 * TENANT_MAX_SYNCS, S3's S3_TENANT_MAX_SYNCS: 2 each; test/lib checks it against both).
 */
export const SMALLEST_NAMESPACE_CAP = 2;
/**
 * The most METAOPS_REPLICAS may be: the smallest cap, the most replicas over which every cap holds (each replica
 * allows at least one of a namespace's calls, so `replicas` replicas allow at least `replicas`).
 */
export const MAX_REPLICAS = SMALLEST_NAMESPACE_CAP;

/** Why a replica count above MAX_REPLICAS is refused (the server's and the chart's words). */
export const REPLICAS_WHY = `each replica counts a namespace's hook calls waiting at once in its own memory and allows it at least one, so over more than ${MAX_REPLICAS} replicas a namespace would hold more than the ${SMALLEST_NAMESPACE_CAP} of Metacontroller's workers its share allows (docs/operating.md, "Metacontroller's workers")`;

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
