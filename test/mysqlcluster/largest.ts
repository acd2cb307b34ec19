// The largest MySQLCluster (fixtures/sizes.ts LargestCase).
import type { LargestCase } from '../fixtures/sizes.js';

export const largest: Record<string, LargestCase> = {
  mysqlcluster: {
    spec: {
      size: 9,
      // The longest version the CRD takes (hooks/mysqlcluster/schema.ts: VERSION_PATTERN, 18 characters).
      version: '999.999.999-debian',
      // The most digits a quantity may have (lib/values.ts).
      storage: { size: `${'9'.repeat(18)}Gi`, storageClassName: 'c'.repeat(253) },
    },
    // A named class is made only once its StorageClass is seen (lib/storage-class.ts), or where the server allows
    // static binding: the answer's size is the same either way.
    settings: { allowStaticVolumes: true },
    env: { METAOPS_ALLOW_STATIC_VOLUMES: 'true' },
  },
};
