// MySQLCluster: a primary with read replicas, as Kubernetes' "replicated stateful application" tutorial does.
// A StatefulSet of MySQL members (each with its own data volume): member 0 is the primary, members 1..N-1
// replicate from it (GTIDs; scripts.ts). The client Service `<name>` sends writes to member 0 only, the read
// Service `<name>-read` spans every Ready member, and a headless Service gives each member a stable name. A
// Secret holds the root and replication passwords, generated once.
//
// The passwords' only memory is the Secret itself: every sync re-emits the bytes it observes. A new root
// password is generated only when the cluster has never had one: not if a Secret that existed disappears, and
// not if data volumes of a previous cluster with this name exist (they keep the password they were made with).
import { serviceChild } from '../../lib/children.js';
import type { ConditionInput } from '../../lib/conditions.js';
import { invalidSpecResponse } from '../../lib/hook.js';
import type { SyncHook } from '../../lib/operator.js';
import { childLabels, selectorLabels, selectorString } from '../../lib/labels.js';
import type {
  CompositeSyncRequest,
  CompositeSyncResponse,
  CustomizeRequest,
  CustomizeResponse,
  KubeObject,
  ParentObject,
  Status,
} from '../../lib/metacontroller.js';
import { dns1035Problem } from '../../lib/names.js';
import { isPodReady, isTerminating, keepObserved, observedNamed, observedUnordered } from '../../lib/objects.js';
import { memberStatus, workloadCounts } from '../../lib/replicas.js';
import { MAX_SIZE } from '../../lib/schemas.js';
import { specParser } from '../../lib/spec.js';
import { MySQLClusterSpec, VERSION_PATTERN, type MySQLClusterSpec as Spec } from './schema.js';
import { CONFIG_SCRIPT, REPLICATION_PROBE, REPLICATION_SCRIPT, SERVER_PROBE } from './scripts.js';

const APP = 'mysql';
export const PASSWORD_KEY = 'root-password';
export const REPLICATION_KEY = 'replication-password';
export const REPLICATION_CONTAINER = 'replication';
export const MYSQL_PORT = 3306;

/** `version` as an image tag: a string as written, a number as YAML read it (8 -> "8.0", 8.4 -> "8.4"). */
export function mysqlVersion(version: string | number): string {
  if (typeof version === 'number') return Number.isInteger(version) ? `${version}.0` : String(version);
  return version.trim();
}

export const parser = specParser(MySQLClusterSpec, (spec) => {
  const version = mysqlVersion(spec.version);
  if (!VERSION_PATTERN.test(version)) {
    return `spec.version is ${JSON.stringify(spec.version)}: expected a MySQL version such as "8.0" or "8.0.36"`;
  }
  return undefined;
});

export const names = {
  statefulSet: (name: string) => name,
  headless: (name: string) => `${name}-headless`,
  /** Writes: member 0, the primary, only. */
  client: (name: string) => name,
  /** Reads: every Ready member (the primary, and replicas that are replicating). */
  read: (name: string) => `${name}-read`,
  secret: (name: string) => `${name}-mysql`,
  member: (name: string, ordinal: number) => `${name}-${ordinal}`,
  /** StatefulSet claims are named <template>-<statefulset>-<ordinal>. */
  volume: (name: string, ordinal: number) => `data-${name}-${ordinal}`,
};

/** The labels seed 001's reconciler puts on the MySQL pods. */
export function seedLabels(name: string): Record<string, string> {
  return { app: 'mysqlcluster', mysqlcluster_cr: name };
}

/** The label the StatefulSet controller puts on each of its pods. */
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';

export function secret(parent: ParentObject, encodedRoot: string, encodedReplication: string): KubeObject {
  const name = parent.metadata.name!;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: names.secret(name),
      namespace: parent.metadata.namespace,
      labels: childLabels(APP, name, 'credentials'),
    },
    type: 'Opaque',
    data: { [PASSWORD_KEY]: encodedRoot, [REPLICATION_KEY]: encodedReplication },
  };
}

export function headlessService(parent: ParentObject): KubeObject {
  const name = parent.metadata.name!;
  return serviceChild(
    parent,
    names.headless(name),
    childLabels(APP, name, 'database'),
    selectorLabels(APP, name),
    [{ name: 'mysql', port: MYSQL_PORT }],
    { headless: true },
  );
}

