// The largest PodBuggerTool (fixtures/sizes.ts LargestCase): at its CRD bounds, and at its largest as Metacontroller
// sends it. Go's encoding/json writes `<` as `\u003c` (lib/go-json.ts): six bytes for one character, the most any
// character takes, so the strings a tenant writes freely (command, args, env names and values) are of `<`.
import { SPEC_BOUNDS as PBT } from '../../hooks/podbuggertool/schema.js';
import { longestLabelKey, type LargestCase } from '../fixtures/sizes.js';

/** The character that Go's encoding/json writes in the most bytes (six, `\u003c`; `>`, `&`, U+2028, U+2029 too). */
export const WORST_CHARACTER = '<';
const worst = (n: number) => WORST_CHARACTER.repeat(n);

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
      command: Array.from({ length: PBT.arguments.maxItems }, () => worst(PBT.arguments.maxLength)),
      args: Array.from({ length: PBT.arguments.maxItems }, () => worst(PBT.arguments.maxLength)),
      targetContainerName: 't'.repeat(63),
      env: Array.from({ length: PBT.env.maxItems }, (_, i) => ({
        // Distinct names (the API server refuses a container with two of one name), the rest of each of `<`.
        name: `E${i}`.padEnd(PBT.env.nameLength, WORST_CHARACTER),
        value: worst(PBT.env.valueLength),
      })),
      securityProfile: 'general',
    },
  },
};
