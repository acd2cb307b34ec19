// EtcdCluster, etcd.database.coreos.com/v1beta2: the CoreOS etcd-operator API, so that existing resources
// move to metaops without touching their YAML.
import { Type, type Static } from '@sinclair/typebox';
import {
  commonPrinterColumns,
  Conditions,
  freeForm,
  freeFormList,
  heldBySchema,
  MAX_IMAGE_LENGTH,
  objectNameField,
  type ResourceDefinition,
  stringMap,
} from '../../lib/index.js';

export const DEFAULT_REPOSITORY = 'quay.io/coreos/etcd';
export const DEFAULT_VERSION = '3.2.13';
/** etcd versions: 3.5.17, v3.5.17, 3.6.0-rc.1. */
export const VERSION_PATTERN = /^v?[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$/;
/** A DNS domain (lower-case labels), with an optional leading dot: it goes into the member URLs the hook dials. */
export const DOMAIN_PATTERN = '^\\.?[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$';
/**
 * Most members a cluster may have. etcd recommends 3, 5 or 7; 9 leaves room for a rolling replacement. Each
 * sync reads every member's health at once, so this also bounds the work of one sync.
 */
export const MAX_SIZE = 9;

/** Label maps of the member pods: Kubernetes' label value length, and room for prefixed keys. */
const LABELS = { maxProperties: 64, maxValueLength: 63, maxBytes: 16 * 1024 };

export const PodPolicy = Type.Object(
  {
    labels: Type.Optional(
      stringMap('Labels added to every etcd pod (the app and etcd_cluster labels cannot be overridden).', LABELS),
    ),
    annotations: Type.Optional(
      stringMap('Annotations added to every etcd pod.', {
        maxProperties: 64,
        maxValueLength: 16 * 1024,
        maxBytes: 32 * 1024,
      }),
    ),
    nodeSelector: Type.Optional(stringMap('Node selector of the etcd pods.', LABELS)),
    affinity: Type.Optional(freeForm('Affinity of the etcd pods (core/v1 Affinity).', 16 * 1024)),
    antiAffinity: Type.Optional(Type.Boolean({ description: 'Schedule at most one member of this cluster per node.' })),
    resources: Type.Optional(freeForm('Resources of the etcd container (core/v1 ResourceRequirements).', 4 * 1024)),
    tolerations: Type.Optional(
      freeFormList('Tolerations of the etcd pods.', { what: 'core/v1 Toleration', maxBytes: 1024 }, 32, 16 * 1024),
    ),
    etcdEnv: Type.Optional(
      freeFormList('Environment of the etcd container.', { what: 'core/v1 EnvVar', maxBytes: 8 * 1024 }, 64, 32 * 1024),
    ),
    securityContext: Type.Optional(
      freeForm(
        'Pod security context (core/v1 PodSecurityContext). Its fields override the default, which Pod Security restricted admits: runAsNonRoot, runAsUser, runAsGroup and fsGroup 10001, fsGroupChangePolicy OnRootMismatch, seccompProfile RuntimeDefault.',
        4 * 1024,
      ),
    ),
    persistentVolumeClaimSpec: Type.Optional(
      freeForm(
        'When set, each member keeps its data in a PersistentVolumeClaim of this spec instead of an emptyDir.',
        8 * 1024,
      ),
    ),
    clusterDomain: Type.Optional(
      Type.String({
        maxLength: 200,
        pattern: DOMAIN_PATTERN,
        description:
          'Cluster domain appended to member DNS names, e.g. ".cluster.local" (a DNS name only). Empty by default. Only a domain the metaops server allows (its own, METAOPS_ETCD_CLUSTER_DOMAIN, or one of METAOPS_ETCD_CLUSTER_DOMAINS) is used; another holds the cluster as it is.',
      }),
    ),
    ClusterDomain: Type.Optional(
      Type.String({
        maxLength: 200,
        pattern: DOMAIN_PATTERN,
        description:
          'clusterDomain as etcd-operator spells it (its PodPolicy\'s json:"ClusterDomain"): the same field under the same rules. Setting both to different domains is refused.',
      }),
    ),
    busyboxImage: Type.Optional(
      Type.String({
        maxLength: MAX_IMAGE_LENGTH,
        description:
          "Image of the init steps before etcd starts: the wait for the member's DNS name (nslookup, as etcd-operator) and, for a member made again on its claim, the check that the claim holds its data (sh, ls); default busybox:1.28.0-glibc.",
      }),
    ),
    DNSTimeoutInSecond: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 86400,
        description:
          "Seconds the init step waits for the member's DNS name before it fails and is tried again; 0 (the default) waits without a bound.",
      }),
    ),
  },
  { description: 'Policy for the etcd pods.' },
);

