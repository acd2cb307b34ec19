// What an EtcdCluster's spec names of its namespace for its members to take, beyond the TLS Secrets: a Secret's or a
// ConfigMap's value in the etcd container's environment (spec.pod.etcdEnv valueFrom), a claim or VolumeSnapshot
// copied into every member volume (spec.pod.persistentVolumeClaimSpec dataSource, dataSourceRef). Metacontroller makes
// the members with its own rights and the API server checks only that the pod's (or claim's) creator may create it,
// so whoever may create an EtcdCluster would read, with the spec's own image, what it may not read itself. Refused
// unless the server allows it (METAOPS_ETCD_ALLOW_REFERENCES, lib/config.ts); docs/etcdcluster.md "References".
import { ETCD_REFERENCES_ENV, isRecord } from '../../lib/index.js';

const WHY = `metaops cannot check that the EtcdCluster's author may read what it names (a cluster admin may allow such references with ${ETCD_REFERENCES_ENV}=true)`;

/**
 * The first field of the spec that names another object of the namespace for the members to take, as the InvalidSpec
 * message; undefined when there is none or the server allows references. The spec is untrusted: read by type.
 */
export function referenceProblem(spec: unknown, allowed: boolean | undefined): string | undefined {
  if (allowed) return undefined;
  const pod = isRecord(spec) && isRecord(spec['pod']) ? spec['pod'] : {};
  const env = Array.isArray(pod['etcdEnv']) ? (pod['etcdEnv'] as unknown[]) : [];
  for (const [i, entry] of env.entries()) {
    const from = isRecord(entry) ? entry['valueFrom'] : undefined;
    if (!isRecord(from)) continue;
    if (from['secretKeyRef'] !== undefined)
      return `spec.pod.etcdEnv[${i}].valueFrom.secretKeyRef is not allowed: it hands a Secret of the namespace to the members, which run the spec's image; ${WHY}`;
    if (from['configMapKeyRef'] !== undefined)
      return `spec.pod.etcdEnv[${i}].valueFrom.configMapKeyRef is not allowed: it hands a ConfigMap of the namespace to the members, which run the spec's image; ${WHY}`;
  }
  const claim = pod['persistentVolumeClaimSpec'];
  for (const field of ['dataSource', 'dataSourceRef'] as const) {
    if (isRecord(claim) && claim[field] !== undefined && claim[field] !== null)
      return `spec.pod.persistentVolumeClaimSpec.${field} is not allowed: it fills every member volume from a claim or snapshot of the namespace, mounted by the spec's image; ${WHY}`;
  }
  return undefined;
}
