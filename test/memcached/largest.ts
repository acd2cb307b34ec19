// The largest Memcached (fixtures/sizes.ts LargestCase).
import { longestImage, type LargestCase } from '../fixtures/sizes.js';

export const largest: Record<string, LargestCase> = {
  memcached: { spec: { size: 1000, image: longestImage('m'), port: 11211 } },
};