export const TLSPolicy = Type.Object(
  {
    static: Type.Optional(
      Type.Object({
        member: Type.Optional(
          Type.Object({
            peerSecret: Type.Optional(
              objectNameField('Secret with peer.crt, peer.key and peer-ca.crt for member-to-member TLS.'),
            ),
            serverSecret: Type.Optional(
              objectNameField('Secret with server.crt, server.key and server-ca.crt for client TLS.'),
            ),
          }),
        ),
        operatorSecret: Type.Optional(
          objectNameField(
            'Secret with etcd-client.crt, etcd-client.key and etcd-client-ca.crt the hook uses to reach etcd.',
          ),
        ),
      }),
    ),
  },
  { description: 'TLS of the cluster (static certificates from Secrets).' },
);

export const EtcdClusterSpec = Type.Object(
  {
    size: Type.Integer({
      minimum: 1,
      maximum: MAX_SIZE,
      description: `Number of members (1 to ${MAX_SIZE}); odd sizes tolerate the most failures.`,
    }),
    version: Type.String({
      default: DEFAULT_VERSION,
      maxLength: 64,
      description: 'etcd version; a leading "v" is accepted. The image is <repository>:v<version>.',
    }),
    repository: Type.String({
      default: DEFAULT_REPOSITORY,
      maxLength: MAX_IMAGE_LENGTH,
      description: 'etcd image repository.',
    }),
    paused: Type.Boolean({ default: false, description: 'Stop every change to the cluster (membership, upgrades).' }),
    pod: Type.Optional(PodPolicy),
    TLS: Type.Optional(TLSPolicy),
  },
  { description: 'ClusterSpec, as etcd-operator v1beta2 had it.' },
);
export type EtcdClusterSpec = Static<typeof EtcdClusterSpec>;

const MemberStatus = Type.Object({
  name: Type.String(),
  id: Type.Optional(Type.String({ description: 'etcd member ID (decimal).' })),
  peerURL: Type.Optional(Type.String()),
  clientURL: Type.Optional(Type.String()),
  healthy: Type.Boolean(),
  leader: Type.Optional(Type.Boolean()),
  learner: Type.Optional(Type.Boolean()),
  version: Type.Optional(Type.String()),
  alarm: Type.Optional(Type.String({ description: 'An etcd alarm the member raised, e.g. NOSPACE.' })),
  unhealthySince: Type.Optional(
    Type.String({
      description:
        'Since when the started member is unhealthy; replaced after 10 minutes while the others keep quorum.',
    }),
  ),
  pendingSince: Type.Optional(
    Type.String({
      description:
        'Since when the added member (a learner, or a voter not yet started) waits to start; cancelled after 10 minutes.',
    }),
  ),
  exitedSince: Type.Optional(
    Type.String({
      maxLength: 40,
      description:
        'Since when the added member, not yet started, is seen with its etcd exited; its addition is cancelled once that lasts 20 seconds (one kill is restarted in place).',
    }),
  ),
  seenUpAt: Type.Optional(
    Type.String({
      maxLength: 40,
      description:
        'When a sync last saw the member up while its clock ran (the clock dropped): a clock of it started again within 15 s waits for the 15 s hold of what members say, so that a member that flaps is not a status write at each sync.',
    }),
  ),
});

