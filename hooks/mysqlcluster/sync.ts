// MySQLCluster: a primary with read replicas, as Kubernetes' "replicated stateful application" tutorial does.
// A StatefulSet of MySQL members (each with its own data volume): member 0 is the primary, members 1..N-1
// replicate from it (GTIDs; scripts.ts). The client Service `<name>-mysql` sends writes to member 0 only, the read
// Service `<name>-mysql-read` spans every Ready member, and a headless Service gives each member a stable name. A
// Secret holds the root and replication passwords, generated once.
//
// Names: everything is `<name>-mysql...` (the StatefulSet, so its pods are `<name>-mysql-<i>`), so that a
// MySQLCluster never wants the Service or pods of a Memcached, EtcdCluster or PodSet of the same name, nor another
// MySQLCluster's (`shop`'s read Service is not `shop-read`'s write Service). A cluster made before keeps the names
// its clients and volumes have (namesOf(name, true)): its observed StatefulSet or Services, its volumes, or its
// status.writeService say so. Objects of those names that another owner holds are never taken (lib/ownership.ts).
//
// Member 0 opens for writes only when no replica holds transactions it lacks (scripts.ts); when it refuses, its
// sidecar says why in its termination message and the status names the case (PrimaryBehind, PrimaryUnverified).
//
// The passwords' only memory is the Secret itself: every sync re-emits the bytes it observes. A new root
// password is generated only when the cluster has never had one: not if a Secret that existed disappears, and
// not if data volumes of a previous cluster with this name exist (they keep the password they were made with).
import {
  asGiven,
  CLASS_NOT_SEEN,
  claimClassProblem,
  claimClassUnseen,
  claimsHeldCondition,
  type ObjectMap,
  storageClassRule,
} from '../../lib/index.js';
import {
  childLabels,
  type ChildName,
  type CompositeSyncRequest,
  type CompositeSyncResponse,
  type ConditionInput,
  controllerOf,
  currentStatus,
  type CustomizeRequest,
  CLUSTER_DOMAIN_DEFAULT,
  type CustomizeResponse,
  type DerivedName,
  type EventSpec,
  containersStarted,
  heldForTakenNames,
  holderJudge,
  holderWants,
  servedByStatus,
  holderOf,
  imageAtTag,
  imageTag,
  invalidSpecResponse,
  isPodReady,
  isTerminating,
  creationAsked,
  podFailure,
  type ReplicaCounts,
  keepObserved,
  lastApplied,
  type KubeObject,
  MANAGED_BY,
  memberStatus,
  type MembersWaiting,
  observedNamed,
  observedUnordered,
  namingsOf,
  parentNameProblem,
  type ParentObject,
  quantityProblem,
  ruleProblem,
  selectorLabels,
  selectorString,
  serviceChild,
  serviceHost,
  specParser,
  type Status,
  type SyncHook,
  takenNames,
  workloadCounts,
  workloadPending,
  workloadWithheld,
  degradedEvent,
  podsDegraded,
  textOf,
} from '../../lib/index.js';
import {
  MAX_SIZE,
  MySQLClusterSpec,
  VERSION_MAX_NUMBER,
  VERSION_PATTERN,
  type MySQLClusterSpec as Spec,
} from './schema.js';
import {
  CONFIG_SCRIPT,
  PRIMARY_BEHIND,
  PRIMARY_UNVERIFIED,
  REPLICATION_PROBE,
  REPLICATION_SCRIPT,
  SERVER_PROBE,
} from './scripts.js';

const APP = 'mysql';
export const PASSWORD_KEY = 'root-password';
export const REPLICATION_KEY = 'replication-password';
export const REPLICATION_CONTAINER = 'replication';
export const MYSQL_PORT = 3306;
/**
 * On the StatefulSet while its passwords are new and their Secret has not been seen: set when the passwords are
 * generated for a cluster without data volumes, dropped at the first sync that observes the Secret (passwords()).
 */
export const NEW_CREDENTIALS_ANNOTATION = 'mysql.metaops.dev/credentials-unseen';

/** `version` as an image tag: a string as written, a number as YAML read it (8 -> "8.0", 8.4 -> "8.4"). */
export function mysqlVersion(version: string | number): string {
  if (typeof version === 'number') return Number.isInteger(version) ? `${version}.0` : String(version);
  return version.trim();
}

/** The oldest MySQL the member scripts work with: CHANGE REPLICATION SOURCE TO came in 8.0.23. */
export const MIN_VERSION = [8, 0, 23] as const;

/** The numbers of a version (8.0.36-debian: [8, 0, 36]); its suffix is not compared. */
export function versionNumbers(version: string): number[] {
  return (/^[0-9]+(\.[0-9]+){0,2}/.exec(version)?.[0] ?? '').split('.').filter(Boolean).map(Number);
}

/**
 * a against b over the parts both name (8.0 and 8.0.36 are alike: the tag 8.0 is the newest 8.0.x): negative,
 * zero or positive.
 */
export function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/**
 * Whether tag `a` names a release at least as new as every release tag `b` may name. A tag with fewer parts floats
 * (mysql:8 is the newest 8.x, 8.4 and later; mysql:8.0 the newest 8.0.x): over the parts both name, the first that
 * differs decides; where they agree, `a` is as new only if it names no more parts than `b` (8.0 after 8 may be
 * older, 8 after 8.0 is not; 8.0.40 after 8.0 may be older, as 8.0.41 may be out).
 */
export function atLeastAsNew(a: readonly number[], b: readonly number[]): boolean {
  const c = compareVersions(a, b);
  return c === 0 ? a.length <= b.length : c > 0;
}

/** The longest part of a value a tenant wrote that a message quotes. */
const QUOTED_MAX = 40;

/** A value a tenant wrote, as a message quotes it: JSON, at most QUOTED_MAX characters. */
export function quoted(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > QUOTED_MAX ? `${text.slice(0, QUOTED_MAX - 3)}...` : text;
}

/** A part of a version tag written with a leading zero (8.00.36, 8.0.036, 08.4.3, 8.04): a tag no registry has. */
const ZERO_PADDED = /(^|\.)0[0-9]/;

/**
 * What is wrong with spec.version, before the rest of the spec is read: not a string or number, not a MySQL version
 * (VERSION_PATTERN: digits and dots, the image's -debian or -oracle variant), a part padded with zeros, or older than
 * MIN_VERSION.
 */
export function versionProblem(spec: unknown): string | undefined {
  const typed = versionTypeProblem(spec);
  if (typed) return typed;
  const raw = (spec as { version?: unknown } | null | undefined)?.version;
  if (raw === undefined) return undefined;
  const given = raw as string | number;
  const version = mysqlVersion(given);
  if (!VERSION_PATTERN.test(version) || (typeof given === 'number' && !(given >= 0 && given <= VERSION_MAX_NUMBER))) {
    return `spec.version is ${quoted(given)}: expected a MySQL version such as "8.0" or "8.0.36" (digits and dots, optionally -debian or -oracle)`;
  }
  // No MySQL image tag pads a part with zeros (mysql:8.0.36 exists, 8.00.36, 8.0.036, 08.4.3 and 8.04 do not), and
  // read as numbers such a tag would pass the minimum and the downgrade guard as the release it equals.
  if (ZERO_PADDED.test(version)) {
    return `spec.version is ${quoted(given)}: no MySQL image tag pads a part with zeros (write "8.0.36", not "8.00.36" or "8.04")`;
  }
  // 8 and 8.0 name the newest 8.x and 8.0.x; 8.0.22 and 5.7 cannot run the replication the members set up.
  if (compareVersions(versionNumbers(version), MIN_VERSION) < 0 || versionNumbers(version).length === 0) {
    return `spec.version is ${quoted(given)}: the members need MySQL ${MIN_VERSION.join('.')} or later (CHANGE REPLICATION SOURCE TO)`;
  }
  return undefined;
}

export const parser = specParser(MySQLClusterSpec, (spec) => {
  const version = versionProblem(spec);
  if (version) return version;
  const size = quantityProblem(spec.storage.size);
  if (size) return `spec.storage.size ${quoted(spec.storage.size)} ${size}`;
  const storageClass = spec.storage.storageClassName;
  // "" is a claim with no class (bound only to a pre-made volume without one: refused unless the server allows
  // static binding, storageSettingsProblem); absent is the default class.
  const classProblem = storageClass ? ruleProblem('dns1123Subdomain', storageClass) : undefined;
  if (classProblem) return `spec.storage.storageClassName ${quoted(storageClass)} ${classProblem}`;
  return undefined;
});

/** The names of a cluster's children and of what its StatefulSet makes. */
export interface Names {
  /** The names of a cluster made before the `-mysql` suffix. */
  legacy: boolean;
  statefulSet: string;
  headless: string;
  /** Writes: member 0, the primary, only. */
  client: string;
  /** Reads: every Ready member (the primary, and replicas that replicate and have caught up with it). */
  read: string;
  secret: string;
  member(ordinal: number): string;
  /** StatefulSet claims are named <template>-<statefulset>-<ordinal>. */
  volume(ordinal: number): string;
}

/** A cluster's names: `<name>-mysql...`, or (`legacy`) those of a cluster made before the suffix. */
export function namesOf(name: string, legacy = false): Names {
  const sts = legacy ? name : `${name}-mysql`;
  return {
    legacy,
    statefulSet: sts,
    headless: `${sts}-headless`,
    client: sts,
    read: `${sts}-read`,
    secret: `${name}-mysql`,
    member: (ordinal) => `${sts}-${ordinal}`,
    volume: (ordinal) => `data-${sts}-${ordinal}`,
  };
}

/**
 * Whether this cluster keeps the names of a metaops from before the suffix: its observed StatefulSet or Services
 * have them, else its data volumes do (a cluster recreated over them), else its status.writeService records them.
 * Answering the other names would delete the StatefulSet and Services its clients use.
 */
export function legacyNames(request: CompositeSyncRequest): boolean {
  const name = request.parent.metadata.name;
  const [now, before] = [namesOf(name), namesOf(name, true)];
  const has = (kind: string, apiVersion: string, n: string) =>
    observedNamed(request.children, kind, apiVersion, n) !== undefined;
  if (has('StatefulSet', 'apps/v1', now.statefulSet) || has('Service', 'v1', now.headless)) return false;
  if (has('StatefulSet', 'apps/v1', before.statefulSet) || has('Service', 'v1', before.headless)) return true;
  if (has('Service', 'v1', before.client) || has('Service', 'v1', before.read)) return true;
  // Claims labelled as either naming's StatefulSet labels them, whether or not they are this cluster's (a claim of
  // another owner holds the cluster: takenMembers); the names decide which claims are looked at. Claims of the names
  // before beside another owner's StatefulSet of that name (a Helm release `<name>` of a MySQL chart: StatefulSet
  // `<name>`, claims `data-<name>-<i>` labelled just so) are that owner's live volumes, no sign of this cluster's past:
  // a new cluster beside them takes its own names.
  if (volumeClaims(request, now, false).length > 0) return false;
  if (volumeClaims(request, before, false).length > 0 && !anotherOwnersStatefulSet(request, before)) return true;
  return currentStatus(request.parent)['writeService'] === before.client;
}

/**
 * Whether a StatefulSet that is not a child (among the related objects) was left by a MySQLCluster of this name
 * (kubectl delete --cascade=orphan): no controller, and the labels metaops gives this cluster's children.
 */
function leftByNamesake(request: CompositeSyncRequest, sts: KubeObject): boolean {
  const labels = sts.metadata.labels;
  return (
    !controllerOf(sts) &&
    !!labels &&
    typeof labels === 'object' &&
    labels['app.kubernetes.io/name'] === APP &&
    labels['app.kubernetes.io/instance'] === request.parent.metadata.name &&
    labels['app.kubernetes.io/managed-by'] === MANAGED_BY
  );
}

/**
 * Whether a StatefulSet of the names `n` that is not this cluster's child (legacyNames looked at those first) exists
 * and is another owner's: not one a MySQLCluster of this name left (leftByNamesake). The claims `data-<it>-<i>` are its
 * volumes.
 */
function anotherOwnersStatefulSet(request: CompositeSyncRequest, n: Names): boolean {
  const ns = request.parent.metadata.namespace ?? '';
  const sts = observedNamed(request.related, 'StatefulSet', 'apps/v1', n.statefulSet, ns);
  return sts !== undefined && !leftByNamesake(request, sts);
}

/**
 * The label only this cluster's pods carry. The recommended name/instance labels (the StatefulSet's selector, which
 * cannot change) are not ownership: a Helm chart's MySQL released as `<name>` puts the same two on its pods. The pod
 * template adds this one, and the Services select on it once every member carries it (serviceSelectsOwn).
 */
