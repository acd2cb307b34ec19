// The records a held parent keeps in its status (status.heldBy): their shape and their reading. A module of its own,
// importing nothing of lib/, so that lib/events.ts can read them without an import cycle (lib/ownership.ts imports
// lib/hook.ts, which imports lib/events.ts); lib/ownership.ts re-exports all of it.
import type { ParentObject } from './metacontroller.js';

/** A child's name and kind. */
export interface ChildName {
  apiVersion: string;
  kind: string;
  name: string;
}

/** A controller reference, complete: who holds a name. */
export interface HolderRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
}

/**
 * What a held parent remembers in its status (`status.heldBy`, heldBySchema): each taken name and who held it. A
 * name that is free for a moment (its object deleted, by hand or by a clean-up) is still the holder's while the
 * holder exists and wants it: the holder makes it again, and a parent that took it meanwhile would serve the
 * holder's clients (and the holder would be the one held). At most LISTED records.
 */
export interface HeldRecord {
  child: ChildName;
  holder: HolderRef;
  /**
   * The name free and the holder not among the related objects since this time (RFC 3339): held until
   * HOLDER_UNSEEN_SECONDS after it, unless the holder is seen (HolderJudge.askedFor tells when "not sent" is "gone").
   */
  unseenSince?: string;
  /**
   * The parent, created before this one, that wants names this one wants, and to which this one yields: it never
   * served (HeldOptions.served), so it releases every child that parent wants (heldForTakenNames). The older parent
   * reads it here: while its younger holder says so, it waits (`NameReleasing`) instead of being held for good.
   */
  yieldsTo?: HolderRef;
}

/** The status field of the records (HeldRecord). */
export const HELD_BY = 'heldBy';

/** The longest string a record keeps (a Kubernetes name). */
export const NAME_MAX = 253;

/** Records kept and read, at most (lib/ownership.ts LISTED: the names a condition message lists). */
const HELD_LISTED = 3;

/** The records of the parent's status (observed data: an entry that is not a complete record is ignored). */
export function heldRecordsOf(parent: ParentObject): HeldRecord[] {
  return heldRecordsIn(parent.status);
}

/** The records of a status (an answer's, or a parent's: heldRecordsOf). */
export function heldRecordsIn(status: unknown): HeldRecord[] {
  const list = (status as Record<string, unknown> | null | undefined)?.[HELD_BY];
  if (!Array.isArray(list)) return [];
  const ok = (v: unknown): v is string => typeof v === 'string' && v !== '' && v.length <= NAME_MAX;
  return (list as unknown[])
    .filter((r): r is HeldRecord => {
      const c = (r as Partial<HeldRecord> | null)?.child;
      const h = (r as Partial<HeldRecord> | null)?.holder;
      return (
        !!c &&
        !!h &&
        ok(c.apiVersion) &&
        ok(c.kind) &&
        ok(c.name) &&
        ok(h.apiVersion) &&
        ok(h.kind) &&
        ok(h.name) &&
        ok(h.uid)
      );
    })
    .slice(0, HELD_LISTED)
    .map((r) => {
      const record: HeldRecord = {
        child: { apiVersion: r.child.apiVersion, kind: r.child.kind, name: r.child.name },
        holder: { apiVersion: r.holder.apiVersion, kind: r.holder.kind, name: r.holder.name, uid: r.holder.uid },
      };
      const since = unseenTime(r.unseenSince);
      if (since !== undefined) record.unseenSince = since;
      const y = (r as { yieldsTo?: Partial<HolderRef> | null }).yieldsTo;
      if (y && ok(y.apiVersion) && ok(y.kind) && ok(y.name) && ok(y.uid))
        record.yieldsTo = { apiVersion: y.apiVersion, kind: y.kind, name: y.name, uid: y.uid };
      return record;
    });
}

/** A recorded unseen time, when it is one (RFC 3339, as this module writes it; observed data). */
function unseenTime(v: unknown): string | undefined {
  if (typeof v !== 'string' || v.length > 40 || !/^\d{4}-\d{2}-\d{2}T[0-9:.]+Z$/.test(v)) return undefined;
  return Number.isFinite(Date.parse(v)) ? v : undefined;
}