/** The client Service: writes go to member 0, the primary, and nowhere else. */
export function clientService(parent: ParentObject): KubeObject {
  const name = parent.metadata.name!;
  const selector = selectorLabels(APP, name);
  selector[POD_NAME_LABEL] = names.member(name, 0);
  return serviceChild(parent, names.client(name), childLabels(APP, name, 'primary'), selector, [
    { name: 'mysql', port: MYSQL_PORT },
  ]);
}

/** The read Service: every Ready member. */
export function readService(parent: ParentObject): KubeObject {
  const name = parent.metadata.name!;
  return serviceChild(parent, names.read(name), childLabels(APP, name, 'read'), selectorLabels(APP, name), [
    { name: 'mysql', port: MYSQL_PORT },
  ]);
}

/**
 * The claim template as the API server stores it (apiVersion and kind filled in, volumeMode defaulted, a
 * `status: {phase: Pending}`). Metacontroller replaces a list without a `name` key as a whole: an answer that
 * lacked what the server adds would differ from the stored StatefulSet at every sync and be written again.
 */
export function volumeClaimTemplate(spec: Spec): Record<string, unknown> {
  const claimSpec: Record<string, unknown> = {
    accessModes: ['ReadWriteOnce'],
    resources: { requests: { storage: spec.storage.size } },
  };
  if (spec.storage.storageClassName) claimSpec['storageClassName'] = spec.storage.storageClassName;
  claimSpec['volumeMode'] = 'Filesystem';
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'data' },
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
  return { name: envName, valueFrom: { secretKeyRef: { name: names.secret(name), key } } };
}

// eslint-disable-next-line max-lines-per-function -- the StatefulSet as one literal, in the order kubectl shows it
export function statefulSet(
  parent: ParentObject,
  spec: Spec,
  /** The claim templates: the spec's for a new cluster, the stored ones once the StatefulSet exists. */
  claimTemplates: unknown[],
): KubeObject {
  const name = parent.metadata.name!;
  const version = mysqlVersion(spec.version);
  const image = `mysql:${version}`;
  const labels = childLabels(APP, name, 'database', { version });
  const podLabels = { ...labels, ...seedLabels(name) };
  const podName = { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } };
  const dirs = [
    { name: 'CONF_DIR', value: CONF_DIR },
    { name: 'CLIENT_DIR', value: CLIENT_DIR },
    { name: 'MYSQL_PORT', value: String(MYSQL_PORT) },
  ];
  const mounts = [
    { name: 'conf', mountPath: CONF_DIR },
    { name: 'client', mountPath: CLIENT_DIR },
  ];
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: names.statefulSet(name), namespace: parent.metadata.namespace, labels },
    spec: {
      replicas: spec.size,
      serviceName: names.headless(name),
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
            {
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
            },
            {
              name: REPLICATION_CONTAINER,
              image,
              command: ['bash', '-c', REPLICATION_SCRIPT],
              env: [
                podName,
                secretEnv(name, 'REPLICATION_PASSWORD', REPLICATION_KEY),
                { name: 'PRIMARY_HOST', value: `${names.member(name, 0)}.${names.headless(name)}` },
                { name: 'PRIMARY_PORT', value: String(MYSQL_PORT) },
                ...dirs,
              ],
              volumeMounts: mounts,
              readinessProbe: {
                exec: { command: ['bash', '-c', REPLICATION_PROBE] },
                initialDelaySeconds: 5,
                periodSeconds: 5,
              },
              securityContext: containerSecurity,
            },
          ],
          volumes: [
            { name: 'conf', emptyDir: {} },
            { name: 'client', emptyDir: { medium: 'Memory' } },
          ],
        },
      },
      volumeClaimTemplates: claimTemplates,
    },
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

/** The data volumes (claims) of this cluster's members that exist, from a previous cluster or this one. */
export function existingVolumes(request: CompositeSyncRequest, name: string): string[] {
  const wanted = new Set(Array.from({ length: MAX_SIZE.mysqlcluster }, (_, i) => names.volume(name, i)));
  return observedUnordered(request.related, 'PersistentVolumeClaim', 'v1')
    .filter((c) => c && typeof c === 'object' && c.metadata && wanted.has(c.metadata.name!) && !isTerminating(c))
    .map((c) => c.metadata.name!)
    .sort();
}