export const INSTANCE_LABEL = 'mysqlcluster.metaops.io/instance';

/**
 * The label of the data volumes this cluster's StatefulSet makes (through its claim template): the UID of the
 * MySQLCluster that made the StatefulSet. A claim of a member's name without it, or with another UID, holds another
 * MySQL's data (a Helm release's, one made by hand, a MySQLCluster of this name that was deleted) and is never
 * mounted unless the user adopts it by setting this label to the cluster's UID (docs/mysqlcluster.md). A claim another
 * object controls is never adopted so: the label decides nothing there (controlledByAnother).
 */
export const CLAIM_UID_LABEL = 'mysqlcluster.metaops.io/uid';

/** Whether a claim carries the labels a StatefulSet of this cluster's gives its claims (its selector). */
function labelledAsOurs(name: string, claim: KubeObject): boolean {
  const labels = claim.metadata.labels;
  return (
    !!labels &&
    typeof labels === 'object' &&
    labels['app.kubernetes.io/name'] === APP &&
    labels['app.kubernetes.io/instance'] === name
  );
}

/** The mark (CLAIM_UID_LABEL) of a StatefulSet's claim template, if it has one. */
function templateMark(sts: KubeObject | undefined): string | undefined {
  const templates = (sts?.['spec'] as { volumeClaimTemplates?: unknown } | undefined)?.volumeClaimTemplates;
  if (!Array.isArray(templates)) return undefined;
  for (const t of templates as unknown[]) {
    const mark = (t as { metadata?: { labels?: Record<string, unknown> } } | null)?.metadata?.labels?.[CLAIM_UID_LABEL];
    if (typeof mark === 'string' && mark !== '') return mark;
  }
  return undefined;
}

function creationTime(obj: KubeObject | undefined): number | undefined {
  const at = obj?.metadata.creationTimestamp;
  const ms = typeof at === 'string' ? Date.parse(at) : NaN;
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * Whether a claim's controller (ownerReference with controller: true) is an object other than this cluster and its
 * observed StatefulSet (by uid): another parent's data volume (an EtcdCluster's member claim `data-<name>-mysql-<i>`,
 * another MySQLCluster's, whatever made it), never this cluster's whatever its labels say, CLAIM_UID_LABEL included.
 * A controller reference whose uid is not a string is another object's too (never adopted on doubt).
 */
function controlledByAnother(request: CompositeSyncRequest, sts: KubeObject | undefined, claim: KubeObject): boolean {
  const ref = controllerOf(claim);
  if (!ref) return false;
  const uid: unknown = ref.uid;
  if (typeof uid !== 'string') return true;
  return uid !== request.parent.metadata.uid && uid !== sts?.metadata.uid;
}

/**
 * Whether a data volume is this cluster's. A claim another object controls never is (controlledByAnother). Marked (CLAIM_UID_LABEL): with this cluster's UID (made by its
 * StatefulSet, or adopted by the user), or with the mark of its observed StatefulSet's claim template (a StatefulSet
 * this cluster adopted after a delete with --cascade=orphan: its lineage). Unmarked: only a claim its own observed
 * StatefulSet made before claims were marked (an earlier metaops: its claim template has no mark), that is one it
 * already uses (an ordinal below its replicas) or one made since the StatefulSet was (labelled as it labels them).
 */
export function volumeOurs(request: CompositeSyncRequest, n: Names, claim: KubeObject): boolean {
  const mark = claim.metadata.labels?.[CLAIM_UID_LABEL];
  const sts = observedNamed(request.children, 'StatefulSet', 'apps/v1', n.statefulSet);
  if (controlledByAnother(request, sts, claim)) return false;
  const lineage = templateMark(sts);
  if (typeof mark === 'string' && mark !== '')
    return mark === request.parent.metadata.uid || (lineage !== undefined && mark === lineage);
  if (!sts || lineage !== undefined || !labelledAsOurs(request.parent.metadata.name, claim)) return false;
  const ordinal = ordinalOf(`data-${n.statefulSet}`, claim.metadata.name ?? '');
  const replicas = (sts['spec'] as { replicas?: unknown } | undefined)?.replicas;
  if (ordinal !== undefined && typeof replicas === 'number' && ordinal < replicas) return true;
  const [made, since] = [creationTime(claim), creationTime(sts)];
  return made !== undefined && since !== undefined && made >= since;
}

/** The labels seed 001's reconciler puts on the MySQL pods. */
export function seedLabels(name: string): Record<string, string> {
  return { app: 'mysqlcluster', mysqlcluster_cr: name };
}

/** The label the StatefulSet controller puts on each of its pods. */
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';

/** The Secret's key that lists the members that may hold data (PEERS_FILE of scripts.ts). */
export const PEERS_KEY = 'peers';
const PEERS_DIR = '/etc/mysql-peers';

/**
 * The members other than 0 that may hold data, as member 0's sidecar reads them before it opens for writes: those the
 * spec asks for (1..size-1) and every one whose data volume exists (a member scaled away keeps its volume and data),
 * but none whose claim was never bound (`neverBound`, neverBoundVolumes): no volume was ever given to it, so it never
 * held a transaction, and an empty member 0 must not stay closed while it waits to be scheduled.
 */
export function peerOrdinals(
  size: number,
  volumes: readonly string[],
  n: Names,
  neverBound: readonly string[] = [],
): number[] {
  const out: number[] = [];
  for (let i = 1; i < MAX_SIZE; i++)
    if ((i < size || volumes.includes(n.volume(i))) && !neverBound.includes(n.volume(i))) out.push(i);
  return out;
}

export function secret(
  parent: ParentObject,
  encodedRoot: string,
  encodedReplication: string,
  /** peerOrdinals, for member 0's sidecar (a mounted key follows a scale without restarting a pod). */
  peers: readonly number[],
): KubeObject {
  const name = parent.metadata.name;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: namesOf(name).secret,
      namespace: parent.metadata.namespace,
      labels: childLabels(APP, name, 'credentials'),
    },
    type: 'Opaque',
    data: {
      [PASSWORD_KEY]: encodedRoot,
      [REPLICATION_KEY]: encodedReplication,
      [PEERS_KEY]: Buffer.from(`${peers.join(' ')}\n`).toString('base64'),
    },
  };
}

/** The pods a Service selects: every pod of the cluster's labels, and (`own`) only those carrying INSTANCE_LABEL. */
function podSelector(name: string, own: boolean): Record<string, string> {
  const selector = selectorLabels(APP, name);
  if (own) selector[INSTANCE_LABEL] = name;
  return selector;
}

export function headlessService(parent: ParentObject, n: Names, own = true): KubeObject {
  const name = parent.metadata.name;
  return serviceChild(
    parent,
    n.headless,
    childLabels(APP, name, 'database'),
    podSelector(name, own),
    [{ name: 'mysql', port: MYSQL_PORT }],
    { headless: true },
  );
}

/** The client Service: writes go to member 0, the primary, and nowhere else. */
export function clientService(parent: ParentObject, n: Names, own = true): KubeObject {
  const name = parent.metadata.name;
  const selector = podSelector(name, own);
  selector[POD_NAME_LABEL] = n.member(0);
  return serviceChild(parent, n.client, childLabels(APP, name, 'primary'), selector, [
    { name: 'mysql', port: MYSQL_PORT },
  ]);
}

/** The read Service: every Ready member. */
export function readService(parent: ParentObject, n: Names, own = true): KubeObject {
  const name = parent.metadata.name;
  return serviceChild(parent, n.read, childLabels(APP, name, 'read'), podSelector(name, own), [
    { name: 'mysql', port: MYSQL_PORT },
  ]);
}

/**
 * Whether the Services select on INSTANCE_LABEL: once one does (observed), for good; before, once the observed
 * StatefulSet's template carries it and every member pod does (a cluster from before the label rolls its members once;
 * switching earlier would leave the Services without endpoints mid-roll); a new cluster at once.
 */
export function serviceSelectsOwn(request: CompositeSyncRequest, n: Names): boolean {
  const name = request.parent.metadata.name;
  for (const svc of [n.client, n.read, n.headless]) {
    const observed = observedNamed(request.children, 'Service', 'v1', svc);
    const selector = (observed?.['spec'] as { selector?: Record<string, unknown> } | undefined)?.selector;
    if (selector?.[INSTANCE_LABEL] === name) return true;
  }
  const sts = observedNamed(request.children, 'StatefulSet', 'apps/v1', n.statefulSet);
  if (!sts) return true;
  const template = (sts['spec'] as { template?: { metadata?: { labels?: Record<string, unknown> } } } | undefined)
    ?.template;
  if (template?.metadata?.labels?.[INSTANCE_LABEL] !== name) return false;
  return memberPods(request, n).every((p) => p.metadata.labels?.[INSTANCE_LABEL] === name);
}

/**
 * The claim template as the API server stores it (apiVersion and kind filled in, volumeMode defaulted, a
 * `status: {phase: Pending}`). Metacontroller replaces a list without a `name` key as a whole: an answer that
 * lacked what the server adds would differ from the stored StatefulSet at every sync and be written again.
 */
export function volumeClaimTemplate(spec: Spec, uid = ''): Record<string, unknown> {
  const claimSpec: Record<string, unknown> = {
    accessModes: ['ReadWriteOnce'],
    resources: { requests: { storage: spec.storage.size } },
  };
  // "" is kept (where the server allows it): a claim without a class, which the default StorageClass does not
  // provision (pre-made volumes only).
  if (spec.storage.storageClassName !== undefined) claimSpec['storageClassName'] = spec.storage.storageClassName;
  claimSpec['volumeMode'] = 'Filesystem';
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    // The claims the StatefulSet makes carry this cluster's UID (CLAIM_UID_LABEL): how its data is told from another's.
    metadata: { name: 'data', ...(uid ? { labels: { [CLAIM_UID_LABEL]: uid } } : {}) },
    spec: claimSpec,
    status: { phase: 'Pending' },
  };
}

/** The official mysql image runs as mysql (999): Pod Security `restricted` for every container. */
export const MYSQL_UID = 999;
const containerSecurity = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
};

const CONF_DIR = '/etc/mysql/conf.d';
const CLIENT_DIR = '/etc/mysql-client';

function secretEnv(name: string, envName: string, key: string) {
  return { name: envName, valueFrom: { secretKeyRef: { name: namesOf(name).secret, key } } };
}

export function statefulSet(
  parent: ParentObject,
  spec: Spec,
  /** The claim templates: the spec's for a new cluster, the stored ones once the StatefulSet exists. */
  claimTemplates: unknown[],
  n: Names = namesOf(parent.metadata.name),
  options: {
    /** The server's cluster domain (MySQLSettings): member names are fully qualified in it. */
    domain?: string | undefined;
    /** Its passwords are new and their Secret not yet seen (NEW_CREDENTIALS_ANNOTATION). */
    credentialsUnseen?: boolean;
  } = {},
): KubeObject {
  const { domain = CLUSTER_DOMAIN_DEFAULT, credentialsUnseen = false } = options;
  const name = parent.metadata.name;
  const version = mysqlVersion(spec.version);
  const image = `mysql:${version}`;
  const labels = childLabels(APP, name, 'database', { version });
  const podLabels = { ...labels, ...seedLabels(name), [INSTANCE_LABEL]: name };
  const podName = { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } };
  const headless = serviceHost(n.headless, parent.metadata.namespace ?? 'default', domain);
  const dirs = [
    { name: 'CONF_DIR', value: CONF_DIR },
    { name: 'CLIENT_DIR', value: CLIENT_DIR },
    { name: 'MYSQL_HOST', value: '127.0.0.1' },
    { name: 'MYSQL_PORT', value: String(MYSQL_PORT) },
  ];
  const mounts = [
    { name: 'conf', mountPath: CONF_DIR },
    { name: 'client', mountPath: CLIENT_DIR },
  ];
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: {
      name: n.statefulSet,
      namespace: parent.metadata.namespace,
      labels,
      ...(credentialsUnseen ? { annotations: { [NEW_CREDENTIALS_ANNOTATION]: 'true' } } : {}),
    },
    spec: {
      replicas: spec.size,
      serviceName: n.headless,
      // All members start at once (a new cluster's StatefulSet only: the field cannot change), so that member 0,
      // coming back, can ask the others what data they hold before it opens for writes (scripts.ts).
      ...(n.legacy ? {} : { podManagementPolicy: 'Parallel' }),
      selector: { matchLabels: selectorLabels(APP, name) },
      template: {
        metadata: { labels: podLabels },
        spec: {
          terminationGracePeriodSeconds: 30,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: MYSQL_UID,
            runAsGroup: MYSQL_UID,
            fsGroup: MYSQL_UID,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          initContainers: [
            {
              name: 'config',
              image,
              command: ['bash', '-c', CONFIG_SCRIPT],
              env: [podName, secretEnv(name, 'MYSQL_ROOT_PASSWORD', PASSWORD_KEY), ...dirs],
              volumeMounts: mounts,
              securityContext: containerSecurity,
            },
          ],
          containers: [
            serverContainer(name, image, mounts),
            replicationContainer({ name, image, n, headless, podName, dirs, mounts }),
          ],
          volumes: podVolumes(name),
        },
      },
      volumeClaimTemplates: claimTemplates,
    },
  };
}

