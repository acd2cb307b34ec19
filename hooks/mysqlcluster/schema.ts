// MySQLCluster, database.example.com/v1alpha1: a StatefulSet of MySQL members with their own volumes.
import { Type, type Static } from '@sinclair/typebox';
import {
  commonPrinterColumns,
  heldBySchema,
  MAX_NAME_LENGTH,
  progressDeadlineField,
  replicatedStatus,
  type ResourceDefinition,
  sizeField,
} from '../../lib/index.js';

/** The most members a MySQLCluster may have: a primary and its replicas; more than 9 is no longer one small replicated database. */
export const MAX_SIZE = 9;
export const DEFAULT_VERSION = '8.0';
/**
 * A MySQL image tag: 8, 8.0, 8.0.36 (at most three numbers of at most three digits), optionally the official image's
 * -debian or -oracle variant (8.0.23 or later: sync.ts). Nothing else: the tag is copied into every member's image.
 * A part padded with zeros (8.00.36, 8.04: no such tag exists) is refused by the hook (sync.ts versionProblem), not
 * here: a pattern tightened under objects stored with one would refuse their every update (a finalizer removed) on
 * an API server without validation ratcheting.
 */
export const VERSION_PATTERN = /^[0-9]{1,3}(\.[0-9]{1,3}){0,2}(-(debian|oracle))?$/;
/** The longest tag VERSION_PATTERN takes (999.999.999-debian). */
export const VERSION_MAX_LENGTH = 18;
/** The largest number spec.version may be (YAML's 8.0 is 8, 8.4 is 8.4): a major version. */
export const VERSION_MAX_NUMBER = 999;
export const QUANTITY_PATTERN = '^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$';

export const MySQLClusterSpec = Type.Object(
  {
    size: sizeField('The number of MySQL members.', MAX_SIZE),
    // YAML reads `version: 8.0` as the number 8, so the field takes a number or a string; the CRD cannot
    // say "number or string" structurally and keeps it open with each branch's bounds (a string's pattern and length,
    // a number's range: lib/manifests.ts), and the hook checks the format and the minimum (sync.ts).
    version: Type.Union(
      [
        Type.String({ minLength: 1, maxLength: VERSION_MAX_LENGTH, pattern: VERSION_PATTERN.source }),
        Type.Number({ minimum: 0, maximum: VERSION_MAX_NUMBER }),
      ],
      {
        default: DEFAULT_VERSION,
        description:
          'MySQL version: the image is mysql:<version>. Quote it ("8.0"): unquoted, YAML turns 8.0 into 8, which is read as 8.0.',
        'x-kubernetes-preserve-unknown-fields': true,
      },
    ),
    storage: Type.Object(
      {
        size: Type.String({
          pattern: QUANTITY_PATTERN,
          maxLength: 32,
          default: '1Gi',
          description: 'Size of each member data volume (a Kubernetes quantity). Fixed once the cluster exists.',
        }),
        storageClassName: Type.Optional(
          Type.String({
            maxLength: MAX_NAME_LENGTH,
            description:
              'StorageClass of the data volumes; absent, the default class. "" asks for none (static binding to pre-made volumes): refused unless the metaops server allows it (METAOPS_ALLOW_STATIC_VOLUMES).',
          }),
        ),
      },
      { default: {}, description: 'Each member keeps its data in a volume of its own.' },
    ),
    progressDeadlineSeconds: progressDeadlineField('members'),
  },
  { description: 'MySQLClusterSpec defines the desired state of MySQLCluster.' },
);
export type MySQLClusterSpec = Static<typeof MySQLClusterSpec>;

export const MySQLClusterStatus = replicatedStatus({
  heldBy: Type.Optional(heldBySchema()),
  version: Type.Optional(
    Type.String({
      description:
        'The MySQL versions the members ran (the image tags a member pod started on; several, comma-separated, during a rollout), each kept while the pods that ran it wait on a pull or are gone, until a member runs a newer one; never a version no member started on. A spec.version older than any is refused.',
    }),
  ),
  primary: Type.Optional(
    Type.String({ description: 'The member that takes writes (member 0); the client Service sends them there.' }),
  ),
  members: Type.Optional(
    Type.Array(
      Type.Object(
        {
          name: Type.String({ description: 'The member pod.' }),
          role: Type.Union([Type.Literal('primary'), Type.Literal('replica')]),
          ready: Type.Boolean({
            description: 'The pod is Ready (a replica only while it replicates and has caught up with the primary).',
          }),
          replicating: Type.Optional(
            Type.Boolean({
              description:
                'Replicas only: both replication threads run and it holds what the primary held when its sidecar last looked (the replication container is Ready; false while it copies after a volume loss).',
            }),
          ),
        },
        { additionalProperties: false },
      ),
      { description: 'Each member pod, its role and whether it replicates.' },
    ),
  ),
  secretName: Type.Optional(
    Type.String({ description: 'The Secret holding the root password, once it has been observed.' }),
  ),
  writeService: Type.Optional(
    Type.String({
      description:
        'The Service that takes writes (member 0): <name>-mysql (<name> for a cluster made before the suffix, which keeps it).',
    }),
  ),
  readService: Type.Optional(Type.String({ description: 'The Service over every Ready member, for reads.' })),
});

export const resource: ResourceDefinition = {
  group: 'database.example.com',
  version: 'v1alpha1',
  kind: 'MySQLCluster',
  plural: 'mysqlclusters',
  singular: 'mysqlcluster',
  shortNames: ['mysql'],
  scope: 'Namespaced',
  categories: ['metaops'],
  description:
    'MySQLCluster is a MySQL primary (member 0) with read replicas: a StatefulSet, a write Service to the primary, a read Service over every Ready member, and generated passwords.',
  spec: MySQLClusterSpec,
  status: MySQLClusterStatus,
  scale: true,
  printerColumns: [
    commonPrinterColumns.size('members'),
    commonPrinterColumns.ready,
    { name: 'VERSION', type: 'string', jsonPath: '.status.version', description: 'MySQL version the pods run.' },
    {
      name: 'PRIMARY',
      type: 'string',
      jsonPath: '.status.primary',
      description: 'The member that takes writes.',
      priority: 1,
    },
    commonPrinterColumns.status,
    commonPrinterColumns.age,
  ],
};
