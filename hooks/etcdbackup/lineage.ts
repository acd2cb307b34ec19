// Which snapshots a periodic backup may prune: only those of its own lineage. A lineage is the run of
// snapshots one EtcdBackup (its UID) took of one etcd cluster (the cluster ID etcd reports) while the revision
// only grew. Each snapshot records its lineage in its S3 object metadata; pruning reads it back and deletes nothing
// else: not another EtcdBackup's snapshots on the same path, not those of a cluster since lost and recreated under
// the same name (a new cluster ID), not those taken before the revision went backwards (a cluster rebuilt with the
// same identity, a rollback), nor any object whose metadata it could not read. Pure: backup.ts does the S3 calls.
import { rfc3339 } from '../../lib/index.js';
import { PERIODIC_SUFFIX } from '../etcdcommon/index.js';

/** The S3 user metadata of a snapshot (lower case: S3 gives metadata keys back in lower case). */
export const META = {
  /** The EtcdBackup that wrote it: its UID, and `<namespace>/<name>` for people. */
  uid: 'metaops-backup-uid',
  backup: 'metaops-backup',
  /** The etcd cluster ID (hex, as etcdctl prints it), revision and version at the snapshot. */
  cluster: 'etcd-cluster-id',
  revision: 'etcd-revision',
  version: 'etcd-version',
  /** When the lineage began: the stamp of its first snapshot. */
  since: 'metaops-lineage-since',
  /**
   * The earliest stamp of the lineage's snapshots up to this one (stamps are the clocks of the nodes the Jobs ran on:
   * one that ran behind stamps a snapshot before the lineage's `since`, one that ran ahead stamps `since` itself late).
   * Pruning reads the snapshots stamped from it on (pruneLineage). Recorded only when before `since`.
   */
  floor: 'metaops-lineage-floor',
  /** When the snapshot was taken (RFC 3339). */
  taken: 'metaops-taken',
  /**
   * etcd's HashKV at the snapshot's revision (its key-value history up to it) and the compact revision it counts
   * from: what etcd can prove later, if it still holds that history (lineage.ts, HistoryCheck).
   */
  hash: 'etcd-hashkv',
  compact: 'etcd-compact-revision',
  /**
   * Keys etcd held at the snapshot's revision, as the next backup can still find them after any compaction
   * (WitnessKey, encodeWitnesses): the proof of the same history once etcd compacted past the snapshot's revision.
   */
  witness: 'etcd-witness-keys',
  /**
   * The revision above which every key etcd held at the snapshot's revision is among those recorded (the newest
   * modified): a key found later with a modification between it and the snapshot's revision that is not recorded
   * was written by another history.
   */
  window: 'etcd-witness-above',
  /**
   * The alarms etcd held when the snapshot was taken (`CORRUPT`, `NOSPACE`, comma-separated; absent: none), read just
   * before it and again once it streamed (backup.ts AlarmReads: a snapshot written in parts records the first read):
   * a snapshot of a cluster etcd calls corrupt may hold the disagreeing member's data.
   */
  alarms: 'etcd-alarms',
} as const;

/** The identity of a lineage: one EtcdBackup, one etcd cluster, since a date (a stamp as in the key). */
export interface Lineage {
  uid: string;
  clusterId: string;
  since: string;
}

/** A periodic snapshot under a path: its key, the stamp and revision its name carries, its metadata once read. */
export interface Snapshot {
  key: string;
  stamp: string;
  revision: number;
  /** Its metadata: undefined while not read, null when it could not be read (the snapshot then counts as no one's). */
  meta?: Record<string, string> | null;
  /** Its metadata could not be read (an error other than the object being gone): it is kept, and that is said. */
  unreadable?: boolean;
}

/** The date of a key, as periodicKey writes it: RFC 3339 with `-` for `:`. */
export function stampOf(date: Date): string {
  return rfc3339(date).replace(/:/g, '-');
}

/** A stamp back as an RFC 3339 date (for comparison with Kubernetes timestamps). */
export function dateOfStamp(stamp: string): string {
  const m = /^(\d{4}-\d{2}-\d{2}T)(\d{2})-(\d{2})-(\d{2})Z$/.exec(stamp);
  return m ? `${m[1]}${m[2]}:${m[3]}:${m[4]}Z` : '';
}

