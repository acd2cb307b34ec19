// The largest PodBuggerTool (fixtures/sizes.ts LargestCase): at its CRD bounds, and at its largest as Metacontroller
// sends it. Go's encoding/json writes `<` as `\u003c` (lib/go-json.ts): six bytes for one character, the most any
// character takes, so the strings a tenant writes freely (command, args, env names and values) are of `<`. With the
// server settings that let it act (its image on the allowlist), so that it is answered on the path that builds its
// ephemeral container, not refused before it (ImageNotAllowed, ProfileNotAllowed).
import { DEFAULT_POLICY, type DebugPolicy } from '../../hooks/podbuggertool/match.js';
import { SPEC_BOUNDS as PBT } from '../../hooks/podbuggertool/schema.js';
import { longestImage, longestLabelKey, type LargestCase } from '../fixtures/sizes.js';

/** The character that Go's encoding/json writes in the most bytes (six, `\u003c`; `>`, `&`, U+2028, U+2029 too). */
export const WORST_CHARACTER = '<';
const worst = (n: number) => WORST_CHARACTER.repeat(n);

/** The longest image a tool may name (fixtures/sizes.ts longestImage). */
export const IMAGE = longestImage('i');
/** The server's debug policy that lets the largest tool act: its image allowed, the author check off (below). */
const policy: DebugPolicy = { ...DEFAULT_POLICY, allowlist: [IMAGE], authorCheck: 'off' };

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
      // The longest image reference (MAX_IMAGE_LENGTH), on the server's allowlist.
      image: IMAGE,
      command: Array.from({ length: PBT.arguments.maxItems }, () => worst(PBT.arguments.maxLength)),
      args: Array.from({ length: PBT.arguments.maxItems }, () => worst(PBT.arguments.maxLength)),
      targetContainerName: 't'.repeat(63),
      env: Array.from({ length: PBT.env.maxItems }, (_, i) => ({
        // Distinct names (the API server refuses a container with two of one name), the rest of each of `<`.
        name: `E${i}`.padEnd(PBT.env.nameLength, WORST_CHARACTER),
        value: worst(PBT.env.valueLength),
      })),
      // The profile that writes the most into the container's securityContext (runAsNonRoot, no privilege
      // escalation, every capability dropped, RuntimeDefault seccomp), with the largest user ID: one the server
      // allows by default.
      securityProfile: 'restricted',
      runAsUser: 2147483647,
    },
    settings: { policy },
    env: {
      METAOPS_DEBUG_IMAGE_ALLOWLIST: IMAGE,
      // The author's permission, which a SubjectAccessReview to the API server decides (hooks/podbuggertool/author.ts):
      // there is no API server where the memory is measured. Off, the tool acts as an author allowed everywhere
      // would; the review's own size does not grow with the spec.
      METAOPS_DEBUG_AUTHOR_CHECK: 'off',
    },
  },
};
