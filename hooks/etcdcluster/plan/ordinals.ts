// The ordinals new members take. Member names are `<cluster>-<ordinal>` and ordinals only grow; a name need only be
// new, so new members skip the ordinals whose names another owner holds (a PodSet made later holds `<cluster>-<n>`
// for a member not made yet) rather than wait, held, for them: among those the customize answer in use asked for
// (Observation.ordinals, names.ts memberOrdinals; a name it did not ask for is not checked, so not free).
import type { Observation } from './types.js';

type Taken = NonNullable<Observation['ordinals']>['taken'][number];

/**
 * The first of `count` consecutive ordinals above `last` none of whose names another owner holds, all asked for (a
 * new member: 1; a restore's members, started together: its size, consecutive as a bootstrap's, identity.ts), and
 * the taken ordinals skipped below it. `last + 1` (nothing skipped) when no such run is asked for, or nothing is known
 * of the names (then a taken name holds the cluster, as before: sync.ts heldForNames).
 */
export function freeRun(obs: Observation, last: number, count: number): { first: number; skipped: Taken[] } {
  const first = last + 1;
  const known = obs.ordinals;
  if (!known || count < 1) return { first, skipped: [] };
  const taken = new Set(known.taken.map((t) => t.ordinal));
  for (let start = first; start + count - 1 <= known.askedUpTo; start++) {
    let blocked = -1;
    for (let i = start; i < start + count; i++) if (taken.has(i)) blocked = i;
    if (blocked < 0)
      return { first: start, skipped: known.taken.filter((t) => t.ordinal >= first && t.ordinal < start) };
    start = blocked;
  }
  return { first, skipped: [] };
}

/** The names of the skipped ordinals and their holders, in words (at most three listed). */
export function skippedText(skipped: readonly Taken[]): string | undefined {
  if (skipped.length === 0) return undefined;
  const listed = skipped
    .slice(0, 3)
    .map((t) => `${t.name} belongs to ${t.holder}`)
    .join('; ');
  const more = skipped.length > 3 ? ` (and ${skipped.length - 3} more)` : '';
  return `skipped ${skipped.length} member name(s) another owner holds: ${listed}${more}`;
}

/** The taken names among `count` ordinals from `first` (what holds a run that found no free one). */
export function takenFrom(obs: Observation, first: number, count: number): Taken[] {
  return (obs.ordinals?.taken ?? []).filter((t) => t.ordinal >= first && t.ordinal < first + count);
}