/** What periodicKey appends to the path's key: `_v<revision>_<stamp>`, nothing else. */
const PERIODIC = new RegExp(`^${PERIODIC_SUFFIX.source}`);

/** A periodic snapshot of `base`, or undefined for any other key under the same prefix (`base_v2`, `base.old`). */
export function periodicSnapshot(base: string, key: string): Snapshot | undefined {
  if (!key.startsWith(base)) return undefined;
  const m = PERIODIC.exec(key.slice(base.length));
  return m ? { key, revision: Number(m[1]), stamp: m[2]! } : undefined;
}

/**
 * Newest first by the stamp in the name (the clock of the node the Job ran on), then the higher revision: the order of
 * the listing, to read metadata in. It says which snapshot is newer only within a clock: never the order pruning or the
 * lineage rests on (highestFirst, previousOf).
 */
export function newestFirst(a: Snapshot, b: Snapshot): number {
  if (a.stamp !== b.stamp) return a.stamp < b.stamp ? 1 : -1;
  return b.revision - a.revision;
}

/**
 * Within one lineage the revision only grows (mayContinue): the highest revision first, which no clock orders; the
 * stamp only between equal revisions (the same data).
 */
export function highestFirst(a: Snapshot, b: Snapshot): number {
  return a.revision !== b.revision ? b.revision - a.revision : newestFirst(a, b);
}

/**
 * The snapshot this EtcdBackup took last, among `examined` (newest first by stamp, metadata read), for a run whose
 * clock stamps `now`: the lineage of its newest snapshot not stamped ahead of `now` (one ahead was stamped by a node
 * whose clock ran ahead, and is evidence of nothing: a lineage ended long ago would stay "the last" until real time
 * passed it), else, when every one is ahead (this run's clock is behind), of the newest; and of that lineage the
 * snapshot at the highest revision (one stamped ahead included: the revision, not a clock, says which came last).
 */
export function previousOf(examined: readonly Snapshot[], uid: string, now: string): Snapshot | undefined {
  const own = examined.filter((s) => s.meta?.[META.uid] === uid);
  const anchor = own.find((s) => s.stamp <= now) ?? own[0];
  const lineage = lineageOf(anchor?.meta);
  if (!anchor || !lineage) return anchor;
  return own.filter((s) => sameLineage(lineageOf(s.meta), lineage)).sort(highestFirst)[0];
}

/**
 * The earliest stamp a lineage's snapshots carry, recorded with a new snapshot at `stamp` of `lineage`: the lineage's
 * start, what the snapshot before it in the lineage recorded (and its own stamp), and its own stamp.
 */
export function floorOf(lineage: Lineage, stamp: string, previous?: Snapshot): string {
  const stamps = [lineage.since, stamp];
  if (previous && sameLineage(lineageOf(previous.meta), lineage)) {
    stamps.push(previous.stamp);
    const recorded = previous.meta?.[META.floor];
    if (recorded && dateOfStamp(recorded)) stamps.push(recorded);
  }
  return stamps.filter((s) => dateOfStamp(s)).sort()[0] ?? stamp;
}

/** The lineage a snapshot's metadata records, if it records one whole. */
export function lineageOf(meta: Record<string, string> | null | undefined): Lineage | undefined {
  const uid = meta?.[META.uid];
  const clusterId = meta?.[META.cluster];
  const since = meta?.[META.since];
  return uid && clusterId && since ? { uid, clusterId, since } : undefined;
}

export function sameLineage(a: Lineage | undefined, b: Lineage): boolean {
  return a !== undefined && a.uid === b.uid && a.clusterId === b.clusterId && a.since === b.since;
}

/**
 * What etcd says now of the history up to the previous snapshot's revision, against what that snapshot recorded
 * (META.hash at the same compact revision): the same history ('same'), another ('differs': the cluster was rebuilt
 * with its identity, its revision grown again), or no proof either way ('unproven', why: etcd compacted since, has
 * no HashKV before 3.3, did not answer; or the snapshot recorded no hash, taken by an older metaops).
 */
export type HistoryCheck = { state: 'same' } | { state: 'differs' } | { state: 'unproven'; why: string };

/** etcd's HashKV answer at a revision, as recorded (decimal strings). */
export interface KvHash {
  hash: string;
  compact: string;
}

