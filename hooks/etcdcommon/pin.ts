// What a restore's check keeps of the snapshot it verified, for the members that fetch it later (snapshot.ts): in a
// module of its own, without the AWS SDK, since the EtcdCluster hook names the pin in the pods it answers and the
// server loads the SDK only when a hook first calls S3.

/**
 * What a restore's check pinned, recorded in the EtcdCluster's status and given to each restored member's fetch
 * step: the bytes it verified (sha256), and where they stay while the key may be written again (a version of the
 * object, or a copy of it beside the key).
 */
export interface SnapshotPin {
  sha256: string;
  versionId?: string;
  /** `bucket/key` of the copy the check made. */
  pinnedPath?: string;
}

/** The key of the copy a restore's check makes of the snapshot it verified: beside it, named for the restore. */
export function pinPath(path: string, restoreUid: string): string {
  return `${path}.restore-${restoreUid.replace(/[^A-Za-z0-9-]/g, '').slice(0, 64)}`;
}
