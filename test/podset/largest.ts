// The largest PodSet (fixtures/sizes.ts LargestCase).
import { longestImage, type LargestCase } from '../fixtures/sizes.js';

export const largest: Record<string, LargestCase> = {
  // The most a PodSet may answer (its budgets, not its schema, are the bound): pods of the longest image and the
  // default command, as many as the sync requests' bound takes with the longest names (each pod comes back in every
  // sync twice over, with Metacontroller's last-applied copy of it, beside 2 MiB for the namespace's NetworkPolicies:
  // hooks/podset/sync.ts answerBudget.request; 1000 such pods would be ~10.3 MiB of requests, 700 are ~7.9 MiB).
  podset: { spec: { size: 700, image: longestImage('p'), command: ['sleep', '3600'] } },
};
