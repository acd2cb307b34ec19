// EtcdBackup and EtcdRestore, etcd.database.coreos.com/v1beta2, as etcd-operator had them (S3 storage).
import { Type, type Static } from '@sinclair/typebox';
import {
  commonPrinterColumns,
  Conditions,
  heldBySchema,
  MAX_NAME_LENGTH,
  objectNameField,
  type ResourceDefinition,
} from '../../lib/index.js';

/** A DNS label: the EtcdCluster name goes into the client Service host name the backup Job dials. */
export const CLUSTER_NAME_PATTERN = '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$';

/** The longest backup interval: 365 days. */
export const MAX_BACKUP_INTERVAL = 365 * 86_400;

export const S3Source = Type.Object(
  {
    path: Type.String({
      pattern: '^[^/]+/.+$',
      // A bucket name (63) and an S3 key (1024).
      maxLength: 1088,
      description: 'Where the snapshot is: "<bucket>/<key>".',
    }),
    awsSecret: Type.Optional(
      objectNameField(
        'Secret with AWS credentials: files `credentials` and `config` (etcd-operator), or AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY keys (a Secret name: a DNS-1123 subdomain).',
      ),
    ),
    endpoint: Type.Optional(Type.String({ maxLength: 512, description: 'S3-compatible endpoint (MinIO, moto, ...).' })),
    forcePathStyle: Type.Optional(Type.Boolean({ description: 'Path-style addressing (bucket in the path).' })),
  },
  { description: 'S3 storage of the snapshot.' },
);
export type S3Source = Static<typeof S3Source>;

export const EtcdBackupSpec = Type.Object(
  {
    etcdEndpoints: Type.Optional(
      Type.Array(Type.String({ maxLength: 512 }), {
        maxItems: 9,
        description: 'etcd client URLs to snapshot (the first that answers; at most 9).',
      }),
    ),
    clusterName: Type.Optional(
      Type.String({
        maxLength: 63,
        pattern: CLUSTER_NAME_PATTERN,
        description: 'Or: an EtcdCluster of this namespace (its client Service; a DNS label).',
      }),
    ),
    storageType: Type.Union([Type.Literal('S3')], { default: 'S3' }),
    backupPolicy: Type.Object(
      {
        timeoutInSecond: Type.Integer({ minimum: 1, maximum: 3600, default: 60 }),
        backupIntervalInSecond: Type.Integer({
          minimum: 0,
          maximum: MAX_BACKUP_INTERVAL,
          default: 0,
          description:
            '0: one backup; otherwise periodic, at most 365 days (a CronJob: up to a day, the next interval a cron schedule keeps evenly; longer, hourly runs that take a snapshot only once the last is this old). Never more often than asked: status.schedule and status.scheduleNote say the schedule kept.',
        }),
        maxBackups: Type.Integer({
          minimum: 0,
          default: 0,
          description: 'Periodic backups kept (oldest pruned); 0: all.',
        }),
      },
      { default: {} },
    ),
    s3: S3Source,
    clientTLSSecret: Type.Optional(
      objectNameField(
        'Secret with etcd-client.crt, etcd-client.key and etcd-client-ca.crt for a TLS cluster (a Secret name: a DNS-1123 subdomain).',
      ),
    ),
  },
  { description: 'BackupSpec, as etcd-operator v1beta2 had it.' },
);
export type EtcdBackupSpec = Static<typeof EtcdBackupSpec>;

/** Why a periodic backup began a new lineage although it had one (lineage.ts): its last snapshot before, kept. */
export const LineagePrevious = Type.Object({
  reason: Type.String({
    description:
      'RevisionWentBack, EtcdClusterChanged, HistoryDiffers (the same cluster ID and a higher revision, but etcd holds another history up to the last snapshot: rebuilt with its identity) or LineageUnproven (etcd could not prove it is the same history: `why`).',
  }),
  why: Type.Optional(
    Type.String({ maxLength: 240, description: 'With LineageUnproven: why etcd could not prove it.' }),
  ),
  key: Type.String({ description: 'The newest snapshot of the lineage before.' }),
  revision: Type.Integer(),
  clusterID: Type.String(),
  date: Type.String(),
  restoredBy: Type.Optional(Type.String({ description: 'The EtcdRestore that explains the change, if one does.' })),
});

