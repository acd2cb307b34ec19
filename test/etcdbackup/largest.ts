// The largest EtcdBackup and EtcdRestore (fixtures/sizes.ts LargestCase), and the server settings that let them run:
// each is answered on the path that builds its work (the backup's Job or CronJob; the restore's record, which the
// EtcdCluster hook acts on), not refused by the tenancy rules (issue 29.6, hooks/etcdcommon/tenancy.ts) before it.
import { S3_ENDPOINTS_ENV, ETCD_ENDPOINTS_ENV, tenancyFromEnv } from '../../hooks/etcdcommon/tenancy.js';
import { MAX_NAME_LENGTH } from '../../lib/schemas.js';
import { LONGEST_NAMESPACE, type LargestCase } from '../fixtures/sizes.js';

/** An etcd endpoint of 512 characters (the CRD's maxLength), on the client port. */
const etcdEndpoint = (i: number) => `https://${'e'.repeat(490)}${i}.example:2379`;
/** An S3 endpoint of 512 characters (the CRD's maxLength). */
const S3_ENDPOINT = `https://${'e'.repeat(512 - 'https://'.length - '.example'.length)}.example`;
/**
 * An S3 path of 1088 characters (the CRD's maxLength): a bucket name of 63, a key of 1024 under the namespace's own
 * prefix (the hook refuses a key outside it).
 */
const PATH = `${'b'.repeat(63)}/${LONGEST_NAMESPACE}/${'k'.repeat(1024 - LONGEST_NAMESPACE.length - 1)}`;

/**
 * The endpoints are the server's to allow (METAOPS_BACKUP_S3_ENDPOINTS, METAOPS_BACKUP_ETCD_ENDPOINTS): an endpoint
 * on no allowlist is refused (NotAllowed) before any child is built. Allowed for every namespace here.
 */
const env = {
  [S3_ENDPOINTS_ENV]: S3_ENDPOINT,
  [ETCD_ENDPOINTS_ENV]: Array.from({ length: 9 }, (_, i) => etcdEndpoint(i)).join(','),
};
const settings = { backup: tenancyFromEnv(env) };

export const largest: Record<string, LargestCase> = {
  etcdbackup: {
    spec: {
      etcdEndpoints: Array.from({ length: 9 }, (_, i) => etcdEndpoint(i)),
      storageType: 'S3',
      backupPolicy: { timeoutInSecond: 3600, backupIntervalInSecond: 3600, maxBackups: 1000 },
      s3: { path: PATH, awsSecret: 'a'.repeat(253), endpoint: S3_ENDPOINT, forcePathStyle: true },
      clientTLSSecret: 'c'.repeat(253),
    },
    settings,
    env,
  },
  etcdrestore: {
    spec: {
      etcdCluster: { name: 'c'.repeat(MAX_NAME_LENGTH) },
      backupStorageType: 'S3',
      s3: { path: PATH, awsSecret: 'a'.repeat(253), endpoint: S3_ENDPOINT },
    },
    settings,
    env,
  },
};