export interface MemberState {
  name: string;
  role: 'primary' | 'replica';
  ready: boolean;
  /** Replicas only: the replication container reports both replication threads running. */
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

/** The MySQL version the pods run (the tag of their mysql container's image); several during a rollout. */
export function runningVersion(pods: KubeObject[]): string | undefined {
  const tags = new Set<string>();
  for (const pod of pods) {
    const containers = (pod['spec'] as { containers?: unknown } | undefined)?.containers;
    if (!Array.isArray(containers)) continue;
    const mysql = containers.find((c) => c && typeof c === 'object' && (c as { name?: unknown }).name === 'mysql') as
      { image?: unknown } | undefined;
    if (typeof mysql?.image !== 'string') continue;
    const at = mysql.image.lastIndexOf(':');
    if (at > mysql.image.lastIndexOf('/')) tags.add(mysql.image.slice(at + 1));
  }
  return tags.size ? [...tags].sort().join(', ') : undefined;
}

/** `spec.version` when it is neither a string nor a number: what the field takes, not a schema's words. */
export function versionTypeProblem(spec: unknown): string | undefined {
  if (!spec || typeof spec !== 'object') return undefined;
  const version = (spec as { version?: unknown }).version;
  if (version === undefined || typeof version === 'string' || typeof version === 'number') return undefined;
  return (
    `spec.version is ${JSON.stringify(version) ?? String(version)}: expected a MySQL version as a string, ` +
    'such as "8.0" or "8.0.36" (an unquoted 8.0 is read as 8, which means 8.0)'
  );
}

/** A name too long for the headless Service the StatefulSet needs. */
export function nameProblem(parent: ParentObject): string | undefined {
  return dns1035Problem(parent.metadata.name ?? '', '-headless');
}

/**
 * How to give the cluster its root password back, as commands to run (test/e2e runs them word for word). A Secret
 * that exists is the cluster's child already: its key is put back. One that is gone is created with the label
 * `controller-uid=<the parent's uid>`: Metacontroller adopts only a Secret its generated selector matches, and a
 * Secret without it would stay someone else's.
 */
export function recovery(parent: ParentObject, exists: boolean): string {
  const secretName = names.secret(parent.metadata.name ?? '');
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

/** The root and replication passwords a new cluster gets: 24 random bytes each. */
const PASSWORD_BYTES = 24;

// eslint-disable-next-line complexity -- the passwords' memory (observed, recorded, new) is spelled out, one branch per case the tests name
export function sync({ request, parent, spec, now, services }: SyncHook<Spec, unknown>): CompositeSyncResponse {
  const name = parent.metadata.name ?? '';
  const newPassword = () => services.randomSecret(PASSWORD_BYTES);
  const previous = (parent.status ?? {}) as { secretName?: unknown };

  const observedSts = observedNamed(request.children, 'StatefulSet', 'apps/v1', names.statefulSet(name));
  const observedSecret = observedNamed(request.children, 'Secret', 'v1', names.secret(name));
  const extraConditions: ConditionInput[] = [];
  const children: KubeObject[] = [];
  const encode = () => Buffer.from(newPassword(), 'utf8').toString('base64');

  // The passwords: the observed ones; a new root password only if this cluster never had one.
  const keptRoot = observedPassword(observedSecret);
  const volumes = existingVolumes(request, name);
  if (keptRoot) {
    // A replication password is made when missing (a cluster from before replication): the primary's
    // sidecar sets the replication user's password from the Secret.
    children.push(secret(parent, keptRoot, observedKey(observedSecret, REPLICATION_KEY) ?? encode()));
  } else if (observedSecret || previous.secretName === names.secret(name) || volumes.length > 0) {
    const why =
      observedSecret || previous.secretName === names.secret(name)
        ? `Secret ${names.secret(name)} (key ${PASSWORD_KEY}) was deleted or emptied after the cluster was created`
        : `Secret ${names.secret(name)} does not exist, but data volumes of a cluster with this name do (${volumes.join(', ')})`;
    extraConditions.push({
      type: 'CredentialsAvailable',
      status: false,
      reason: 'CredentialsLost',
      message: `${why}; they keep the root password they were made with, so no new one is generated. ${recovery(parent, observedSecret !== undefined)}`,
    });
    if (observedSecret) children.push(keepObserved(observedSecret));
  } else {
    children.push(secret(parent, encode(), encode()));
  }

  // Volume claim templates cannot change once the StatefulSet exists: keep what it has, and say so if the
  // spec asks for something else.
  let claims: unknown[] = [volumeClaimTemplate(spec)];
  const observedClaims = (observedSts?.['spec'] as { volumeClaimTemplates?: unknown[] } | undefined)
    ?.volumeClaimTemplates;
  if (observedSts && Array.isArray(observedClaims) && observedClaims.length > 0) {
    const have = storageOf(observedClaims);
    // A stored size that cannot be read is not said to differ: the stored templates are kept either way.
    if (have !== undefined && have !== spec.storage.size) {
      extraConditions.push({
        type: 'StorageResized',
        status: false,
        reason: 'StorageImmutable',
        message: `member volumes are ${have}; spec.storage.size ${spec.storage.size} applies only to a new cluster (resize the PersistentVolumeClaims directly)`,
      });
    }
    // Handed back exactly as stored: they cannot change, and anything else would be a diff at every sync.
    claims = observedClaims;
  }
  children.push(statefulSet(parent, spec, claims), headlessService(parent), clientService(parent), readService(parent));

  const pods = observedUnordered(request.related, 'Pod', 'v1').filter((p) => !isTerminating(p));
  const members = memberStates(name, pods);
  extraConditions.push(replicationCondition(members, spec.size, names.member(name, 0)));
  const lost = extraConditions.find((c) => c.reason === 'CredentialsLost');
  const status = memberStatus(
    parent,
    workloadCounts(observedSts, spec.size),
    members.map((m) => m.name),
    now,
    {
      selector: selectorString(APP, name),
      extra: extraConditions,
      ...(lost ? { ready: { type: 'Ready', status: false, reason: 'CredentialsLost', message: lost.message } } : {}),
    },
  );
  if (spec.size > 0) status['primary'] = names.member(name, 0);
  status['members'] = members;
  const version = runningVersion(pods);
  if (version) status['version'] = version;
  if (observedSecret || previous.secretName === names.secret(name)) status['secretName'] = names.secret(name);
  return { status, children };
}

/** Replicating: every replica that exists has both replication threads running. */
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
      message: `not replicating from the primary: ${behind.join(', ')}`,
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
  return {
    type: 'Replicating',
    status: true,
    reason: 'AllReplicating',
    message: `${replicas.length} replicas replicate from ${primary}`,
  };
}

/**
 * An invalid spec changes nothing: children kept as they are, the rest of the status kept, and the last
 * conditions other than Ready (Available, Progressing, ...) kept as they were, beside Ready=False InvalidSpec.
 */
export function invalid(request: CompositeSyncRequest, message: string, now: Date): CompositeSyncResponse {
  const res = invalidSpecResponse(request, message, now);
  const before = (request.parent.status as Status | undefined)?.['conditions'];
  if (Array.isArray(before)) {
    const kept = before.filter((c) => c && typeof c === 'object' && (c as { type?: unknown }).type !== 'Ready');
    const status = res.status as Status;
    status['conditions'] = [...(status['conditions'] as unknown[]), ...kept];
  }
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
 * Asks for the cluster's pods (status.members, status.version) and for the data volumes a cluster with this
 * name would have, so that a new cluster over an old one's volumes never gets a new password.
 */
export function customize(request: CustomizeRequest): CustomizeResponse {
  const name = request.parent?.metadata.name ?? '';
  return {
    relatedResources: [
      { apiVersion: 'v1', resource: 'pods', labelSelector: { matchLabels: selectorLabels(APP, name) } },
      {
        apiVersion: 'v1',
        resource: 'persistentvolumeclaims',
        // A rule naming objects lists every namespace without one (v4.17 customize/manager.go L665-683).
        namespace: request.parent?.metadata.namespace ?? '',
        names: Array.from({ length: MAX_SIZE.mysqlcluster }, (_, i) => names.volume(name, i)),
      },
    ],
  };
}