export const EtcdBackupStatus = Type.Object(
  {
    succeeded: Type.Optional(Type.Boolean()),
    reason: Type.Optional(Type.String()),
    Reason: Type.Optional(Type.String({ description: "The same as reason, spelled as etcd-operator's BackupStatus." })),
    etcdVersion: Type.Optional(Type.String()),
    etcdRevision: Type.Optional(Type.Integer()),
    lastSuccessDate: Type.Optional(Type.String()),
    key: Type.Optional(Type.String({ description: 'The S3 object the last backup wrote.' })),
    bucket: Type.Optional(Type.String({ description: 'The bucket of key.' })),
    endpoint: Type.Optional(
      Type.String({
        maxLength: 512,
        description: "The S3 endpoint of bucket ('': AWS's own), as the Job was given it.",
      }),
    ),
    clusterName: Type.Optional(
      Type.String({
        maxLength: 63,
        description: "The EtcdCluster a one-off backup's snapshot at key is of (as its Job dialled it).",
      }),
    ),
    clusterID: Type.Optional(
      Type.String({
        pattern: '^[0-9a-f]{1,16}$',
        description: "The etcd cluster ID (hex) of a one-off backup's snapshot at key.",
      }),
    ),
    lineage: Type.Optional(
      Type.Object(
        {
          clusterID: Type.String({ description: 'The etcd cluster ID (hex) of the snapshots of this lineage.' }),
          since: Type.String({ description: 'When its first snapshot was taken.' }),
          previous: Type.Optional(LineagePrevious),
        },
        { description: 'The lineage periodic snapshots are pruned within: this EtcdBackup, one etcd cluster.' },
      ),
    ),
    pruneProblem: Type.Optional(Type.String({ description: 'Why the last backup pruned nothing, or stopped.' })),
    schedule: Type.Optional(Type.String({ description: "A periodic backup's CronJob schedule." })),
    scheduleNote: Type.Optional(
      Type.String({
        description:
          'How that schedule keeps the interval asked, when not exactly: rounded up to one a cron schedule keeps, or (longer than a day) hourly runs that take a snapshot only once the last is as old as the interval.',
      }),
    ),
    observedGeneration: Type.Optional(Type.Integer()),
    conditions: Type.Optional(Conditions),
    podsLabel: Type.Optional(
      Type.String({
        maxLength: 63,
        description:
          'The value of the label etcdbackup.metaops.io/parent-id every backup pod whose result is read carries, by which its pods are asked for (docs/etcdbackup.md).',
      }),
    ),
    heldBy: Type.Optional(heldBySchema()),
  },
  { additionalProperties: false },
);

export const backupResource: ResourceDefinition = {
  group: 'etcd.database.coreos.com',
  version: 'v1beta2',
  kind: 'EtcdBackup',
  plural: 'etcdbackups',
  singular: 'etcdbackup',
  scope: 'Namespaced',
  categories: ['metaops'],
  description: 'EtcdBackup snapshots an etcd cluster into S3, once or periodically (etcd-operator v1beta2 API).',
  spec: EtcdBackupSpec,
  status: EtcdBackupStatus,
  printerColumns: [
    { name: 'SUCCEEDED', type: 'boolean', jsonPath: '.status.succeeded' },
    { name: 'REVISION', type: 'integer', jsonPath: '.status.etcdRevision' },
    { name: 'LAST', type: 'string', jsonPath: '.status.lastSuccessDate' },
    commonPrinterColumns.age,
  ],
};

export const EtcdRestoreSpec = Type.Object(
  {
    etcdCluster: Type.Object(
      { name: Type.String({ minLength: 1, maxLength: MAX_NAME_LENGTH }) },
      { description: 'The EtcdCluster to restore, in this namespace.' },
    ),
    backupStorageType: Type.Union([Type.Literal('S3')], { default: 'S3' }),
    s3: S3Source,
  },
  { description: 'RestoreSpec, as etcd-operator v1beta2 had it.' },
);
export type EtcdRestoreSpec = Static<typeof EtcdRestoreSpec>;

export const EtcdRestoreStatus = Type.Object(
  {
    succeeded: Type.Optional(Type.Boolean()),
    reason: Type.Optional(Type.String()),
    membersDropped: Type.Optional(
      Type.Boolean({
        description:
          "The EtcdCluster's old members were dropped for this restore (its point of no return): set once, never unset; the cluster carries this restore on from it if its own record is lost.",
      }),
    ),
    checked: Type.Optional(
      Type.Object(
        {
          s3: S3Source,
          snapshot: Type.Optional(
            Type.Object(
              {
                sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
                versionId: Type.Optional(Type.String({ maxLength: 128 })),
                pinnedPath: Type.Optional(Type.String({ maxLength: 1200 })),
              },
              { additionalProperties: false },
            ),
          ),
        },
        {
          description:
            "The snapshot this restore's check verified (its source, and the pin: the bytes' sha256, the version or copy where they stay), recorded with membersDropped and never changed: the cluster carries the restore on from it, and only those bytes, if its own record is lost.",
        },
      ),
    ),
    observedGeneration: Type.Optional(Type.Integer()),
    conditions: Type.Optional(Conditions),
  },
  { additionalProperties: false },
);

export const restoreResource: ResourceDefinition = {
  group: 'etcd.database.coreos.com',
  version: 'v1beta2',
  kind: 'EtcdRestore',
  plural: 'etcdrestores',
  singular: 'etcdrestore',
  scope: 'Namespaced',
  categories: ['metaops'],
  description: 'EtcdRestore brings an EtcdCluster back from a snapshot in S3 (etcd-operator v1beta2 API).',
  spec: EtcdRestoreSpec,
  status: EtcdRestoreStatus,
  printerColumns: [
    { name: 'CLUSTER', type: 'string', jsonPath: '.spec.etcdCluster.name' },
    { name: 'SUCCEEDED', type: 'boolean', jsonPath: '.status.succeeded' },
    commonPrinterColumns.age,
  ],
};
