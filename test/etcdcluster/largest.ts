// The largest EtcdCluster (fixtures/sizes.ts LargestCase), and the server settings that let it build every member.
import { MAX_SIZE as ETCD_MAX_SIZE } from '../../hooks/etcdcluster/schema.js';
import { blob, labelMap, list, longestImage, type LargestCase } from '../fixtures/sizes.js';

/**
 * The longest `spec.pod.clusterDomain` an EtcdCluster accepts (200 characters, DNS labels of 63) and the server
 * settings that allow it (METAOPS_ETCD_CLUSTER_DOMAINS): a domain the server does not allow builds nothing.
 */
export const LONGEST_DOMAIN = ['d'.repeat(63), 'd'.repeat(63), 'd'.repeat(63), 'd'.repeat(8)].join('.');

const etcdPod = {
  labels: labelMap(64, 63, 16 * 1024),
  annotations: labelMap(64, 400, 32 * 1024),
  nodeSelector: labelMap(64, 63, 16 * 1024),
  affinity: { nodeAffinity: blob(16 * 1024 - 17) },
  antiAffinity: true,
  resources: blob(4 * 1024),
  // Tolerations the API server takes (`operator: Exists` and no key: every taint), each as large as the list allows.
  tolerations: list(32, 1024, 16 * 1024).map((b) => ({
    operator: 'Exists',
    x: b['x']!.slice('"operator":"Exists",'.length),
  })),
  // 64 variables of ~510 bytes: `{"name":"E63","value":"..."}`.
  etcdEnv: Array.from({ length: 64 }, (_, i) => ({ name: `E${i}`.padEnd(3, '_'), value: 'v'.repeat(480) })),
  securityContext: blob(4 * 1024),
  // A claim spec the API server takes (an access mode, a storage request), filled up with a field it drops.
  persistentVolumeClaimSpec: {
    accessModes: ['ReadWriteOnce'],
    resources: { requests: { storage: '1Gi' } },
    ...blob(8 * 1024 - 92),
  },
  busyboxImage: longestImage('b'),
  DNSTimeoutInSecond: 86400,
  clusterDomain: LONGEST_DOMAIN,
  // etcd-operator's spelling of the same field: accepted beside it when both say the same.
  ClusterDomain: LONGEST_DOMAIN,
};

export const largest: Record<string, LargestCase> = {
  etcdcluster: {
    spec: {
      size: ETCD_MAX_SIZE,
      version: `3.5.17-${'a'.repeat(57)}`,
      // The longest repository name an image may have (255 as the kubelet reads it, registry included); its tag is
      // `v<version>`.
      repository: `h.i/${'r'.repeat(251)}`,
      paused: false,
      pod: etcdPod,
      // No TLS: its three Secret names (253 characters each) hold the pods until the Secrets are observed, and add
      // two volumes per pod when they are.
    },
    // Its tolerations (every taint) and its label and annotation keys (any prefix) are the server's to allow:
    // METAOPS_POD_TOLERATIONS=*, METAOPS_POD_METADATA_PREFIXES=* (lib/pod-policy.ts).
    settings: { allowedDomains: [LONGEST_DOMAIN], podTolerations: ['*'], podMetadataPrefixes: ['*'] },
    env: {
      METAOPS_ETCD_CLUSTER_DOMAINS: LONGEST_DOMAIN,
      METAOPS_POD_TOLERATIONS: '*',
      METAOPS_POD_METADATA_PREFIXES: '*',
    },
    // spec.pod.affinity is kept open by the CRD: the API server stores whatever it holds.
    grow: (spec, bytes) => {
      spec['pod'].affinity = { nodeAffinity: blob(bytes + 16 * 1024 - 17) };
    },
  },
};
