// The largest S3 (fixtures/sizes.ts LargestCase).
import { MAX_TAGS } from '../../hooks/s3/schema.js';
import { MAX_TAG_KEY, MAX_TAG_VALUE } from '../../hooks/s3/policy.js';
import type { LargestCase } from '../fixtures/sizes.js';

export const largest: Record<string, LargestCase> = {
  s3: {
    spec: {
      bucketName: 'b'.repeat(63),
      region: 'us-east-1',
      versioning: true,
      encryption: { type: 'SSE-S3' },
      publicAccessBlock: {
        blockPublicAcls: true,
        ignorePublicAcls: true,
        blockPublicPolicy: true,
        restrictPublicBuckets: true,
      },
      // The longest tags AWS takes: keys of 128 characters, values of 256 (within the map's 24 KiB).
      tags: Object.fromEntries(
        Array.from({ length: MAX_TAGS }, (_, i) => [`${i}`.padStart(MAX_TAG_KEY, 'k'), 'v'.repeat(MAX_TAG_VALUE)]),
      ),
      deletionPolicy: 'Retain',
      forceDelete: false,
      secretName: 's'.repeat(253),
    },
  },
};