/** The member pod's volumes besides its data claim: its config, its client options, the Secret's peers key. */
function podVolumes(name: string) {
  return [
    { name: 'conf', emptyDir: {} },
    { name: 'client', emptyDir: { medium: 'Memory' } },
    // Only the peers key (not the passwords); optional, so that a Secret from before it is not a failed mount.
    {
      name: 'peers',
      secret: {
        secretName: namesOf(name).secret,
        items: [{ key: PEERS_KEY, path: PEERS_KEY }],
        optional: true,
      },
    },
  ];
}

type EnvVar = { name: string; value?: string; valueFrom?: unknown };
type Mount = { name: string; mountPath: string };

/** The member's MySQL server: its root password from the cluster's Secret, its data on the member's claim. */
/**
 * The containers a member's pod runs of the cluster's own (its init container `config`, the server `mysql` and the
 * `replication` sidecar): the only ones its Degraded reads (lib/replicas.ts podFailure). An injected sidecar waiting
 * for its image is not the member failing.
 */
export const MEMBER_CONTAINERS: ReadonlySet<string> = new Set(['config', 'mysql', REPLICATION_CONTAINER]);

function serverContainer(name: string, image: string, mounts: Mount[]) {
  return {
    name: 'mysql',
    image,
    env: [
      secretEnv(name, 'MYSQL_ROOT_PASSWORD', PASSWORD_KEY),
      // Time zone tables would be written to the binary log of every member on its first start.
      { name: 'MYSQL_INITDB_SKIP_TZINFO', value: '1' },
    ],
    ports: [{ name: 'mysql', containerPort: MYSQL_PORT, protocol: 'TCP' }],
    volumeMounts: [{ name: 'data', mountPath: '/var/lib/mysql' }, ...mounts],
    readinessProbe: {
      exec: { command: SERVER_PROBE },
      initialDelaySeconds: 10,
      periodSeconds: 5,
    },
    livenessProbe: {
      tcpSocket: { port: 'mysql' },
      initialDelaySeconds: 30,
      periodSeconds: 10,
    },
    securityContext: containerSecurity,
  };
}

/** What the replication sidecar is made of (statefulSet). */
interface SidecarParts {
  name: string;
  image: string;
  n: Names;
  /** The headless Service's fully qualified host. */
  headless: string;
  podName: EnvVar;
  dirs: EnvVar[];
  mounts: Mount[];
}

/** The member's replication sidecar: finds the primary (member 0) and its peers, and says why member 0 waits. */
function replicationContainer({ name, image, n, headless, podName, dirs, mounts }: SidecarParts) {
  return {
    name: REPLICATION_CONTAINER,
    image,
    command: ['bash', '-c', REPLICATION_SCRIPT],
    env: [
      podName,
      secretEnv(name, 'REPLICATION_PASSWORD', REPLICATION_KEY),
      // Fully qualified: `<pod>.<headless>` alone is tried as Service <pod> of namespace <headless> first
      // (the pod's search domains, ndots 5) whenever the member's own record is missing (lib/names.ts).
      { name: 'PRIMARY_HOST', value: `${n.member(0)}.${headless}` },
      // Member 0 asks the others what they hold: <statefulset>-<ordinal>.<headless>.<ns>.svc.<domain>.
      { name: 'PEER_HOST_FORMAT', value: `${n.statefulSet}-%s.${headless}` },
      // Which of them may hold data: a key of the Secret, mounted, so that it follows a scale.
      { name: 'PEERS_FILE', value: `${PEERS_DIR}/${PEERS_KEY}` },
      // Why member 0 stays read-only, where the kubelet reports it (primaryRefusal reads it back).
      { name: 'TERMINATION_LOG', value: '/dev/termination-log' },
      { name: 'PRIMARY_PORT', value: String(MYSQL_PORT) },
      ...dirs,
    ],
    volumeMounts: [...mounts, { name: 'peers', mountPath: PEERS_DIR, readOnly: true }],
    readinessProbe: {
      exec: { command: ['bash', '-c', REPLICATION_PROBE] },
      initialDelaySeconds: 5,
      periodSeconds: 5,
      // A few local queries (the replica's status, its position against the one recorded): more than the default 1 s
      // on a loaded node would read as not Ready.
      timeoutSeconds: 5,
    },
    securityContext: containerSecurity,
  };
}