/** Compares the hash recorded with a snapshot with etcd's answer now at the same revision (or why there is none). */
export function compareHistory(
  recorded: Record<string, string> | null | undefined,
  now: KvHash | string,
): HistoryCheck {
  const hash = recorded?.[META.hash];
  const compact = recorded?.[META.compact];
  if (!hash || !compact)
    return { state: 'unproven', why: 'the snapshot before records no HashKV (an older metaops, or etcd before 3.3)' };
  if (typeof now === 'string') return { state: 'unproven', why: now };
  if (now.compact !== compact)
    return {
      state: 'unproven',
      why: `etcd compacted its history since (compact revision ${compact} then, ${now.compact} now): the hashes cannot be compared`,
    };
  return now.hash === hash ? { state: 'same' } : { state: 'differs' };
}

/**
 * A key etcd held at a snapshot's revision R, as recorded with it: the revision that created it (its generation),
 * its last modification and version at R, and the first 12 hex of the sha256 of its name and of its value. A
 * compaction keeps the newest version of every live key, so after any compaction the same history still holds each
 * such key either unchanged (the same modification, version and value) or modified after R (the same creation, a
 * higher version); another history (a cluster rebuilt with its identity, a rollback grown past R) holds it at
 * another creation, or with a modification at or before R that is not the one recorded.
 */
export interface WitnessKey {
  create: number;
  mod: number;
  version: number;
  key: string;
  value: string;
}

/** A key as etcd gives it back now (its value's digest only where it was read: unchanged since). */
export type FoundKey = WitnessKey;

/** The most keys recorded with a snapshot (S3 user metadata holds 2 KB in all). */
export const MAX_WITNESSES = 8;
const WITNESS = /^(\d{1,19})\.(\d{1,19})\.(\d{1,19})\.([0-9a-f]{12})\.([0-9a-f]{12})$/;

export function encodeWitnesses(keys: readonly WitnessKey[]): string {
  return keys
    .slice(0, MAX_WITNESSES)
    .map((k) => `${k.create}.${k.mod}.${k.version}.${k.key}.${k.value}`)
    .join(',');
}

/** The keys a snapshot's metadata records; none when it records none or anything malformed. */
export function parseWitnesses(text: string | undefined): WitnessKey[] {
  if (!text) return [];
  const out: WitnessKey[] = [];
  for (const part of text.split(',').slice(0, MAX_WITNESSES)) {
    const m = WITNESS.exec(part);
    if (!m) return [];
    out.push({ create: Number(m[1]), mod: Number(m[2]), version: Number(m[3]), key: m[4]!, value: m[5]! });
  }
  return out;
}

/**
 * What the keys etcd holds now say of the history up to `revision` (the snapshot before's), against the keys
 * recorded with it: `found[i]` holds the live keys created at `recorded[i].create` (or why they could not be
 * read). A key recorded that is there with a history the same cluster cannot have given it differs; one there as
 * the same history leaves it (unchanged, or modified after `revision`) proves it, if none differs; deleted since
 * proves nothing.
 */
export function judgeWitnesses(
  recorded: readonly WitnessKey[],
  found: ReadonlyArray<readonly FoundKey[] | string>,
  revision: number,
  window?: { above: number; found: readonly FoundKey[] | string },
): HistoryCheck {
  if (recorded.length === 0)
    return { state: 'unproven', why: 'the snapshot before records no keys to prove it by (an older metaops)' };
  // Keys now last modified between `above` and the snapshot's revision: in the same history, each is one recorded
  // (unchanged since); any other was written there by another history.
  if (window && typeof window.found !== 'string') {
    for (const k of window.found) {
      if (k.mod <= window.above || k.mod > revision) continue;
      if (!recorded.some((w) => w.key === k.key && w.create === k.create && w.mod === k.mod))
        return { state: 'differs' };
    }
  }
  let proven = 0;
  for (const [i, w] of recorded.entries()) {
    const now = found[i];
    if (typeof now === 'string') return { state: 'unproven', why: now };
    const same = (now ?? []).find((k) => k.key === w.key && k.create === w.create);
    if (!same) continue;
    const unchanged = same.mod === w.mod && same.version === w.version && same.value === w.value;
    const modifiedSince = same.mod > revision && same.version > w.version;
    if (!unchanged && !modifiedSince) return { state: 'differs' };
    proven++;
  }
  return proven > 0
    ? { state: 'same' }
    : {
        state: 'unproven',
        why: `none of the ${recorded.length} key(s) recorded with the snapshot before is still in etcd as it was created`,
      };
}

