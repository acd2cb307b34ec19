// The largest PodSet (fixtures/sizes.ts LargestCase).
import { longestImage, type LargestCase } from '../fixtures/sizes.js';

export const largest: Record<string, LargestCase> = {
  // The most a PodSet may answer (its budget, not its schema, is the bound): 1000 pods of the default command.
  podset: { spec: { size: 1000, image: longestImage('p'), command: ['sleep', '3600'] } },
};
