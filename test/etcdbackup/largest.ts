// The largest EtcdBackup and EtcdRestore (fixtures/sizes.ts LargestCase).
import type { LargestCase } from '../fixtures/sizes.js';

export const largest: Record<string, LargestCase> = {
  etcdbackup: {
    spec: {
      etcdEndpoints: Array.from({ length: 9 }, (_, i) => `https://${'e'.repeat(490)}${i}.example:2379`),
      storageType: 'S3',
      backupPolicy: { timeoutInSecond: 3600, backupIntervalInSecond: 3600, maxBackups: 1000 },
      s3: {
        path: `${'b'.repeat(63)}/${'k'.repeat(1024)}`,
        awsSecret: 'a'.repeat(253),
        endpoint: `https://${'e'.repeat(490)}.example`,
        forcePathStyle: true,
      },
      clientTLSSecret: 'c'.repeat(253),
    },
  },
  etcdrestore: {
    spec: {
      etcdCluster: { name: 'c'.repeat(63) },
      backupStorageType: 'S3',
      s3: {
        path: `${'b'.repeat(63)}/${'k'.repeat(1024)}`,
        awsSecret: 'a'.repeat(253),
        endpoint: `https://${'e'.repeat(490)}.example`,
      },
    },
  },
};