/**
 * The record of tries in a row whose pods their nodes ended before their etcd ran (additionsFailed.ended,
 * bootstrapFailed.ended): how many, 1 to 8, and when the last one was (`at`, its description), the record described
 * by `description`.
 */
function endedInARow(at: string, description: string) {
  return Type.Optional(
    Type.Object(
      { count: Type.Integer({ minimum: 1, maximum: 8 }), at: Type.String({ description: at }) },
      { description },
    ),
  );
}

export const EtcdClusterStatus = Type.Object(
  {
    phase: Type.Optional(Type.String({ description: 'Creating, Running or Failed, as etcd-operator reported it.' })),
    reason: Type.Optional(Type.String()),
    controlPaused: Type.Optional(Type.Boolean()),
    size: Type.Optional(Type.Integer({ description: 'Current number of members.' })),
    selector: Type.Optional(
      Type.String({ description: "The member pods' label selector, for the scale subresource (kubectl scale)." }),
    ),
    serviceName: Type.Optional(Type.String({ description: 'The client Service.' })),
    clientPort: Type.Optional(Type.Integer()),
    members: Type.Optional(
      Type.Object({
        ready: Type.Optional(Type.Array(Type.String())),
        unready: Type.Optional(Type.Array(Type.String())),
      }),
    ),
    currentVersion: Type.Optional(Type.String()),
    targetVersion: Type.Optional(Type.String()),
    ready: Type.Optional(Type.String({ description: 'Healthy members over desired size.' })),
    observedGeneration: Type.Optional(Type.Integer()),
    memberList: Type.Optional(Type.Array(MemberStatus, { description: 'Every etcd member, with ids and the leader.' })),
    leader: Type.Optional(Type.String({ description: 'Name of the leader.' })),
    healthReportedAt: Type.Optional(
      Type.String({
        maxLength: 40,
        description:
          'When what the members say (health, leader, quorum, the conditions read from them) last changed in this status; the next such change is reported once 15 s have passed, so that a member that flaps does not make a sync of every status write.',
      }),
    ),
    heldBy: Type.Optional(heldBySchema()),
    clusterID: Type.Optional(
      Type.String({
        maxLength: 20,
        description:
          "The etcd cluster ID of this EtcdCluster's members (decimal): only answers carrying it are read or acted on.",
      }),
    ),
    quorum: Type.Optional(
      Type.Object({
        members: Type.Integer(),
        healthy: Type.Integer(),
        needed: Type.Integer(),
        ok: Type.Boolean(),
        down: Type.Optional(Type.Array(Type.String())),
      }),
    ),
    restore: Type.Optional(
      Type.Object({
        uid: Type.String(),
        name: Type.String({ description: 'The EtcdRestore.' }),
        phase: Type.String({ description: 'Checking, Replacing, Restoring, Restored or Failed.' }),
        since: Type.Optional(
          Type.String({ description: 'When Checking or Restoring began: their deadlines count from it.' }),
        ),
        untouched: Type.Optional(
          Type.Boolean({
            description:
              'The restore ended before any member was dropped, while members ran: the cluster runs as it was.',
          }),
        ),
        refused: Type.Optional(
          Type.Boolean({ description: 'Its snapshot check refused it: this restore dropped nothing.' }),
        ),
        noMembers: Type.Optional(
          Type.Boolean({
            description:
              'The cluster had no member when this restore came (one before it failed after dropping them): nothing is started until a restore replaces it.',
          }),
        ),
        created: Type.Optional(
          Type.String({
            description: "The EtcdRestore's creationTimestamp: an older EtcdRestore never acts after it.",
          }),
        ),
        reason: Type.Optional(
          Type.String({ maxLength: 200, description: 'Why the restore failed (short, sanitised).' }),
        ),
        s3: Type.Optional(
          Type.Object(
            {
              path: Type.String(),
              awsSecret: Type.Optional(Type.String()),
              endpoint: Type.Optional(Type.String()),
              forcePathStyle: Type.Optional(Type.Boolean()),
            },
            {
              description:
                'The snapshot checked, recorded once the old members are dropped: the restore carries on from it if the EtcdRestore is deleted.',
            },
          ),
        ),
        checkFetch: Type.Optional(
          Type.Object(
            {
              id: Type.String({ maxLength: 400 }),
              seen: Type.String({ maxLength: 40 }),
            },
            {
              description:
                "The check's running container (its pod's uid, containerID, restartCount) and when the hook first saw it run, by the hook's clock: a check at work is spared from then (no node's clock read).",
            },
          ),
        ),
        checkAgain: Type.Optional(
          Type.Object(
            {
              runs: Type.Integer({ minimum: 1, maximum: 99 }),
              at: Type.String({ maxLength: 40 }),
              last: Type.String({ maxLength: 200 }),
            },
            {
              description:
                "Check pods dropped as runs that proved nothing (S3 throttling, a node that ended it, a pod changed at admission), when the last was, by the hook's clock, and what it ended on: the first is made again at once, the next after 10 s, doubled each time up to 160 s; a refusal at the deadline names it.",
            },
          ),
        ),
        checked: Type.Optional(
          Type.Object(
            {
              version: Type.String({ maxLength: 64 }),
              repository: Type.String({ maxLength: 512 }),
              busyboxImage: Type.Optional(Type.String({ maxLength: 512 })),
              etcdEnv: Type.Optional(
                freeFormList(
                  'The etcdEnv the check started etcd with.',
                  { what: 'core/v1 EnvVar', maxBytes: 8 * 1024 },
                  64,
                  32 * 1024,
                ),
              ),
              resources: Type.Optional(
                freeForm(
                  "The etcd resources the check's etcd had (only with a resourceFieldRef in etcdEnv).",
                  4 * 1024,
                ),
              ),
            },
            {
              description:
                "What the check started (the restored members' version, repository, busyboxImage, etcdEnv), recorded once the old members are dropped: the restored members are made with it, whatever the spec says by then.",
            },
          ),
        ),
        snapshot: Type.Optional(
          Type.Object(
            {
              sha256: Type.String({ maxLength: 64 }),
              versionId: Type.Optional(Type.String({ maxLength: 128 })),
              pinnedPath: Type.Optional(Type.String({ maxLength: 1100 })),
            },
            {
              description:
                'What the check verified: the sha256 of its bytes, and the S3 version or the copy where they stay; every restored member fetches those bytes and refuses any other.',
            },
          ),
        ),
      }),
    ),
    restoresCarriedOut: Type.Optional(
      Type.Array(
        Type.Object({
          name: Type.String({ description: 'The EtcdRestore.' }),
          path: Type.String({ description: 'Its snapshot.' }),
          endpoint: Type.Optional(Type.String()),
        }),
        {
          maxItems: 16,
          description:
            'The restores carried out (the newest last, at most 16): an EtcdRestore made again under one of these names with its snapshot is not replayed.',
        },
      ),
    ),
    upgradeFailed: Type.Optional(
      Type.Object(
        {
          version: Type.String({ description: 'The version that failed.' }),
          from: Type.String({ description: 'The version the cluster ran, which its members keep.' }),
          image: Type.Optional(
            Type.String({
              maxLength: 512,
              description:
                'The image that failed (spec.repository and spec.version): held as long as the spec names it.',
            }),
          ),
          fromImage: Type.Optional(
            Type.String({ maxLength: 512, description: 'The image the cluster ran, which its members keep.' }),
          ),
          member: Type.String(),
          reason: Type.String({ maxLength: 200 }),
          since: Type.String(),
          podSpec: Type.Optional(
            Type.String({
              maxLength: 64,
              description:
                'The fingerprint of spec.pod when it failed: held as long as spec.pod is the same (a change tries again).',
            }),
          ),
        },
        { description: 'An upgrade that failed on a member: halted, every member on `from`.' },
      ),
    ),
    additionsFailed: Type.Optional(
      Type.Object(
        {
          uid: Type.String({ description: "The EtcdCluster's UID." }),
          spec: Type.String({
            description: 'Fingerprint of the spec (but size and paused) new members were made from.',
          }),
          members: Type.Array(Type.String(), { maxItems: 3, description: 'The additions that failed, oldest first.' }),
          reason: Type.String({ maxLength: 200, description: "How the last one failed (its etcd's last exit)." }),
          since: Type.String({ description: 'When the first one failed.' }),
          ended: endedInARow(
            'When the last one was cancelled.',
            'New members in a row whose pod their node ended before their etcd ran (refused at admission, evicted): no failed additions; the next waits 10 s, doubled each time up to 5 minutes; after 8, no member is added until the user acts.',
          ),
        },
        {
          description:
            'Members added that failed and were cancelled; after 3, no member is added until the spec (but its size) or the annotation etcd.metaops.io/retry-additions changes, or spec.size is lowered to the members there are.',
        },
      ),
    ),
    bootstrapFailed: Type.Optional(
      Type.Object(
        {
          uid: Type.String({ description: "The EtcdCluster's UID." }),
          spec: Type.String({
            description:
              'Fingerprint of the spec (but paused) and of etcd.metaops.io/retry-bootstrap the starts were made from.',
          }),
          starts: Type.Integer({ minimum: 0, maximum: 3, description: 'Starts of the bootstrap that failed.' }),
          reason: Type.String({
            maxLength: 200,
            description: "How the last one failed: a member pod, its etcd's last exit and termination message.",
          }),
          since: Type.String({ description: 'When the first one failed.' }),
          ended: endedInARow(
            'When the last of them was started again.',
            'Starts in a row whose member pods their nodes ended (evicted under node pressure, rejected at admission: OutOfcpu): no failed start; the next waits a back-off (10 s doubling to 5 minutes), and after 8 none is made (BootstrapFailed).',
          ),
        },
        {
          description:
            'Starts of a bootstrap (the first members, before the cluster formed) that failed; after 3, no new start is made (BootstrapFailed) until the spec or the annotation etcd.metaops.io/retry-bootstrap changes.',
        },
      ),
    ),
    lastMemberIndex: Type.Optional(
      Type.Integer({ description: 'Highest member ordinal used so far; new members take the next one.' }),
    ),
    namesAskedWith: Type.Optional(
      Type.Object(
        {
          generation: Type.Integer(),
          lastMemberIndex: Type.Integer(),
          members: Type.Array(Type.String({ maxLength: 253 }), { maxItems: 2 * MAX_SIZE }),
        },
        {
          additionalProperties: false,
          description:
            "What Metacontroller's related objects of this generation were asked for with (it keeps the customize answer until the spec changes): the last member ordinal and the members then. A pod or claim under a member name that answer did not ask for is not made (Ready=False MemberNameNotChecked) until the spec changes.",
        },
      ),
    ),
    conditions: Type.Optional(Conditions),
  },
  { additionalProperties: false },
);

export const resource: ResourceDefinition = {
  group: 'etcd.database.coreos.com',
  version: 'v1beta2',
  kind: 'EtcdCluster',
  plural: 'etcdclusters',
  singular: 'etcdcluster',
  shortNames: ['etcd', 'etcdclus'],
  scope: 'Namespaced',
  categories: ['metaops'],
  description: 'EtcdCluster is an etcd cluster, compatible with the CoreOS etcd-operator v1beta2 API.',
  spec: EtcdClusterSpec,
  status: EtcdClusterStatus,
  scale: { statusReplicasPath: '.status.size' },
  printerColumns: [
    commonPrinterColumns.size('members'),
    commonPrinterColumns.ready,
    { name: 'VERSION', type: 'string', jsonPath: '.status.currentVersion', description: 'etcd version running.' },
    { name: 'PHASE', type: 'string', jsonPath: '.status.phase', priority: 1 },
    commonPrinterColumns.age,
  ],
};
