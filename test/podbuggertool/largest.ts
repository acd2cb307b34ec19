// The largest PodBuggerTool (fixtures/sizes.ts LargestCase).
import { SPEC_BOUNDS as PBT } from '../../hooks/podbuggertool/schema.js';
import { longestLabelKey, type LargestCase } from '../fixtures/sizes.js';

export const largest: Record<string, LargestCase> = {
  podbuggertool: {
    spec: {
      // Keys a label can have (the hook refuses any other), at their longest: a 253-character prefix, a 63-character name.
      selector: {
        matchLabels: Object.fromEntries(Array.from({ length: 32 }, (_, i) => [longestLabelKey(i), 'v'.repeat(63)])),
        matchExpressions: Array.from({ length: PBT.matchExpressions.maxItems }, (_, i) => ({
          key: longestLabelKey(i),
          operator: 'In',
          values: Array.from({ length: PBT.matchExpressions.maxValues }, () => 'v'.repeat(63)),
        })),
      },
      image: 'busybox',
      command: Array.from({ length: PBT.arguments.maxItems }, () => 'c'.repeat(PBT.arguments.maxLength)),
      args: Array.from({ length: PBT.arguments.maxItems }, () => 'a'.repeat(PBT.arguments.maxLength)),
      targetContainerName: 't'.repeat(63),
      env: Array.from({ length: PBT.env.maxItems }, (_, i) => ({
        name: `E${i}`.padEnd(PBT.env.nameLength, 'E'),
        value: 'v'.repeat(PBT.env.valueLength),
      })),
      securityProfile: 'general',
    },
  },
};