/** The bytes (base64, as stored in Secret.data) of one key of an observed Secret, if it holds a usable value. */
export function observedKey(observedSecret: KubeObject | undefined, key: string): string | undefined {
  const data = observedSecret?.['data'] as Record<string, unknown> | undefined;
  const value = data && typeof data === 'object' && Object.hasOwn(data, key) ? data[key] : undefined;
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** The root password bytes of an observed Secret, if it holds a usable one. */
export function observedPassword(observedSecret: KubeObject | undefined): string | undefined {
  return observedKey(observedSecret, PASSWORD_KEY);
}

/**
 * The data volumes (claims) of this cluster's members that exist under names `n`, from a previous cluster or this
 * one: named as its StatefulSet names them and labelled as it labels them (a claim of that name that another owner
 * made is not this cluster's data: takenNames says so).
 */
export function existingVolumes(request: CompositeSyncRequest, n: Names): string[] {
  return volumeClaims(request, n)
    .map((c) => c.metadata.name!)
    .sort();
}

/**
 * The data volumes of existingVolumes whose claim was never bound: phase Pending (a bound claim never goes back to
 * Pending; it is Lost if its volume goes) and bound to no volume by name (a claim pre-bound to a volume that exists may
 * be given that volume's data).
 */
export function neverBoundVolumes(request: CompositeSyncRequest, n: Names): string[] {
  return volumeClaims(request, n)
    .filter((c) => {
      const phase = (c['status'] as { phase?: unknown } | undefined)?.phase;
      const volumeName = (c['spec'] as { volumeName?: unknown } | undefined)?.volumeName;
      return phase === 'Pending' && !volumeName;
    })
    .map((c) => c.metadata.name!)
    .sort();
}

function volumeClaims(request: CompositeSyncRequest, n: Names, mine = true): KubeObject[] {
  const name = request.parent.metadata.name;
  const wanted = new Set(Array.from({ length: MAX_SIZE }, (_, i) => n.volume(i)));
  return observedUnordered(request.related, 'PersistentVolumeClaim', 'v1').filter(
    (c) =>
      c &&
      // Stryker disable next-line ConditionalExpression: any other value has no metadata: dropped next
      typeof c === 'object' &&
      c.metadata &&
      wanted.has(c.metadata.name) &&
      !isTerminating(c) &&
      (mine ? volumeOurs(request, n, c) : labelledAsOurs(name, c)),
  );
}

export interface MemberState {
  name: string;
  role: 'primary' | 'replica';
  ready: boolean;
  /**
   * Replicas only: the replication container is Ready: both replication threads run and the member holds what member 0
   * held when its sidecar last looked (scripts.ts REPLICATION_PROBE); false while it copies after a volume loss.
   */
  replicating?: boolean;
}

function ordinalOf(clusterName: string, podName: string): number | undefined {
  const prefix = `${clusterName}-`;
  if (!podName.startsWith(prefix)) return undefined;
  const rest = podName.slice(prefix.length);
  return /^(0|[1-9][0-9]*)$/.test(rest) ? Number(rest) : undefined;
}

function containerReady(pod: KubeObject, container: string): boolean {
  const statuses = (pod['status'] as { containerStatuses?: unknown } | undefined)?.containerStatuses;
  if (!Array.isArray(statuses)) return false;
  return statuses.some(
    (s) =>
      s &&
      // Stryker disable next-line ConditionalExpression: any other value has no name: dropped next
      typeof s === 'object' &&
      (s as { name?: unknown }).name === container &&
      (s as { ready?: unknown }).ready === true,
  );
}

/** Each member pod: its role, readiness and (for a replica) whether it replicates. */
export function memberStates(name: string, pods: KubeObject[]): MemberState[] {
  const out: Array<MemberState & { ordinal: number }> = [];
  for (const pod of pods) {
    const ordinal = ordinalOf(name, pod.metadata.name!);
    if (ordinal === undefined) continue;
    const state: MemberState & { ordinal: number } = {
      ordinal,
      name: pod.metadata.name!,
      role: ordinal === 0 ? 'primary' : 'replica',
      ready: isPodReady(pod),
    };
    if (ordinal > 0) state.replicating = containerReady(pod, REPLICATION_CONTAINER);
    out.push(state);
  }
  return out.sort((a, b) => a.ordinal - b.ordinal).map(({ ordinal: _o, ...m }) => m);
}

/**
 * The MySQL version the pods run (the tag of their mysql container's image, lib/images.ts: never its digest); several
 * during a rollout.
 */
export function runningVersion(pods: KubeObject[]): string | undefined {
  const tags = new Set<string>();
  for (const pod of pods) {
    const containers = (pod['spec'] as { containers?: unknown } | undefined)?.containers;
    if (!Array.isArray(containers)) continue;
    const mysql = containers.find((c) => c && typeof c === 'object' && (c as { name?: unknown }).name === 'mysql') as
      { image?: unknown } | undefined;
    if (typeof mysql?.image !== 'string') continue;
    // The tag, whatever digest an admission policy pinned the image to (`mysql:8.4.3@sha256:...` runs 8.4.3); when
    // the policy took the tag off (Sigstore's policy-controller: `mysql@sha256:...`), the version the hook gave with
    // it, recorded on the pod (and the StatefulSet's template) as its version label: the hook's own record.
    const tag = imageTag(mysql.image) ?? recordedTag(pod, mysql.image);
    if (tag !== undefined) tags.add(tag);
  }
  return tags.size ? [...tags].sort().join(', ') : undefined;
}

/** The label the hook records a member's version with (lib/labels.ts childLabels), the pod template's and the pods'. */
const VERSION_LABEL = 'app.kubernetes.io/version';

/**
 * The version a pod (or pod template) whose mysql image has no tag was given with it (statefulSet: its
 * app.kubernetes.io/version label), when the image is that one pinned by digest (lib/images.ts asGiven: the tag taken
 * off); else undefined (no version known).
 */
function recordedTag(pod: KubeObject, image: string): string | undefined {
  const label = pod.metadata?.labels?.[VERSION_LABEL];
  if (typeof label !== 'string' || !VERSION_PATTERN.test(label)) return undefined;
  const given = imageAtTag(image, label);
  return given !== undefined && asGiven(image, given, true) && asGiven(given, `mysql:${label}`) ? label : undefined;
}

/** `spec.version` when it is neither a string nor a number: what the field takes, not a schema's words. */
export function versionTypeProblem(spec: unknown): string | undefined {
  if (!spec || typeof spec !== 'object') return undefined;
  const version = (spec as { version?: unknown }).version;
  if (version === undefined || typeof version === 'string' || typeof version === 'number') return undefined;
  return (
    `spec.version is ${quoted(version)}: expected a MySQL version as a string, ` +
    'such as "8.0" or "8.0.36" (an unquoted 8.0 is read as 8, which means 8.0)'
  );
}

/** The names a cluster's name makes under `n`, with the longest suffix of each rule. */
function derivedNames(n: Names): DerivedName[] {
  const base = n.legacy ? '' : '-mysql';
  return [
    { what: 'Service', rule: 'dns1035', suffix: `${base}-headless` },
    {
      what: 'StatefulSet',
      rule: 'dns1123Label',
      suffix: base,
      max: 52,
      why: "a StatefulSet's pods carry its name and an 11-character revision hash in a label of at most 63",
    },
    { what: 'label app.kubernetes.io/instance', rule: 'labelValue' },
    { what: 'Secret', rule: 'dns1123Subdomain', suffix: '-mysql' },
  ];
}

/** A name the cluster's Services, StatefulSet, pods, labels or Secret cannot carry. */
export function nameProblem(parent: ParentObject, request: CompositeSyncRequest): string | undefined {
  const name = parent.metadata.name;
  return parentNameProblem(name, derivedNames(namesOf(name, legacyNames(request))));
}

/** The status the kubelet reports of a pod's mysql container, if any. */
function mysqlStatus(pod: KubeObject): Record<string, unknown> | undefined {
  const statuses = (pod['status'] as { containerStatuses?: unknown } | undefined)?.containerStatuses;
  if (!Array.isArray(statuses)) return undefined;
  return (statuses as unknown[]).find(
    (c): c is Record<string, unknown> =>
      typeof c === 'object' && c !== null && (c as { name?: unknown }).name === 'mysql',
  );
}

/** Waiting reasons of a container whose image was never pulled: it never started on that image. */
const PULL_FAILURES = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull']);

/**
 * Whether a pod's mysql container never started on its image: it waits on a pull that fails (a tag that does not
 * exist, a registry that refuses), has no image ID and never ended (no lastState). Such a pod wrote nothing with it.
 */
export function neverStarted(pod: KubeObject): boolean {
  const mysql = mysqlStatus(pod);
  if (!mysql) return false;
  const waiting = (mysql['state'] as { waiting?: { reason?: unknown } } | undefined)?.waiting?.reason;
  const ended = (mysql['lastState'] as { terminated?: unknown } | undefined)?.terminated;
  return PULL_FAILURES.has(waiting as string) && !mysql['imageID'] && !ended;
}

/**
 * The newest MySQL version the members ran or may have run: each member pod's image (unless it never started on it),
 * and the StatefulSet's template (what a member recreated now gets). The template is left out only when it is
 * evidently a version no member ever started on: every member below the StatefulSet's replicas is observed, and each
 * that was given the template's image waits on a pull that fails (a typo, a tag the registry does not have), so
 * reverting it is no downgrade. A data directory written by a newer MySQL cannot be opened by an older one.
 */
export function runningNumbers(request: CompositeSyncRequest, n: Names): number[] | undefined {
  const sts = observedNamed(request.children, 'StatefulSet', 'apps/v1', n.statefulSet);
  const template = (sts?.['spec'] as { template?: KubeObject } | undefined)?.template;
  const pods = memberPods(request, n);
  const given = template && typeof template === 'object' ? runningVersion([template as KubeObject]) : undefined;
  const tags = [
    ...(given !== undefined && !neverRan(sts!, given, pods, n) ? [given] : []),
    runningVersion(pods.filter((p) => !neverStarted(p))),
  ].flatMap((list) => versionTags(list).map((v) => v.numbers));
  // The newest: a floating tag (8) before the releases under it (8.0, 8.0.36).
  return tags.sort(newestFirst)[0];
}

/** Whether no member ever started on the template's version `given` (runningNumbers). */
function neverRan(sts: KubeObject, given: string, pods: KubeObject[], n: Names): boolean {
  const replicas = (sts['spec'] as { replicas?: unknown } | undefined)?.replicas;
  if (typeof replicas !== 'number') return false;
  const seen = new Set(pods.map((p) => memberOrdinal(n, p)));
  for (let i = 0; i < replicas; i++) if (!seen.has(i)) return false;
  return pods.every((p) => runningVersion([p]) !== given || neverStarted(p));
}

/**
 * Whether a pod's mysql container ever started on its image (the kubelet says so: it runs, ran or ended, was
 * restarted, is ready, or its image was pulled and the container made: an image ID). A pod Pending, or waiting on a
 * pull, did not: it wrote nothing with that version. What status.version records (sync).
 */
export function ranItsImage(pod: KubeObject): boolean {
  const mysql = mysqlStatus(pod);
  if (!mysql) return false;
  const state = (mysql['state'] ?? {}) as { running?: unknown; terminated?: unknown };
  const last = (mysql['lastState'] ?? {}) as { terminated?: unknown };
  return (
    mysql['ready'] === true ||
    mysql['started'] === true ||
    Boolean(state.running) ||
    Boolean(state.terminated) ||
    Boolean(last.terminated) ||
    (typeof mysql['restartCount'] === 'number' && mysql['restartCount'] > 0) ||
    (typeof mysql['imageID'] === 'string' && mysql['imageID'] !== '')
  );
}

/** The longest status.version read back (the hook's own record: a few tags, comma-separated). */
const RECORDED_VERSION_MAX = 200;

/**
 * The version status.version records, when it is one (observed data: a string, not too long): the versions the
 * members ran (ranVersions), kept while no member pod observed runs a newer one.
 */
export function recordedVersion(parent: ParentObject): string | undefined {
  const v = (parent.status as { version?: unknown } | undefined)?.version;
  return typeof v === 'string' && v !== '' && v.length <= RECORDED_VERSION_MAX ? v : undefined;
}

/** The tags of a version list (status.version, runningVersion: comma-separated), each with its numbers. */
function versionTags(list: string | undefined): Array<{ tag: string; numbers: number[] }> {
  return (list ?? '')
    .split(',')
    .map((tag) => tag.trim())
    .map((tag) => ({ tag, numbers: versionNumbers(tag) }))
    .filter((v) => v.numbers.length > 0);
}

/** The newest first: a floating tag (8) before the releases under it (8.0, 8.0.36). */
function newestFirst(a: readonly number[], b: readonly number[]): number {
  return atLeastAsNew(a, b) ? (atLeastAsNew(b, a) ? 0 : -1) : 1;
}

/**
 * What status.version records: the versions the members ran. Each version a member pod observed started on
 * (ranItsImage), and each version the record names that no such pod runs one at least as new as: a version that ran
 * is kept while the pod that ran it waits (made again on a node that cannot pull it) or is gone (the StatefulSet
 * deleted, scaled to 0), until a member runs a newer one. A version no member started on (a typo every pod waits on,
 * a new cluster's pods Pending) is never recorded: a cluster none of whose members ever ran records none. The newest
 * are kept when the list would be longer than what is read back (RECORDED_VERSION_MAX).
 */
export function ranVersions(parent: ParentObject, pods: KubeObject[]): string | undefined {
  const started = versionTags(runningVersion(pods.filter(ranItsImage)));
  const kept = versionTags(recordedVersion(parent)).filter(
    (r) => !started.some((s) => atLeastAsNew(s.numbers, r.numbers)),
  );
  const byTag = new Map([...started, ...kept].map((v) => [v.tag, v.numbers]));
  const tags: string[] = [];
  for (const [tag] of [...byTag].sort((a, b) => newestFirst(a[1], b[1])))
    if ([...tags, tag].join(', ').length <= RECORDED_VERSION_MAX) tags.push(tag);
  return tags.length ? tags.sort().join(', ') : undefined;
}

/**
 * The newest version status.version records (recordedVersion), as numbers: a version a member ran (ranVersions),
 * whose data directory may be on a member's volume whatever its pod says now (waiting on a pull of it, gone). A status
 * lost gives none.
 */
function recordedNumbers(parent: ParentObject): number[] | undefined {
  return versionTags(recordedVersion(parent))
    .map((v) => v.numbers)
    .sort(newestFirst)[0];
}

/**
 * A spec.version older than what the cluster runs (runningNumbers) or than what its status records the members ran
 * (recordedNumbers): MySQL does not go back (InvalidSpec, nothing replaced). With neither (no member pod observed,
 * the status lost too), there is no evidence and no floor (docs/mysqlcluster.md).
 */
export function downgradeProblem(parent: ParentObject, request: CompositeSyncRequest): string | undefined {
  const version = (parent.spec as { version?: unknown } | undefined)?.version;
  if (typeof version !== 'string' && typeof version !== 'number') return undefined;
  const wanted = versionNumbers(mysqlVersion(version));
  const n = namesOf(parent.metadata.name, legacyNames(request));
  const observedRun = runningNumbers(request, n);
  // status.version: the versions the members ran, kept while their pods wait on a pull of it or are gone. A pod made
  // again on a version it ran, on a node that cannot pull it, says nothing of the data on its volume; the record does.
  const recorded = recordedNumbers(parent);
  const byRun = observedRun !== undefined && !atLeastAsNew(wanted, observedRun);
  const running = byRun ? observedRun : recorded;
  if (!running || atLeastAsNew(wanted, running)) return undefined;
  const shown = running.join('.');
  const floating =
    compareVersions(wanted, running) === 0
      ? ` (the tag ${shown} floats: it names the newest ${shown}.x, which may be newer than ${quoted(mysqlVersion(version)).slice(1, -1)}; name ${shown} or a newer series)`
      : '';
  const which = byRun
    ? 'which the members run'
    : memberPods(request, n).length === 0
      ? 'which the members ran (status.version records it; no member pod is observed to say what they run now)'
      : 'which the members ran (status.version records it; no member pod observed has started on a newer one since)';
  return `spec.version ${quoted(version)} is older than ${shown}, ${which}${floating}: MySQL cannot open a data directory a newer version wrote (no downgrade; restore a backup into a new cluster instead)`;
}

/** The parent's problems beyond its spec: its name, then a downgrade. */
export function parentProblem(parent: ParentObject, request: CompositeSyncRequest): string | undefined {
  return nameProblem(parent, request) ?? downgradeProblem(parent, request);
}

/** Whether a pod mounts the claim `name` (observed data: any entry may be malformed). */
function mountsClaim(pod: KubeObject, name: string): boolean {
  const volumes = (pod['spec'] as { volumes?: unknown } | undefined)?.volumes;
  if (!Array.isArray(volumes) || name === '') return false;
  return (volumes as unknown[]).some(
    (v) => (v as { persistentVolumeClaim?: { claimName?: unknown } } | null)?.persistentVolumeClaim?.claimName === name,
  );
}

/**
 * What the data volume a pod named as a member mounts says of it: `ours` when the pod mounts the member's claim
 * `data-<statefulset>-<i>` and that claim, observed, is this cluster's (volumeOurs: marked with its uid, or with its own
 * StatefulSet's lineage); `another` when that claim is marked (CLAIM_UID_LABEL) with another uid (a MySQLCluster of
 * this name that was deleted, whose pods the garbage collector has not deleted yet); undefined when it says nothing
 * (no such claim mounted or observed, or an unmarked claim of an earlier metaops).
 */
function claimVerdict(request: CompositeSyncRequest, n: Names, pod: KubeObject): 'ours' | 'another' | undefined {
  const ordinal = memberOrdinal(n, pod);
  if (ordinal === undefined) return undefined;
  const volume = n.volume(ordinal);
  if (!mountsClaim(pod, volume)) return undefined;
  const claim = observedNamed(
    request.related,
    'PersistentVolumeClaim',
    'v1',
    volume,
    request.parent.metadata.namespace ?? '',
  );
  if (!claim) return undefined;
  if (volumeOurs(request, n, claim)) return 'ours';
  const mark = claim.metadata.labels?.[CLAIM_UID_LABEL];
  return typeof mark === 'string' && mark !== '' ? 'another' : undefined;
}

/**
 * Whether a pod was made by this cluster's StatefulSet, or is one of its members that the StatefulSet, made again,
 * adopts. With its StatefulSet observed (a child: its controller is this cluster), a pod whose controller is that one
 * (by UID). A StatefulSet of that name that another owner holds (a Helm release `<name>` of a MySQL chart, a
 * MySQLCluster `<name>-mysql` of the names before the suffix: the cluster is held for the name) made its own pods,
 * never this cluster's. A pod whose controller is a StatefulSet of that name not observed (deleted, its pods not yet)
 * carries the label this cluster's pod template sets (INSTANCE_LABEL), and is not disproven by its data: its claim
 * marked with another uid, or (its claim saying nothing) the pod made before this cluster was. A MySQLCluster of this
 * name deleted and made again at once sees the old cluster's pods so, with the same label, for a while. A pod without
 * a controller (its StatefulSet deleted with --cascade=orphan: the garbage collector removed the pods' owner
 * references) is this cluster's only when proven by its data: the label and its claim this cluster's (claimVerdict).
 * A pod named like a member that something else made (`kubectl run db-mysql-7`, a copy of the labels) holds none of
 * the cluster's data: no member, and no version of it is a floor of spec.version or recorded in status.version.
 */
function madeByStatefulSet(
  request: CompositeSyncRequest,
  n: Names,
  sts: KubeObject | undefined,
  pod: KubeObject,
): boolean {
  const parent = request.parent.metadata;
  const labelled = pod.metadata.labels?.[INSTANCE_LABEL] === parent.name;
  const ref = controllerOf(pod);
  if (!ref) return labelled && claimVerdict(request, n, pod) === 'ours';
  if (ref.kind !== 'StatefulSet' || ref.name !== n.statefulSet) return false;
  if (sts) return ref.uid === sts.metadata.uid;
  const other = observedNamed(request.related, 'StatefulSet', 'apps/v1', n.statefulSet, parent.namespace ?? '');
  if (other && ref.uid === other.metadata.uid)
    return parent.uid !== undefined && controllerOf(other)?.uid === parent.uid;
  if (!labelled) return false;
  const verdict = claimVerdict(request, n, pod);
  if (verdict !== undefined) return verdict === 'ours';
  const [made, since] = [creationTime(pod), creationTime(request.parent)];
  return made === undefined || since === undefined || made >= since;
}

/**
 * Whether a pod was made by another owner's StatefulSet of this cluster's StatefulSet's name (observed among the related
 * objects, not this cluster's). Not a member (madeByStatefulSet), and not named as a taken member either: the answer is
 * held for the StatefulSet's name itself (StatefulSetNameTaken, naming its owner: lib/ownership.ts guardAnswer), which
 * holds its pods' names with it.
 */
function madeByHolder(request: CompositeSyncRequest, n: Names, sts: KubeObject | undefined, pod: KubeObject): boolean {
  if (sts) return false;
  const ref = controllerOf(pod);
  const other = observedNamed(
    request.related,
    'StatefulSet',
    'apps/v1',
    n.statefulSet,
    request.parent.metadata.namespace ?? '',
  );
  return ref?.kind === 'StatefulSet' && !!other && ref.uid === other.metadata.uid;
}

/** The member pods among the related objects: named as members and made by this cluster's StatefulSet. */
export function memberPods(request: CompositeSyncRequest, n: Names): KubeObject[] {
  const sts = observedNamed(request.children, 'StatefulSet', 'apps/v1', n.statefulSet);
  return observedUnordered(request.related, 'Pod', 'v1').filter(
    (p) => memberOrdinal(n, p) !== undefined && madeByStatefulSet(request, n, sts, p),
  );
}

/** The ordinal of a member pod of this cluster, by its name. */
function memberOrdinal(n: Names, pod: KubeObject): number | undefined {
  return ordinalOf(n.statefulSet, pod.metadata.name!);
}

/**
 * The pods and data volumes the StatefulSet will make for members below `size` that another owner holds: a pod of
 * that name not made by this cluster's StatefulSet (nor by another owner's StatefulSet of its name: madeByHolder), a claim of that name not labelled as this cluster's (the
 * StatefulSet would mount it: another owner's data).
 */
export function takenMembers(
  request: CompositeSyncRequest,
  n: Names,
  size: number,
  now: Date,
): ReturnType<typeof takenNames> {
  const wanted: ChildName[] = [];
  for (let i = 0; i < size; i++) {
    wanted.push({ apiVersion: 'v1', kind: 'Pod', name: n.member(i) });
    wanted.push({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', name: n.volume(i) });
  }
  const sts = observedNamed(request.children, 'StatefulSet', 'apps/v1', n.statefulSet);
  // A member's name (or a claim's) held by an EtcdCluster or a PodSet stays held while its holder exists and wants
  // it, even while that pod is gone for a moment (status.heldBy, lib/holders.ts): the StatefulSet would take it.
  // Customize asks for those holders by name (lib/holders.ts holderRules, added by defineComposite).
  return takenNames(
    request,
    wanted,
    (child, obj) =>
      child.kind === 'PersistentVolumeClaim'
        ? volumeOurs(request, n, obj)
        : madeByStatefulSet(request, n, sts, obj) || madeByHolder(request, n, sts, obj),
    holderJudge(now),
  );
}

/**
 * What a MySQLCluster served (lib/ownership.ts HeldOptions.served), from its status and, the status lost, from its
 * children: Ready, a Ready member, a member whose server started, a data volume of its own (volumeOurs) bound to a
 * volume. Undefined when none: made together with a parent
 * made before it that wants its names, it yields (releases its Services and StatefulSet that parent wants). Its data
 * volumes are never released: a StatefulSet deleted keeps its claims.
 */
export function served(request: CompositeSyncRequest): string | undefined {
  const said = servedByStatus(request.parent);
  if (said) return said;
  const members = (request.parent.status as { members?: unknown } | undefined)?.members;
  if (Array.isArray(members) && members.some((m) => (m as { ready?: unknown } | null)?.ready === true))
    return 'its status lists a Ready member';
  const n = namesOf(request.parent.metadata.name, legacyNames(request));
  const sts = observedNamed(request.children, 'StatefulSet', 'apps/v1', n.statefulSet);
  const stsReady = (sts?.['status'] as { readyReplicas?: unknown } | undefined)?.readyReplicas;
  if (typeof stsReady === 'number' && stsReady > 0) return `its StatefulSet ${n.statefulSet} has Ready pods`;
  const started = memberPods(request, n).find((p) => isPodReady(p) || containersStarted(p));
  if (started) return `its member ${started.metadata.name} ran`;
  // Its status lost and its pods not started (recreated after a node drain, Pending): its own data volumes, bound,
  // say it served; releasing its StatefulSet and Services on that doubt would hand its clients to another parent.
  const volumes = boundVolumes(request, n);
  if (volumes.length === 0) return undefined;
  const more = volumes.length > 1 ? ` (and ${volumes.length - 1} more)` : '';
  return `its data volume ${volumes[0]} is bound${more}`;
}

/** This cluster's own data volumes (volumeOurs) that are bound to a volume, by name. */
function boundVolumes(request: CompositeSyncRequest, n: Names): string[] {
  return volumeClaims(request, n)
    .filter((c) => {
      const phase = (c['status'] as { phase?: unknown } | undefined)?.phase;
      const volumeName = (c['spec'] as { volumeName?: unknown } | undefined)?.volumeName;
      return phase === 'Bound' || (typeof volumeName === 'string' && volumeName !== '');
    })
    .map((c) => c.metadata.name!)
    .sort();
}

/**
 * A held answer whose taken names include data volumes: Ready says what they are and what the user can do. A claim
 * another object controls (controlledByAnother: an EtcdCluster's member volume, another MySQLCluster's) is that
 * owner's live data: named with its owner, and no command is offered (no label makes it this cluster's, and deleting
 * it would delete the owner's data). A claim without a controller (made by hand, or left by a MySQL or a MySQLCluster
 * of this name that was deleted) may be deleted (its data is not wanted) or adopted (CLAIM_UID_LABEL set to this
 * cluster's UID: it is this cluster's data). A claim not observed (held for a holder that wants it) gets neither. The
 * StatefulSet is not made, so nothing mounts them.
 */
function withClaimAdvice(
  request: CompositeSyncRequest,
  held: CompositeSyncResponse,
  taken: ReturnType<typeof takenNames>,
): CompositeSyncResponse {
  const parent = request.parent;
  const ns = parent.metadata.namespace ?? 'default';
  const [owned, loose]: [KubeObject[], KubeObject[]] = [[], []];
  for (const t of taken) {
    if (t.child.kind !== 'PersistentVolumeClaim') continue;
    const claim = observedNamed(request.related, 'PersistentVolumeClaim', 'v1', t.child.name, ns);
    if (claim) (controllerOf(claim) ? owned : loose).push(claim);
  }
  const named = (claims: KubeObject[]) => {
    const list = claims
      .slice(0, 3)
      .map((c) => c.metadata.name)
      .join(' ');
    return [list, claims.length > 3 ? ` (and ${claims.length - 3} more: the same for each)` : ''];
  };
  let advice = '';
  if (owned.length > 0) {
    const [list, more] = named(owned);
    advice +=
      ` The PersistentVolumeClaims ${list}${more} are the data of their controller (${holderOf(owned[0]!)}` +
      `${owned.length > 1 ? ', for the first' : ''}): no member of this MySQLCluster mounts them, and no label makes ` +
      `them its own; give this MySQLCluster another name.`;
  }
  if (loose.length > 0) {
    const [list, more] = named(loose);
    advice +=
      ` The PersistentVolumeClaims ${list}${more} were not made for this MySQLCluster (their label ${CLAIM_UID_LABEL} ` +
      `is not its uid) and have no controller: made by hand, or left by another MySQL or by a MySQLCluster of this ` +
      `name that was deleted; no member mounts them. If that data is not wanted, delete them: kubectl -n ${ns} ` +
      `delete pvc ${list}. If it is this cluster's to keep, adopt them: kubectl -n ${ns} label pvc ${list} ` +
      `${CLAIM_UID_LABEL}=${parent.metadata.uid ?? ''} --overwrite (docs/mysqlcluster.md, "Data volumes another MySQL left").`;
  }
  if (advice === '') return held;
  const status = held.status as Status;
  // The held message (lib/ownership.ts takenCondition) ends without a full stop: the advice is its next sentence.
  const conditions = (status['conditions'] as Array<Record<string, unknown>>).map((c) =>
    c['type'] === 'Ready' ? { ...c, message: `${textOf(c['message'])}.${advice}` } : c,
  );
  return { ...held, status: { ...status, conditions } };
}

/** Why member 0 refuses to open for writes, as its replication sidecar said on exit (scripts.ts), if it does. */
export interface PrimaryRefusal {
  reason: 'PrimaryBehind' | 'PrimaryUnverified';
  /** The sidecar's own words, after the marker. */
  detail: string;
}

/** The longest part of the sidecar's message copied into the status. */
const REFUSAL_MAX = 400;

/**
 * Member 0's refusal to open, read from its replication container: not ready, and its last termination message
 * starts with a marker the script writes. A container that has since become ready opened: its old message is over.
 */
export function primaryRefusal(pod: KubeObject | undefined): PrimaryRefusal | undefined {
  const statuses = (pod?.['status'] as { containerStatuses?: unknown } | undefined)?.containerStatuses;
  if (!Array.isArray(statuses)) return undefined;
  const sidecar = (statuses as unknown[]).find(
    (c): c is Record<string, unknown> =>
      typeof c === 'object' && c !== null && (c as { name?: unknown }).name === REPLICATION_CONTAINER,
  );
  if (!sidecar || sidecar['ready'] === true) return undefined;
  for (const field of ['state', 'lastState']) {
    const message = (sidecar[field] as { terminated?: { message?: unknown } } | undefined)?.terminated?.message;
    if (typeof message !== 'string') continue;
    for (const [marker, reason] of [
      [PRIMARY_BEHIND, 'PrimaryBehind'],
      [PRIMARY_UNVERIFIED, 'PrimaryUnverified'],
    ] as const) {
      if (message.startsWith(marker)) {
        const detail = message.slice(marker.length).trim().replace(/\s+/g, ' ');
        return { reason, detail: detail.length > REFUSAL_MAX ? `${detail.slice(0, REFUSAL_MAX - 3)}...` : detail };
      }
    }
  }
  return undefined;
}

/** The replicas Ready: they serve reads while member 0 takes no writes (scripts.ts REPLICATION_PROBE). */
export function readersOf(members: readonly MemberState[]): string[] {
  return members.filter((m) => m.role === 'replica' && m.ready).map((m) => m.name);
}

/**
 * Ready=False for a member 0 that stays read-only: the case, whether reads go on (`readers`: the replicas Ready, which
 * serve reads while member 0 takes no writes: scripts.ts REPLICATION_PROBE), and what the user can do.
 */
export function refusalCondition(n: Names, refusal: PrimaryRefusal, readers: readonly string[] = []): ConditionInput {
  const reads =
    readers.length > 0
      ? `Reads go on: ${readers.join(', ')} (holding everything member 0 holds) ${readers.length === 1 ? 'serves' : 'serve'} them through Service ${n.read}`
      : `No replica serves reads now (none is Ready)`;
  const what =
    refusal.reason === 'PrimaryBehind'
      ? `${n.member(0)} holds fewer transactions than a replica (its data directory was lost or replaced): ${refusal.detail}. It stays read-only and takes no writes, so nothing a replica holds is lost. ${reads}. To recover, give member 0 the data of the replica that has the most (clone it, or restore a backup into its volume), or, if that data is to be given up, delete the replicas' volumes`
      : `${n.member(0)} has no data yet and cannot ask every replica whether it holds any: ${refusal.detail}. It stays read-only until they answer. If a replica's data is gone for good, delete that replica's volume`;
  return {
    type: 'Ready',
    status: false,
    reason: refusal.reason,
    message: `${what} (docs/mysqlcluster.md, "A primary with less data than its replicas").`,
  };
}

/**
 * How to give the cluster its root password back, as commands to run (test/e2e runs them word for word). A Secret
 * that exists is the cluster's child already: its key is put back. One that is gone is created with the label
 * `controller-uid=<the parent's uid>`: Metacontroller adopts only a Secret its generated selector matches, and a
 * Secret without it would stay someone else's.
 */
export function recovery(parent: ParentObject, secretName: string, exists: boolean): string {
  const ns = parent.metadata.namespace ?? 'default';
  if (exists)
    return (
      `Put that password back under key ${PASSWORD_KEY}: kubectl -n ${ns} patch secret ${secretName} --type=merge ` +
      `-p '{"stringData":{"${PASSWORD_KEY}":"<password>"}}'`
    );
  const uid = parent.metadata.uid ?? '';
  return (
    `Create it with that password and the label controller-uid=${uid}, which lets Metacontroller adopt it: ` +
    `kubectl -n ${ns} create secret generic ${secretName} --from-literal=${PASSWORD_KEY}=<password> && ` +
    `kubectl -n ${ns} label secret ${secretName} controller-uid=${uid}`
  );
}

/** Who a Secret that is not the cluster's child belongs to, in words. */
function strayWords(obj: KubeObject): string {
  if (controllerOf(obj)) return `it belongs to ${holderOf(obj)}`;
  const uid = obj.metadata.labels?.['controller-uid'];
  return typeof uid === 'string' && uid
    ? `it has no controller and the label controller-uid=${uid.slice(0, 63)}: left behind by a cluster of this name deleted with --cascade=orphan`
    : 'it has no controller: left behind, or made by hand';
}

/**
 * How to give the cluster a Secret of its name that exists but is not its child. One without a controller is
 * adopted by Metacontroller once it carries the label `controller-uid=<the parent's uid>` (the one it has, from the
 * cluster before, is replaced); it holds the password the data volumes were made with, so it is kept, never deleted.
 * One that another owner controls is that owner's.
 */
export function adoption(parent: ParentObject, secretName: string, obj: KubeObject): string {
  const ns = parent.metadata.namespace ?? 'default';
  const uid = parent.metadata.uid ?? '';
  if (controllerOf(obj))
    return `Rename this MySQLCluster, or give it the password another way: the Secret is not taken from its owner.`;
  return (
    `If it holds the password the data volumes were made with (do not delete it: it may be the only copy), let ` +
    `Metacontroller adopt it into this cluster: kubectl -n ${ns} label secret ${secretName} controller-uid=${uid} --overwrite`
  );
}

/** The root and replication passwords a new cluster gets: 24 random bytes each. */
const PASSWORD_BYTES = 24;

/** Whether any container of a pod (init or not) ever started: running, ended, restarted, or given a container. */
export function everStarted(pod: KubeObject): boolean {
  const status = pod['status'] as { initContainerStatuses?: unknown; containerStatuses?: unknown } | undefined;
  const all = [status?.initContainerStatuses, status?.containerStatuses].flatMap((l) => (Array.isArray(l) ? l : []));
  return (all as unknown[]).some((c) => {
    if (typeof c !== 'object' || c === null) return false;
    const s = c as { state?: Record<string, unknown>; lastState?: Record<string, unknown>; restartCount?: unknown };
    return (
      s.state?.['running'] !== undefined ||
      s.state?.['terminated'] !== undefined ||
      s.lastState?.['terminated'] !== undefined ||
      (typeof s.restartCount === 'number' && s.restartCount > 0) ||
      (typeof (c as { containerID?: unknown }).containerID === 'string' &&
        (c as { containerID: string }).containerID !== '')
    );
  });
}

/**
 * Whether no member ever ran on this cluster's volumes, so that new passwords lose nothing: the StatefulSet was made
 * with new passwords for a cluster without data volumes and their Secret has not been seen since (its annotation,
 * NEW_CREDENTIALS_ANNOTATION), the status never recorded the Secret, no Secret of that name exists, and no member pod
 * shows a container that ever started. Every container of a member reads the Secret (a non-optional secretKeyRef):
 * none starts without it (CreateContainerConfigError), so the volumes the StatefulSet made hold no data and no
 * password. This is the new cluster whose first answer was applied in part (Metacontroller creates the children one
 * kind at a time, in map order, and goes on past a failed create; or it was killed in between).
 */
function noMemberEverRan(request: CompositeSyncRequest, n: Names, observedSts: KubeObject | undefined): boolean {
  const annotations = observedSts?.metadata.annotations;
  if (!annotations || annotations[NEW_CREDENTIALS_ANNOTATION] !== 'true') return false;
  if ((currentStatus(request.parent) as { secretName?: unknown }).secretName === n.secret) return false;
  if (observedNamed(request.related, 'Secret', 'v1', n.secret, request.parent.metadata.namespace)) return false;
  return !memberPods(request, n).some(everStarted);
}

/**
 * The Secret the answer carries, from the passwords' memory: the observed ones; new passwords only if this cluster
 * never had one (no Secret observed or recorded, no data volumes; or volumes no member ever ran on: noMemberEverRan).
 * `lost`: the condition when it had one. `unseen`: the passwords are new and their Secret not yet seen.
 */
function passwords(
  hook: SyncHook<Spec, unknown>,
  n: Names,
  observedSecret: KubeObject | undefined,
  observedSts: KubeObject | undefined,
): { secret?: KubeObject; lost?: ConditionInput; unseen?: boolean } {
  const { request, parent, services, spec } = hook;
  const volumes = existingVolumes(request, n);
  const peers = peerOrdinals(spec.size, volumes, n, neverBoundVolumes(request, n));
  const previous = currentStatus(parent) as { secretName?: unknown };
  const encode = () => Buffer.from(services.randomSecret(PASSWORD_BYTES), 'utf8').toString('base64');
  // The root password: the observed one, else (a key removed or emptied by an edit) the one Metacontroller last
  // applied. The annotation is text the tenant may write, like the Secret itself: only the password is read from it,
  // and the Secret answered is the hook's own (its namespace, name, labels and keys), never the annotation's.
  const applied = observedSecret ? lastApplied(observedSecret) : undefined;
  const keptRoot = observedPassword(observedSecret) ?? observedPassword(applied);
  // The replication password the replicas were pointed at: the observed one, else (a key removed or emptied by an edit)
  // the one Metacontroller last applied. Made only when neither has one (a cluster from before replication, or a
  // Secret made by hand with the root password alone): the primary's sidecar sets the replication user's password from
  // the Secret, and each replica points at the primary with it again when it starts (scripts.ts).
  if (keptRoot) {
    const replication = observedKey(observedSecret, REPLICATION_KEY) ?? observedKey(applied, REPLICATION_KEY);
    return { secret: secret(parent, keptRoot, replication ?? encode(), peers) };
  }
  const recorded = observedSecret !== undefined || previous.secretName === n.secret;
  // A new cluster: its StatefulSet, if already made, is marked until the Secret is seen.
  if (!recorded && volumes.length === 0)
    return {
      secret: secret(parent, encode(), encode(), peers),
      unseen: !observedSts || noMemberEverRan(request, n, observedSts),
    };
  if (!observedSecret && noMemberEverRan(request, n, observedSts))
    return { secret: secret(parent, encode(), encode(), peers), unseen: true };
  // A Secret of that name that is not this cluster's child: left behind (kubectl delete --cascade=orphan) or another
  // owner's. It exists, so it is neither called missing nor to be created (AlreadyExists).
  const stray = observedSecret
    ? undefined
    : observedNamed(request.related, 'Secret', 'v1', n.secret, parent.metadata.namespace);
  const why = stray
    ? `Secret ${n.secret} exists but is not this cluster's (${strayWords(stray)})` +
      (volumes.length > 0 ? `, and data volumes of a cluster with this name exist (${volumes.join(', ')})` : '')
    : recorded
      ? `Secret ${n.secret} (key ${PASSWORD_KEY}) was deleted or emptied after the cluster was created`
      : `Secret ${n.secret} does not exist, but data volumes of a cluster with this name do (${volumes.join(', ')})`;
  const lost: ConditionInput = {
    type: 'CredentialsAvailable',
    status: false,
    reason: 'CredentialsLost',
    message:
      `${why}; they keep the root password they were made with, so no new one is generated. ` +
      (stray ? adoption(parent, n.secret, stray) : recovery(parent, n.secret, observedSecret !== undefined)),
  };
  return observedSecret ? { secret: keepObserved(observedSecret), lost } : { lost };
}

/**
 * The claim templates: the spec's for a new cluster; once the StatefulSet exists, exactly as stored (they cannot
 * change, and anything else would be a diff at every sync), with a condition when the spec asks for another size
 * (StorageResized) or another storage class (StorageClassChanged), each False StorageImmutable.
 */
function claimTemplates(
  spec: Spec,
  observedSts: KubeObject | undefined,
  uid: string,
): { claims: unknown[]; notes: ConditionInput[] } {
  const observedClaims = (observedSts?.['spec'] as { volumeClaimTemplates?: unknown[] } | undefined)
    ?.volumeClaimTemplates;
  if (!observedSts || !Array.isArray(observedClaims) || observedClaims.length === 0)
    return { claims: [volumeClaimTemplate(spec, uid)], notes: [] };
  const notes: ConditionInput[] = [];
  const have = storageOf(observedClaims);
  // A stored size that cannot be read is not said to differ: the stored templates are kept either way.
  if (have !== undefined && have !== spec.storage.size)
    notes.push({
      type: 'StorageResized',
      status: false,
      reason: 'StorageImmutable',
      message: `member volumes are ${have}; spec.storage.size ${spec.storage.size} applies only to a new cluster (resize the PersistentVolumeClaims directly)`,
    });
  const cls = storageClassOf(observedClaims);
  const wanted = spec.storage.storageClassName;
  // The same for a stored class that cannot be read (not a string, nor absent).
  if (cls !== false && cls !== wanted)
    notes.push({
      type: 'StorageClassChanged',
      status: false,
      reason: 'StorageImmutable',
      message: `member volumes are of ${classWords(cls)}; spec.storage.storageClassName ${wanted === undefined ? '(not set: the default class)' : JSON.stringify(wanted)} applies only to a new cluster (a volume cannot change its class in place: set the field back, or move the data to a new cluster of that class)`,
    });
  return { claims: observedClaims, notes };
}

/** A claim template's class, as a condition says it. */
function classWords(cls: string | undefined): string {
  return cls === undefined ? 'the default storage class (no storageClassName)' : `storage class ${JSON.stringify(cls)}`;
}

/**
 * The MySQL hook's settings: the server's cluster domain (lib/names.ts), and whether the claims may take
 * `storageClassName: ""` (static binding to pre-made volumes; METAOPS_ALLOW_STATIC_VOLUMES, lib/config.ts).
 */
export interface MySQLSettings {
  clusterDomain: string;
  allowStaticVolumes: boolean;
}

/**
 * A claim with no class, or of a class of pre-made volumes, binds pre-made volumes, whoever made them: only where the
 * server allows static binding (lib/storage-class.ts; customize asks for the named class). A named class not seen is
 * no invalid spec: the sync makes no new claim until it is seen (heldForClass), and keeps what exists.
 */
export function storageSettingsProblem(
  spec: Spec,
  settings: Partial<MySQLSettings>,
  _parent?: unknown,
  request?: { related?: ObjectMap | null },
): string | undefined {
  return claimClassProblem(
    'spec.storage.storageClassName',
    spec.storage.storageClassName,
    request?.related,
    settings.allowStaticVolumes,
  );
}

export function sync(hook: SyncHook<Spec, unknown, Partial<MySQLSettings>>): CompositeSyncResponse {
  const { request, parent, spec, now } = hook;
  const name = parent.metadata.name;
  const n = namesOf(name, legacyNames(request));
  const observedSts = observedNamed(request.children, 'StatefulSet', 'apps/v1', n.statefulSet);
  const observedSecret = observedNamed(request.children, 'Secret', 'v1', n.secret);

  const { secret: credentials, lost, unseen } = passwords(hook, n, observedSecret, observedSts);
  const { claims, notes } = claimTemplates(spec, observedSts, parent.metadata.uid ?? '');
  const wantedSts = statefulSet(parent, spec, claims, n, {
    domain: hook.settings?.clusterDomain,
    credentialsUnseen: unseen,
  });
  // A named StorageClass not seen (lib/storage-class.ts): no StatefulSet is made and none grows (its controller would
  // make the new members' claims); the one observed is kept, with every member and claim it has.
  const held = heldForClass(hook, n, observedSts, wantedSts);
  const own = serviceSelectsOwn(request, n);
  const children: KubeObject[] = [
    ...(credentials ? [credentials] : []),
    ...(held?.fresh ? [] : [wantedSts]),
    headlessService(parent, n, own),
    clientService(parent, n, own),
    readService(parent, n, own),
  ];

  const seenPods = memberPods(request, n);
  const pods = seenPods.filter((p) => !isTerminating(p));
  // Members whose pod is being deleted: made again by the StatefulSet only once gone (a pod stuck Terminating on a lost
  // node: kubectl delete --force), named past the progress deadline (lib/replicas.ts stalled).
  const going = seenPods.filter(isTerminating).map((p) => p.metadata.name!);
  const members = memberStates(n.statefulSet, pods);
  const extra: ConditionInput[] = [
    ...(lost ? [lost] : []),
    ...notes,
    ...(held ? [claimsHeldCondition(held.message)] : []),
  ];
  extra.push(replicationCondition(members, spec.size, n.member(0)));
  // Members whose server crash-loops or whose image cannot be pulled (the Operator SDK sample's Degraded, as
  // Memcached and PodSet say it: lib/replicas.ts), named with the kubelet's reason; told as a Warning (mysqlEvents).
  extra.push(podsDegraded(pods, MEMBER_CONTAINERS, 'member'));
  const refusal = primaryRefusal(pods.find((p) => p.metadata.name === n.member(0)));
  const ready = lost
    ? ({ type: 'Ready', status: false, reason: 'CredentialsLost', message: lost.message } as const)
    : refusal
      ? refusalCondition(n, refusal, readersOf(members))
      : heldReady(held);
  const progressing = heldProgressing(held) ?? updating(workloadPending(observedSts, wantedSts));
  const counts = membersCounted(workloadCounts(observedSts, spec.size), going.length, pods.length);
  const waiting = membersWaiting(pods, observedSts);
  const status = memberStatus(
    parent,
    counts,
    members.map((m) => m.name),
    now,
    {
      // What an HPA reads (the scale subresource): the members the Services select, by INSTANCE_LABEL once every
      // member carries it (serviceSelectsOwn), never another release's pods carrying the recommended labels alone.
      selector: selectorString(APP, name, own ? { [INSTANCE_LABEL]: name } : {}),
      extra,
      ...(ready ? { ready } : {}),
      ...(progressing ? { progressing } : {}),
      going,
      ...(waiting ? { waiting } : {}),
      ...deadlineOptions(spec, observedSts, wantedSts),
    },
  );
  notReadyNamed(status, membersReport(n, spec.size, seenPods));
  if (spec.size > 0) status['primary'] = n.member(0);
  status['members'] = members;
  // The versions the members ran (ranVersions): what the pods that started on their image run, and what the record
  // names that none of them runs a newer one than (the pod that ran it waits on a pull, or is gone): the downgrade
  // guard's floor (downgradeProblem). Never a version no member started on.
  const version = ranVersions(parent, pods);
  if (version) status['version'] = version;
  if (observedSecret || (currentStatus(parent) as { secretName?: unknown }).secretName === n.secret)
    status['secretName'] = n.secret;
  status['writeService'] = n.client;
  status['readService'] = n.read;
  // Pods and volumes the StatefulSet would make under names another owner holds: nothing is created or changed.
  const taken = takenMembers(request, n, spec.size, now);
  if (taken.length > 0)
    return withClaimAdvice(
      request,
      heldForTakenNames(request, taken, now, status, { remember: true, wants: holderWants, served }),
      taken,
    );
  // Metacontroller tells the hook nothing when the API server refuses a member's pod or claim (nor does the
  // StatefulSet's status change): while members are missing or not Ready (a pod waiting on its image
  // changes nothing either), look again, so that the progress deadline is said.
  return {
    status,
    children,
    ...membersResync(counts, spec.progressDeadlineSeconds),
  };
}

/**
 * What the progress deadline reads of the StatefulSet (lib/replicas.ts memberStatus): spec.progressDeadlineSeconds;
 * whether it makes one member at a time (orderedReady); a spec change it is not given while the cluster is held for
 * a name another owner holds (kept as observed: lib/ownership.ts heldForTakenNames says the hold, not the change).
 */
function deadlineOptions(
  spec: Spec,
  observedSts: KubeObject | undefined,
  wantedSts: KubeObject,
): { deadlineSeconds: number; ordered: boolean; withheld?: string } {
  const withheld = workloadWithheld(observedSts, wantedSts);
  return {
    deadlineSeconds: spec.progressDeadlineSeconds,
    ordered: orderedReady(observedSts),
    ...(withheld ? { withheld } : {}),
  };
}

/**
 * While members are missing or not Ready, a look again every MISSING_MEMBERS_RESYNC_SECONDS, or just past the deadline
 * (`deadline`) when it is shorter, so that the deadline is said with no other event.
 */
function membersResync(counts: ReplicaCounts, deadline: number): { resyncAfterSeconds?: number } {
  return waitsForMembers(counts) ? { resyncAfterSeconds: Math.min(MISSING_MEMBERS_RESYNC_SECONDS, deadline + 1) } : {};
}

/** Whether members are missing or not Ready: the deadline is looked at again (MISSING_MEMBERS_RESYNC_SECONDS). */
function waitsForMembers(counts: ReplicaCounts): boolean {
  return counts.current < counts.desired || counts.ready < counts.current;
}

/**
 * How often a cluster with members missing looks again (the progress deadline, lib/replicas.ts, spec.progressDeadlineSeconds,
 * 600 s by default; just past it when it is shorter).
 */
const MISSING_MEMBERS_RESYNC_SECONDS = 60;

/**
 * The StatefulSet's counts without the members being deleted (`going`; `live`: the member pods seen not being
 * deleted): its controller counts every pod it created in status.replicas, a pod stuck Terminating too, and leaves it
 * out of updatedReplicas only; such a member is missing (made again once gone), not one an update waits for. Only
 * while a pod is seen being deleted (the member pods are then listed): otherwise the StatefulSet's counts as they are.
 */
function membersCounted(counts: ReplicaCounts, going: number, live: number): ReplicaCounts {
  if (going === 0) return counts;
  const current = Math.min(counts.current, live);
  return {
    ...counts,
    current,
    ready: Math.min(counts.ready, current),
    ...(counts.updated !== undefined ? { updated: Math.min(counts.updated, current) } : {}),
  };
}

/** Members not Ready named past the progress deadline, at most. */
const WAITING_LISTED = 3;

/**
 * Each member below `size` that does not serve, in ordinal order, with why: missing (no pod: not made yet, or its
 * creation refused), being deleted (a pod stuck Terminating on a lost node waits for kubectl delete --force), its
 * own container failing (the kubelet's waiting reason: ErrImagePull, CrashLoopBackOff...), starting, or (a replica
 * whose server runs) not replicating or still copying the primary's data. At most WAITING_LISTED named, "and N
 * more"; undefined when every member serves.
 */
function membersReport(n: Names, size: number, seenPods: readonly KubeObject[]): string | undefined {
  const byName = new Map<string, KubeObject>();
  for (const p of seenPods) byName.set(p.metadata.name!, p);
  const out: string[] = [];
  for (let i = 0; i < size; i++) {
    const name = n.member(i);
    const pod = byName.get(name);
    let state: string | undefined;
    if (!pod) state = 'missing: not made yet, or its creation refused (kubectl get events says why)';
    else if (isTerminating(pod)) state = 'being deleted (stuck Terminating on a lost node: kubectl delete pod --force)';
    else if (!isPodReady(pod)) {
      const failing = podFailure(pod, MEMBER_CONTAINERS);
      state = failing
        ? `not Ready: ${failing}`
        : i > 0 && containerReady(pod, 'mysql')
          ? "not replicating, or still copying the primary's data (Replicating says)"
          : 'not Ready: starting';
    }
    if (state) out.push(`${name} ${state}`);
  }
  if (out.length === 0) return undefined;
  const more = out.length > WAITING_LISTED ? ` and ${out.length - WAITING_LISTED} more` : '';
  return `${out.slice(0, WAITING_LISTED).join('; ')}${more}`;
}

/**
 * Ready and Available as the counts say them when not available (NotAvailable, MinimumReplicasUnavailable: `r/d
 * ready`) name the members that do not serve and why (membersReport); any other reason says its own.
 */
function notReadyNamed(status: Status, report: string | undefined): void {
  if (!report || !Array.isArray(status['conditions'])) return;
  for (const c of status['conditions'] as Array<{ type?: unknown; reason?: unknown; message?: unknown }>)
    if (
      (c.type === 'Ready' && c.reason === 'NotAvailable') ||
      (c.type === 'Available' && c.reason === 'MinimumReplicasUnavailable')
    )
      c.message = `${String(c.message)}: ${report}`;
}

/**
 * The members not Ready (cloning the primary's data, crash-looping), named with their state, for the progress
 * deadline (lib/replicas.ts stallCause): a StatefulSet of OrderedReady (one made before podManagementPolicy Parallel)
 * makes the next member only once these are Ready, so no creation was refused; with Parallel, the others' creation is
 * also said. Undefined when every live member is Ready.
 */
function membersWaiting(pods: readonly KubeObject[], observedSts: KubeObject | undefined): MembersWaiting | undefined {
  const waiting = pods
    .filter((p) => !isPodReady(p))
    .map((p) => {
      const failing = podFailure(p, MEMBER_CONTAINERS);
      const state =
        failing ?? (containerReady(p, 'mysql') ? 'its data is being copied or it does not replicate yet' : 'starting');
      return `${p.metadata.name!} is not Ready (${state})`;
    })
    .sort();
  if (waiting.length === 0) return undefined;
  const more = waiting.length > WAITING_LISTED ? ` and ${waiting.length - WAITING_LISTED} more` : '';
  return { text: `${waiting.slice(0, WAITING_LISTED).join(', ')}${more}`, ordered: orderedReady(observedSts) };
}

/**
 * Whether the StatefulSet makes its members one at a time (OrderedReady: one made before podManagementPolicy
 * Parallel): the next only once the one before is Ready and none is being deleted, so a member missing behind a member
 * not Ready or stuck Terminating was never asked for (lib/replicas.ts stallCause).
 */
function orderedReady(observedSts: KubeObject | undefined): boolean {
  const policy = (observedSts?.['spec'] as { podManagementPolicy?: unknown } | undefined)?.podManagementPolicy;
  return policy !== 'Parallel';
}

/**
 * What waits while the claims' named StorageClass is not seen (`unseen`, claimClassUnseen's message): a new cluster's
 * StatefulSet is not made (`fresh`); an observed one keeps the replicas it has (the wanted StatefulSet is changed so:
 * its controller makes a new member's claim). Nothing observed is left out of the answer (Metacontroller would delete
 * it), and no member is removed or replaced for it. Undefined when nothing waits: the class is seen, or no claim is new.
 *
 * "Only new claims wait" does not hold for the members the StatefulSet keeps: its controller makes a member's claim
 * again from volumeClaimTemplates whenever the claim is gone (deleted by hand, or by a clean-up) and the member's pod
 * is made. The hook cannot stop that for a member below members that run (lowering replicas would stop them); it holds
 * what it can: the replicas go down past the last members whose claim is gone and whose pod never started (no claim:
 * no pod of theirs can have run on it since, and none runs), so that no claim is made for them. The members whose
 * claim is gone (or going) and that stay below the replicas are named: their claims will be made of the class not seen.
 */
function heldForClass(
  hook: SyncHook<Spec, unknown, Partial<MySQLSettings>>,
  n: Names,
  observedSts: KubeObject | undefined,
  wantedSts: KubeObject,
): Held | undefined {
  const { spec } = hook;
  const size = spec.size;
  const unseen = claimClassUnseen(
    'spec.storage.storageClassName',
    spec.storage.storageClassName,
    hook.request.related,
    hook.settings?.allowStaticVolumes,
  );
  if (unseen === undefined) return undefined;
  if (!observedSts) return { fresh: true, message: `${unseen}; the cluster is not created until then` };
  const replicas = (observedSts['spec'] as { replicas?: unknown } | undefined)?.replicas;
  // Kubernetes defaults a StatefulSet's replicas to 1; an observed one always has them.
  const has = typeof replicas === 'number' && Number.isInteger(replicas) && replicas >= 0 ? replicas : 1;
  const kept = Math.min(size, has);
  // Any claim of a member's name is the one the StatefulSet controller uses (whoever made it); one being deleted is
  // made again once its pod goes.
  const claims = observedUnordered(hook.request.related, 'PersistentVolumeClaim', 'v1');
  const claimOf = (i: number) => claims.find((c) => c?.metadata?.name === n.volume(i));
  const gone = (i: number) => {
    const c = claimOf(i);
    return !c || isTerminating(c);
  };
  const pods = memberPods(hook.request, n);
  const ran = (i: number) =>
    pods.some((p) => p.metadata.name === n.member(i) && (isPodReady(p) || containersStarted(p)));
  let top = kept;
  while (top > 0 && !claimOf(top - 1) && !ran(top - 1)) top--;
  const remade = Array.from({ length: top }, (_, i) => i).filter(gone);
  if (size <= has && top === kept && remade.length === 0) return undefined;
  (wantedSts['spec'] as { replicas: number }).replicas = top;
  const parts: string[] = [];
  if (size > has) parts.push(`${size - has} new members wait (spec.size ${size}, ${has} kept)`);
  if (top < kept) {
    const held = Array.from({ length: kept - top }, (_, i) => n.member(top + i)).join(', ');
    parts.push(
      `the claims of ${held} are gone: the StatefulSet goes down to ${top} replicas until the class is seen, so that ` +
        `its controller does not make them again of a class not seen (no pod of theirs runs)`,
    );
  }
  if (remade.length > 0) {
    const names = remade.map((i) => `${n.volume(i)}${claimOf(i) ? ' (being deleted)' : ''}`);
    parts.push(
      `the claims ${names.slice(0, 3).join(', ')}${names.length > 3 ? ` (and ${names.length - 3} more)` : ''} of ` +
        `members the StatefulSet keeps are gone or going: its controller makes them again from its template, of the ` +
        `class not seen, when their pods are made (it cannot be held without stopping the members above them); ` +
        `create the StorageClass, or do not delete a member's claim until it is seen (docs/mysqlcluster.md)`,
    );
  }
  return { fresh: false, message: `${unseen}; ${parts.join('; ')}` };
}

/** What waits for the claims' StorageClass (heldForClass): a new cluster, or the members a scale-up adds. */
interface Held {
  fresh: boolean;
  message: string;
}

/** Ready while a new cluster waits for its claims' class: False, StorageClassNotSeen. */
function heldReady(held: Held | undefined): ConditionInput | undefined {
  return held?.fresh ? { type: 'Ready', status: false, reason: CLASS_NOT_SEEN, message: held.message } : undefined;
}

/**
 * Progressing while members wait for their claims' class: False (nothing moves until the class is seen; not
 * Creating or ScalingUp, whose deadline would say creating them fails), StorageClassNotSeen.
 */
function heldProgressing(held: Held | undefined): ConditionInput | undefined {
  return held ? { type: 'Progressing', status: false, reason: CLASS_NOT_SEEN, message: held.message } : undefined;
}

/** Progressing while the StatefulSet takes a new spec (workloadPending's message). */
function updating(pending: string | undefined): ConditionInput | undefined {
  return pending ? { type: 'Progressing', status: true, reason: 'Updating', message: pending } : undefined;
}

/** Replicating: every replica that exists has both replication threads running and has caught up with member 0. */
function replicationCondition(members: MemberState[], size: number, primary: string): ConditionInput {
  const replicas = members.filter((m) => m.role === 'replica');
  if (size <= 1) {
    return { type: 'Replicating', status: true, reason: 'NoReplicas', message: 'the cluster is the primary alone' };
  }
  const behind = replicas.filter((m) => !m.replicating).map((m) => m.name);
  if (behind.length > 0) {
    return {
      type: 'Replicating',
      status: false,
      reason: 'ReplicaNotReplicating',
      message: `not Ready for reads, not replicating from the primary or still copying what it holds (a replica on a new or emptied volume copies the cluster's history before it serves reads): ${behind.join(', ')}`,
    };
  }
  if (replicas.length < size - 1) {
    return {
      type: 'Replicating',
      status: false,
      reason: 'ReplicasMissing',
      message: `${replicas.length} of ${size - 1} replicas exist`,
    };
  }
  // The replicas' sidecars stay Ready on what they received while the primary is down (scripts.ts
  // REPLICATION_PROBE): nothing replicates from a primary that is not Ready, and the status never says it does.
  const head = members.find((m) => m.role === 'primary');
  if (!head?.ready) {
    return {
      type: 'Replicating',
      status: false,
      reason: 'PrimaryNotReady',
      message: `the primary ${primary} ${head ? 'is not Ready' : 'does not exist'}: ${replicas.length} replicas hold what they received and replicate nothing new`,
    };
  }
  return {
    type: 'Replicating',
    status: true,
    reason: 'AllReplicating',
    message: `${replicas.length} replicas replicate from ${primary}`,
  };
}

/**
 * An invalid spec changes nothing: children kept as they are, the rest of the status kept, and the last
 * conditions other than Ready (Available, Progressing, ...) kept as they were, beside Ready=False InvalidSpec (lib/hook.ts
 * invalidSpecResponse), and the record of the versions that ran.
 */
export function invalid(request: CompositeSyncRequest, message: string, now: Date): CompositeSyncResponse {
  const res = invalidSpecResponse(request, message, now);
  const status = res.status as Status;
  // The record of what ran goes on while the spec is refused: the StatefulSet kept rolls on, and a member that starts
  // on a newer version now is the floor of every later spec, even once its pod waits on a pull or is gone.
  const pods = memberPods(request, namesOf(request.parent.metadata.name, legacyNames(request)));
  const version = ranVersions(
    request.parent,
    pods.filter((p) => !isTerminating(p)),
  );
  if (version) status['version'] = version;
  else delete status['version'];
  return res;
}

function storageOf(claims: unknown[]): string | undefined {
  // Observed data, so any element may be malformed (null, a string): read defensively.
  const data =
    claims.find((c) => (c as { metadata?: { name?: string } } | null)?.metadata?.name === 'data') ?? claims[0];
  const storage = (data as { spec?: { resources?: { requests?: { storage?: unknown } } } } | null)?.spec?.resources
    ?.requests?.storage;
  // A quantity is stored as a string: anything else cannot be read.
  return typeof storage === 'string' ? storage : undefined;
}

/**
 * The storage class of the stored data claim template: its storageClassName, undefined when it has none (the default
 * class), false when it cannot be read (not a string).
 */
function storageClassOf(claims: unknown[]): string | undefined | false {
  const data =
    claims.find((c) => (c as { metadata?: { name?: string } } | null)?.metadata?.name === 'data') ?? claims[0];
  const cls = (data as { spec?: { storageClassName?: unknown } } | null)?.spec?.storageClassName;
  return cls === undefined || cls === null ? undefined : typeof cls === 'string' ? cls : false;
}

/**
 * The StorageClass the claims name. The cluster's pods (status.members, status.version, member 0's refusal to open)
 * are asked for by name in its namespace with every name a child may take (childNames): a member pod is one named as
 * a member (memberPods). No rule by labels: Metacontroller v1.5.20 matches a changed object against such a rule by
 * its labels alone, whatever its namespace, so a pod of another namespace with this cluster's selector labels would
 * sync it (docs/metacontroller.md, "Related objects and other namespaces").
 */
export function customize(request: CustomizeRequest): CustomizeResponse {
  return {
    relatedResources: [
      // The StorageClass the claims name (cluster-scoped): whether it provisions volumes (storageSettingsProblem).
      ...storageClassRule(
        (request.parent?.['spec'] as { storage?: { storageClassName?: unknown } } | undefined)?.storage
          ?.storageClassName,
      ),
    ],
  };
}

/**
 * Every name a cluster's children, pods and data volumes may take, under either naming: asked for by name
 * (lib/ownership.ts), so that a name another owner holds is seen, and a new cluster over the data volumes of a
 * previous one of this name never gets a new password.
 */
export function childNames(parent: ParentObject): ChildName[] {
  const name = parent.metadata.name;
  const out: ChildName[] = [];
  for (const n of [namesOf(name), namesOf(name, true)]) {
    out.push({ apiVersion: 'apps/v1', kind: 'StatefulSet', name: n.statefulSet });
    for (const svc of [n.headless, n.client, n.read]) out.push({ apiVersion: 'v1', kind: 'Service', name: svc });
    for (let i = 0; i < MAX_SIZE; i++) {
      out.push({ apiVersion: 'v1', kind: 'Pod', name: n.member(i) });
      out.push({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', name: n.volume(i) });
    }
  }
  out.push({ apiVersion: 'v1', kind: 'Secret', name: namesOf(name).secret });
  return out;
}

/**
 * Whether a stored MySQLCluster (a parent of another kind sees no children of it) uses the names from before the
 * `-mysql` suffix: its status.writeService records them. A status lost makes a cluster with no child observed take
 * the suffixed names (legacyNames).
 */
export function legacyByStatus(parent: KubeObject): boolean {
  const name = parent.metadata.name ?? '';
  return currentStatus(parent as ParentObject)['writeService'] === namesOf(name, true).client;
}

/**
 * The namings a stored MySQLCluster may use now (lib/holders.ts namingsOf): the one its status.writeService records,
 * today's when its status records a sync and no Service, both when its status records nothing (lost: a cluster from
 * before the suffix may serve under `<name>`, `<name>-read`); of those, the ones its name can make (nameProblem: a
 * 47-character name makes no `<name>-mysql` StatefulSet, so such a cluster of today makes nothing, ever).
 */
export function namingsByStatus(parent: KubeObject): boolean[] {
  const name = parent.metadata.name ?? '';
  const writeService = currentStatus(parent as ParentObject)['writeService'];
  const recorded =
    writeService === namesOf(name, true).client ? true : writeService === namesOf(name).client ? false : undefined;
  return namingsOf(
    parent,
    recorded,
    (legacy) => parentNameProblem(name, derivedNames(namesOf(name, legacy))) === undefined,
  );
}

/**
 * The names a MySQLCluster's answer may make now, read from its stored object (a parent of another kind judges it by
 * them, lib/holders.ts): the StatefulSet, its three Services and its data claims below spec.size under each naming it
 * may use (namingsByStatus), and its Secret (none when its name makes nothing). Its pods: podNames (index.ts), the
 * same namings.
 */
export function currentNames(parent: ParentObject): ChildName[] {
  const namings = namingsByStatus(parent);
  const size = Math.min(Number((parent.spec as { size?: unknown } | undefined)?.size), MAX_SIZE);
  const out: ChildName[] = [];
  for (const legacy of namings) {
    const n = namesOf(parent.metadata.name, legacy);
    out.push({ apiVersion: 'apps/v1', kind: 'StatefulSet', name: n.statefulSet });
    for (const svc of [n.headless, n.client, n.read]) out.push({ apiVersion: 'v1', kind: 'Service', name: svc });
    for (let i = 0; i < size; i++) out.push({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', name: n.volume(i) });
  }
  if (namings.length > 0) out.push({ apiVersion: 'v1', kind: 'Secret', name: namesOf(parent.metadata.name).secret });
  return out;
}

/**
 * Events beside the conditions' (lib/events.ts): the StatefulSet created and scaled, read from the observed
 * StatefulSet (before) and the answer (after).
 */
export function mysqlEvents(request: CompositeSyncRequest): (response: CompositeSyncResponse) => EventSpec[] {
  const n = namesOf(request.parent.metadata.name, legacyNames(request));
  const had = observedNamed(request.children, 'StatefulSet', 'apps/v1', n.statefulSet);
  const hadReplicas = (had?.['spec'] as { replicas?: unknown } | undefined)?.replicas;
  const asked = creationAsked(request.parent);
  return (response) => {
    // Members that fail (Degraded PodsFailing became True, or its reason changed): a Warning naming them and why.
    const failing = degradedEvent(request.parent, response.status);
    const told = failing ? [failing] : [];
    const sts = response.children.find((c) => c.kind === 'StatefulSet');
    const replicas = (sts?.['spec'] as { replicas?: unknown } | undefined)?.replicas;
    // An answer without the StatefulSet (an invalid or held new cluster) created nothing; one that keeps the observed
    // StatefulSet has its replicas. Told once: a StatefulSet asked for before and still not seen was refused.
    if (!had) {
      return told.concat(
        sts && !asked
          ? [
              {
                type: 'Normal',
                reason: 'Created',
                action: 'Create',
                note: `created StatefulSet ${n.statefulSet} of ${String(replicas)} members, Services ${n.client} (writes), ${n.read} (reads) and ${n.headless}`,
                subject: n.statefulSet,
              },
            ]
          : [],
      );
    }
    if (hadReplicas === replicas) return told;
    return [
      ...told,
      {
        type: 'Normal',
        reason: 'Scaled',
        action: 'Scale',
        note: `scaled StatefulSet ${n.statefulSet} from ${String(hadReplicas)} to ${String(replicas)} members`,
        subject: String(replicas),
      },
    ];
  };
}
