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

/** The source of a restore's snapshot as a record keeps it: where it is, with which Secret and endpoint. */
export interface CheckedSource {
  path: string;
  awsSecret?: string;
  endpoint?: string;
  forcePathStyle?: boolean;
}

/**
 * What an EtcdRestore's own status keeps of its check once its old members were dropped (status.checked, set once
 * and never changed: hooks/etcdbackup/restore.ts): the source checked and the pin. It outlives the EtcdCluster's
 * status, whose record of the pin is lost with it, so that a restore carried on from the EtcdRestore alone
 * (hooks/etcdcluster/sync.ts) still fetches only the bytes checked.
 */
export interface CheckedRecord {
  s3: CheckedSource;
  snapshot?: SnapshotPin;
}

/** An S3 version ID as the members are given it (bounded, plain), or undefined ("null": the bucket keeps none). */
export function versionIdOf(id: unknown): string | undefined {
  return typeof id === 'string' && id !== 'null' && /^[A-Za-z0-9._+=-]{1,128}$/.test(id) ? id : undefined;
}

/** A snapshot's sha256 as the check reports it (64 lowercase hex digits), or undefined. */
export function sha256Of(value: unknown): string | undefined {
  return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value) ? value : undefined;
}

/** The source's own fields, read as untrusted: undefined unless every field present has its type. */
export function checkedSourceOf(value: unknown): CheckedSource | undefined {
  const s3 = value as Record<string, unknown> | null | undefined;
  const path = s3?.['path'];
  if (typeof path !== 'string' || !path || path.length > 1088) return undefined;
  const { awsSecret, endpoint, forcePathStyle } = s3;
  if (![awsSecret, endpoint].every((v) => v === undefined || typeof v === 'string')) return undefined;
  if (forcePathStyle !== undefined && typeof forcePathStyle !== 'boolean') return undefined;
  return {
    path,
    ...(awsSecret ? { awsSecret: awsSecret as string } : {}),
    ...(endpoint ? { endpoint: endpoint as string } : {}),
    ...(forcePathStyle ? { forcePathStyle: true } : {}),
  };
}

/**
 * A pin as a record keeps it, read as untrusted: its sha256 (without one, no pin), a version of the form the check
 * reports, and a copy only where this restore's check makes it (pinPath of the source checked): a record written by
 * hand cannot steer a fetch elsewhere, and the sha256 still refuses any other bytes.
 */
export function pinRecordOf(value: unknown, path: string, restoreUid: string): SnapshotPin | undefined {
  const pin = value as Record<string, unknown> | null | undefined;
  const sha256 = sha256Of(pin?.['sha256']);
  if (!sha256) return undefined;
  const versionId = versionIdOf(pin!['versionId']);
  if (versionId) return { sha256, versionId };
  const pinned = pin!['pinnedPath'];
  return { sha256, ...(pinned === pinPath(path, restoreUid) ? { pinnedPath: pinned } : {}) };
}

/**
 * A record of a checked source and its pin (`s3` and `snapshot`: an EtcdRestore's status.checked, or the cluster's
 * record of a restore past its check), read as untrusted (undefined without a readable source).
 */
export function checkedRecordFrom(record: unknown, restoreUid: string): CheckedRecord | undefined {
  const checked = record as { s3?: unknown; snapshot?: unknown } | null | undefined;
  const s3 = checkedSourceOf(checked?.s3);
  if (!s3) return undefined;
  const snapshot = pinRecordOf(checked?.snapshot, s3.path, restoreUid);
  return { s3, ...(snapshot ? { snapshot } : {}) };
}

/** An EtcdRestore's status.checked, read as untrusted (undefined without a readable source). */
export function checkedRecordOf(status: unknown, restoreUid: string): CheckedRecord | undefined {
  return checkedRecordFrom((status as { checked?: unknown } | null | undefined)?.checked, restoreUid);
}