/** Why a new lineage began although this EtcdBackup had one: the snapshot it last took, and what changed. */
export interface LineageBreak {
  /**
   * RevisionWentBack, EtcdClusterChanged; HistoryDiffers (the same cluster ID and a revision grown past the snapshot
   * before, but etcd's history up to it is another: rebuilt with its identity); LineageUnproven (etcd could not prove
   * it is the same history: `why`). Nothing of the lineage before is pruned in any case.
   */
  reason: 'RevisionWentBack' | 'EtcdClusterChanged' | 'HistoryDiffers' | 'LineageUnproven';
  /** With LineageUnproven: why etcd could not prove it. */
  why?: string;
  /** The newest snapshot of the lineage before. */
  key: string;
  revision: number;
  clusterId: string;
  /** When it was taken (RFC 3339). */
  date: string;
}

/** The revision the previous snapshot records (its metadata, else its name). */
export function revisionOf(previous: Snapshot): number {
  return Number(previous.meta?.[META.revision] ?? previous.revision);
}

/** Whether the lineage of `previous` may go on to a snapshot at `revision` of `clusterId`, if etcd proves it. */
export function mayContinue(previous: Snapshot | undefined, uid: string, clusterId: string, revision: number): boolean {
  const before = lineageOf(previous?.meta);
  return (
    before !== undefined && before.uid === uid && before.clusterId === clusterId && revisionOf(previous!) <= revision
  );
}

/**
 * The lineage of a new snapshot at `revision` of cluster `clusterId`, given the newest snapshot this EtcdBackup
 * wrote before (`previous`, metadata read): its lineage goes on when the cluster is the same, the revision did not
 * go down and etcd proves the history up to the previous snapshot is the one it recorded (`history`; none given:
 * no proof); otherwise a new one begins at `stamp`, and the break says why (none for a first snapshot). A revision
 * alone proves nothing: a cluster rebuilt with its identity grows past it again.
 */
// eslint-disable-next-line max-params -- the snapshot before, who and what is backed up now, when, and etcd's proof
export function decideLineage(
  previous: Snapshot | undefined,
  uid: string,
  clusterId: string,
  revision: number,
  stamp: string,
  history: HistoryCheck = { state: 'unproven', why: 'etcd was not asked' },
): { lineage: Lineage; break?: LineageBreak } {
  const fresh: Lineage = { uid, clusterId, since: stamp };
  const before = lineageOf(previous?.meta);
  if (!previous || !before || before.uid !== uid) return { lineage: fresh };
  const was = revisionOf(previous);
  const continues = mayContinue(previous, uid, clusterId, revision);
  if (continues && history.state === 'same') return { lineage: before };
  const reason: LineageBreak['reason'] =
    before.clusterId !== clusterId
      ? 'EtcdClusterChanged'
      : !continues
        ? 'RevisionWentBack'
        : history.state === 'differs'
          ? 'HistoryDiffers'
          : 'LineageUnproven';
  return {
    lineage: fresh,
    break: {
      reason,
      ...(reason === 'LineageUnproven' && history.state === 'unproven' ? { why: history.why } : {}),
      key: previous.key,
      revision: was,
      clusterId: before.clusterId,
      date: previous.meta?.[META.taken] ?? dateOfStamp(previous.stamp),
    },
  };
}

/**
 * The snapshots to delete: those whose metadata records `lineage`, beyond its `max` newest (by revision: highestFirst,
 * never by a node's clock), the one just `written` counting as the newest (and never deleted). Nothing when `max` is
 * 0 (keep all). A key given twice counts once (a listing that repeats a key must not prune the lineage below `max`).
 */
export function toPrune(snapshots: readonly Snapshot[], lineage: Lineage, max: number, written: string): string[] {
  if (max <= 0) return [];
  const keys = new Set<string>();
  const mine = snapshots
    .filter((s) => s.key !== written && sameLineage(lineageOf(s.meta), lineage) && !keys.has(s.key) && keys.add(s.key))
    .sort(highestFirst);
  return mine.slice(max - 1).map((s) => s.key);
}
