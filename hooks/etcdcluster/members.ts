// How an etcd member is named, reached and run: its pod, its URLs, and the cluster's Services.
import { createHash } from 'node:crypto';
import {
  asGiven,
  parseImage,
  childLabels,
  imageAtTag,
  type KubeObject,
  ordinalName,
  ordinalOf,
  type ParentObject,
  podDnsConfig,
  restrictedContainerSecurity,
  restrictedPodSecurity,
  serviceChild,
} from '../../lib/index.js';
import {
  METAOPS_CLI,
  RESTORES_CARRIED_OUT,
  restoresCarriedOut,
  restoresCarriedOutAnnotation,
  s3Access,
} from '../etcdcommon/index.js';
import type { SnapshotPin } from '../etcdcommon/pin.js';
import type { EtcdClusterSpec } from './schema.js';

export const CLIENT_PORT = 2379;
export const PEER_PORT = 2380;
/** etcd's metrics listener (--listen-metrics-urls, plain HTTP, etcd 3.3+): the liveness probe asks it (livenessProbe). */
export const METRICS_PORT = 2381;
export const DATA_DIR = '/var/etcd/data';
export const ETCD_BINARY = '/usr/local/bin/etcd';
const APP = 'etcd';

/**
 * The user member pods run as. No etcd image the API accepts needs root: quay.io/coreos/etcd v3.1-v3.3 (alpine)
 * and v3.4-v3.5 (distroless) declare no USER, and etcd only writes its data directory, on the member's volume
 * (an emptyDir, or a claim made writable by fsGroup). This project's image runs as 10001 (Dockerfile): the same
 * user for the restore's fetch step, which writes the snapshot on that volume.
 */
export const MEMBER_USER = 10001;

/**
 * The member pod's security context: Pod Security `restricted` (non-root numeric user, seccomp RuntimeDefault),
 * an fsGroup so that a claim is writable, applied only when the volume's root does not have it yet (etcd keeps its
 * data directory 0700; a recursive change at every mount would loosen it). spec.pod.securityContext overrides any
 * of these fields (runAsUser: 0 and runAsNonRoot: false for an image that must run as root, which a restricted
 * namespace then refuses).
 */
export function memberPodSecurity(own?: Record<string, unknown>): Record<string, unknown> {
  return {
    ...restrictedPodSecurity(MEMBER_USER, { fsGroup: MEMBER_USER }),
    fsGroupChangePolicy: 'OnRootMismatch',
    ...(own ?? {}),
  };
}

export interface Cluster {
  name: string;
  namespace: string;
  /** Appended to member DNS names: "" or ".cluster.local". */
  domain: string;
  peerTLS: boolean;
  clientTLS: boolean;
}

/**
 * The cluster domain a spec asks for, and the field that says it: `pod.clusterDomain`, or `pod.ClusterDomain` as
 * etcd-operator spells it (the parser refuses the two set to different domains). Undefined when neither is set.
 */
export function specClusterDomain(
  spec: Pick<EtcdClusterSpec, 'pod'>,
): { field: 'clusterDomain' | 'ClusterDomain'; domain: string } | undefined {
  if (spec.pod?.clusterDomain) return { field: 'clusterDomain', domain: spec.pod.clusterDomain };
  if (spec.pod?.ClusterDomain) return { field: 'ClusterDomain', domain: spec.pod.ClusterDomain };
  return undefined;
}

export function clusterOf(parent: ParentObject, spec: EtcdClusterSpec): Cluster {
  const wanted = specClusterDomain(spec)?.domain;
  const domain = wanted ? `.${wanted.replace(/^\./, '')}` : '';
  return {
    name: parent.metadata.name,
    namespace: parent.metadata.namespace ?? 'default',
    domain,
    peerTLS: Boolean(spec.TLS?.static?.member?.peerSecret),
    clientTLS: Boolean(spec.TLS?.static?.member?.serverSecret),
  };
}

/** A leading "v" is accepted: "v3.5.17" and "3.5.17" are the same version. */
export function etcdVersion(version: string): string {
  return version.trim().replace(/^v/, '');
}

export function image(spec: EtcdClusterSpec): string {
  return `${spec.repository}:v${etcdVersion(spec.version)}`;
}

/** Member pods are <cluster>-<ordinal>; ordinals only grow, so a replaced member never reuses a name. */
export const memberName = ordinalName;
export const memberIndex = ordinalOf;

/** The stable DNS name of a member: <pod>.<cluster>.<namespace>.svc[<domain>] (hostname + subdomain). */
export function memberHost(c: Cluster, pod: string): string {
  return `${pod}.${c.name}.${c.namespace}.svc${c.domain}`;
}

export function peerURL(c: Cluster, pod: string): string {
  return `${c.peerTLS ? 'https' : 'http'}://${memberHost(c, pod)}:${PEER_PORT}`;
}

export function clientURL(c: Cluster, pod: string): string {
  return `${c.clientTLS ? 'https' : 'http'}://${memberHost(c, pod)}:${CLIENT_PORT}`;
}

/**
 * The pod name a peer URL belongs to, if it is one of this cluster's: `<pod>.<cluster>.<namespace>.svc`, with or
 * without a domain after it (the domain a spec named may have changed since the member was added). Whose member
 * it is was settled before (observe.ts: only a member list of this cluster's own ID is read).
 */
export function podOfPeerURL(c: Cluster, url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return undefined;
  }
  const marker = `.${c.name}.${c.namespace}.svc`;
  const at = host.indexOf(marker);
  const pod = host.slice(0, Math.max(at, 0));
  const rest = host.slice(at + marker.length);
  return pod && !pod.includes('.') && (rest === '' || rest.startsWith('.')) ? pod : undefined;
}

/** The pod of a member of this cluster's member list: by its peer URL, else by its name (once it started). */
export function podOfMember(c: Cluster, m: { name: string; peerURLs: string[] }): string | undefined {
  return podOfPeerURL(c, m.peerURLs[0] ?? '') ?? (m.name || undefined);
}

/**
 * The label only this cluster's member pods carry (parents side by side). etcd-operator's labels
 * (`app=etcd`, `etcd_cluster=<name>`) are not ownership: its leftovers, a Helm chart's etcd or a pod made by hand in
 * the namespace may carry them, and a Service selecting only those would send the cluster's clients and peers there
 * (and give such a pod a member's DNS name). Member pods carry this one too (a spec.pod.labels key under metaops.io
 * is never set: ownKey), and the Services, the budget and the scale selector select on it once every member pod does
 * (sync.ts servicesSelectOwn).
 */
export const INSTANCE_LABEL = 'etcdcluster.metaops.io/instance';

/**
 * The member pods' selector: etcd-operator's labels, kept so that existing selectors (and the seed's tooling) still
 * find the pods, and (`own`) INSTANCE_LABEL, so that no other pod carrying those is selected.
 */
export function selector(cluster: string, own = false): Record<string, string> {
  return own
    ? { app: 'etcd', etcd_cluster: cluster, [INSTANCE_LABEL]: cluster }
    : { app: 'etcd', etcd_cluster: cluster };
}

/**
 * The member pods' selector as one string (`app=etcd,etcd_cluster=<name>`, and INSTANCE_LABEL when `own`), as the
 * scale subresource reports it.
 */
export function selectorText(cluster: string, own = false): string {
  return Object.entries(selector(cluster, own))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

function labels(cluster: string, version?: string): Record<string, string> {
  return { ...childLabels(APP, cluster, 'member', { version }), ...selector(cluster) };
}

/**
 * A member pod with INSTANCE_LABEL and etcd-operator's etcd_node=<pod name> (a copy; the pod itself untouched). A
 * running member's pod made before either takes them in place: a label is metadata, which Metacontroller updates in
 * place (childResources pods: InPlace); nothing else changes.
 */
export function withMemberLabels(pod: KubeObject, cluster: string): KubeObject {
  const node = pod.metadata.name!;
  if (pod.metadata.labels?.[INSTANCE_LABEL] === cluster && pod.metadata.labels?.['etcd_node'] === node) return pod;
  const labels = { ...pod.metadata.labels, [INSTANCE_LABEL]: cluster, etcd_node: node };
  return { ...pod, metadata: { ...pod.metadata, labels } };
}

const PEER_TLS_DIR = '/etc/etcdtls/member/peer-tls';
const SERVER_TLS_DIR = '/etc/etcdtls/member/server-tls';

/** The etcd command line of a member. */
export function memberCommand(
  c: Cluster,
  pod: string,
  initialCluster: string,
  state: 'new' | 'existing',
  token: string,
): string[] {
  const peer = c.peerTLS ? 'https' : 'http';
  const client = c.clientTLS ? 'https' : 'http';
  const cmd = [
    ETCD_BINARY,
    `--data-dir=${DATA_DIR}`,
    `--name=${pod}`,
    `--initial-advertise-peer-urls=${peerURL(c, pod)}`,
    `--listen-peer-urls=${peer}://0.0.0.0:${PEER_PORT}`,
    `--listen-client-urls=${client}://0.0.0.0:${CLIENT_PORT}`,
    `--advertise-client-urls=${clientURL(c, pod)}`,
    `--initial-cluster=${initialCluster}`,
    `--initial-cluster-state=${state}`,
    `--initial-cluster-token=${token}`,
  ];
  if (c.peerTLS) {
    cmd.push(
      '--peer-client-cert-auth=true',
      `--peer-trusted-ca-file=${PEER_TLS_DIR}/peer-ca.crt`,
      `--peer-cert-file=${PEER_TLS_DIR}/peer.crt`,
      `--peer-key-file=${PEER_TLS_DIR}/peer.key`,
    );
  }
  if (c.clientTLS) {
    cmd.push(
      '--client-cert-auth=true',
      `--trusted-ca-file=${SERVER_TLS_DIR}/server-ca.crt`,
      `--cert-file=${SERVER_TLS_DIR}/server.crt`,
      `--key-file=${SERVER_TLS_DIR}/server.key`,
    );
  }
  return cmd;
}

/** A member's etcd command line on `version`: `command` (memberCommand) and the metrics listener of etcd 3.3+. */
export function withMetricsListener(version: string, command: string[]): string[] {
  // etcd 3.3+ serves /metrics (and 3.5.11+ /livez) on a plain HTTP listener of its own: the liveness probe's.
  return atLeast(version, 3, 3) ? [...command, `--listen-metrics-urls=http://0.0.0.0:${METRICS_PORT}`] : command;
}

/**
 * The variables etcd reads for the flags a member's command sets on `version` (`--data-dir` -> ETCD_DATA_DIR), each
 * with its flag, over every command a member of that version is started with (TLS or not, new or existing). etcd
 * 3.5+ exits at start on such a variable in its environment ("conflicting environment variable is shadowed by
 * corresponding command-line flag"), earlier versions ignore it: spec.pod.etcdEnv naming one is refused (index.ts).
 */
export function shadowedVariables(version: string): Map<string, string> {
  const variables = new Map<string, string>();
  const variants = [false, true].flatMap((peerTLS) =>
    [false, true].flatMap((clientTLS) =>
      (['new', 'existing'] as const).map((state) => ({ peerTLS, clientTLS, state })),
    ),
  );
  for (const { peerTLS, clientTLS, state } of variants) {
    // Stryker disable next-line StringLiteral: a flag's name does not depend on the cluster's name, namespace or domain
    const c: Cluster = { name: 'e', namespace: 'n', domain: '.cluster.local', peerTLS, clientTLS };
    // Stryker disable next-line StringLiteral: nor on the pod, initial cluster or token (memberCommand's values)
    const command = withMetricsListener(version, memberCommand(c, 'e-0', 'e-0=http://e-0:2380', state, 't'));
    for (const flag of command.filter((a) => a.startsWith('--')).map((a) => a.slice(2).split('=')[0]!))
      variables.set(`ETCD_${flag.replace(/-/g, '_').toUpperCase()}`, `--${flag}`);
  }
  return variables;
}

/**
 * The etcd variables (ETCD_<FLAG>) spec.pod.etcdEnv may set: etcd's tuning, which changes how fast or how much a
 * member does, never where it keeps its data, where or how it listens, which peers or TLS it uses, or how it logs to
 * anything but its output. Every other ETCD_ variable is refused (index.ts etcdVariableProblem): an allowlist, because
 * etcd reads every ETCD_ variable as one of its flags and each release adds flags (3.5 --listen-client-http-urls moves
 * the HTTP gateway the hook speaks to off the client port, --wal-dir moves the WAL the check-data step looks for,
 * --enable-grpc-gateway=false takes that gateway away), so a denylist is out of date with the next release. Read from
 * `etcd --help` of 3.2 to 3.6: a name a member's version does not know is only warned about by etcd.
 */
export const TUNING_VARIABLES: ReadonlySet<string> = new Set(
  [
    // Raft timing and snapshots.
    'heartbeat-interval',
    'election-timeout',
    'initial-election-tick-advance',
    'pre-vote',
    'snapshot-count',
    'snapshot-catchup-entries',
    'experimental-snapshot-catchup-entries',
    'max-snapshots',
    'max-wals',
    // Backend size and batching, compaction.
    'quota-backend-bytes',
    'backend-batch-interval',
    'backend-batch-limit',
    'backend-bbolt-freelist-type',
    'experimental-backend-bbolt-freelist-type',
    'auto-compaction-retention',
    'auto-compaction-mode',
    'compaction-batch-limit',
    'experimental-compaction-batch-limit',
    'compaction-sleep-interval',
    'experimental-compaction-sleep-interval',
    'bootstrap-defrag-threshold-megabytes',
    'experimental-bootstrap-defrag-threshold-megabytes',
    'memory-mlock',
    'experimental-memory-mlock',
    // Requests and gRPC.
    'max-request-bytes',
    'max-txn-ops',
    'max-concurrent-streams',
    'grpc-keepalive-min-time',
    'grpc-keepalive-interval',
    'grpc-keepalive-timeout',
    'watch-progress-notify-interval',
    'experimental-watch-progress-notify-interval',
    'warning-apply-duration',
    'experimental-warning-apply-duration',
    'warning-unary-request-duration',
    'experimental-warning-unary-request-duration',
    'experimental-txn-mode-write-with-shared-buffer',
    'experimental-stop-grpc-service-on-defrag',
    // Leases, corruption checks.
    'experimental-enable-lease-checkpoint',
    'experimental-enable-lease-checkpoint-persist',
    'initial-corrupt-check',
    'experimental-initial-corrupt-check',
    'corrupt-check-time',
    'experimental-corrupt-check-time',
    'compact-hash-check-time',
    'experimental-compact-hash-check-enabled',
    'experimental-compact-hash-check-time',
    'feature-gates',
    // Logs to the container's output, metrics, profiling; the v2 API (3.2-3.5) and unsupported architectures.
    'log-level',
    'log-format',
    'debug',
    'log-package-levels',
    'logger',
    'metrics',
    'enable-pprof',
    'enable-v2',
    'unsupported-arch',
  ].map((flag) => `ETCD_${flag.replace(/-/g, '_').toUpperCase()}`),
);

/** etcd-operator's busybox image for the DNS check (spec.pod.busyboxImage overrides it). */
export const DEFAULT_BUSYBOX_IMAGE = 'busybox:1.28.0-glibc';

/**
 * The `check-dns` init step, as etcd-operator made it: wait until the member's own DNS name resolves, since etcd
 * exits on a peer name it cannot resolve. spec.pod.DNSTimeoutInSecond bounds the wait (0, the default: no bound);
 * past it the step fails and the kubelet tries it again.
 */
export function checkDns(c: Cluster, spec: EtcdClusterSpec, pod: string): Record<string, unknown> {
  const timeout = Math.max(0, Math.floor(spec.pod?.DNSTimeoutInSecond ?? 0));
  const host = memberHost(c, pod);
  // Only DNS labels and digits go into the script: the names are checked (identity.ts, names.ts), the timeout is
  // an integer.
  const script = [
    `TIMEOUT_READY=${timeout}`,
    ...(c.domain ? [`while ( ! nslookup ${host} )`] : relativeLookup(host)),
    'do',
    '  # If TIMEOUT_READY is 0 we should never time out and exit',
    '  TIMEOUT_READY=$(( TIMEOUT_READY-1 ))',
    '  if [ $TIMEOUT_READY -eq 0 ];',
    '  then',
    '    echo "Timed out waiting for DNS entry"',
    '    exit 1',
    '  fi',
    '  sleep 1',
    'done',
  ].join('\n');
  return {
    name: 'check-dns',
    image: spec.pod?.busyboxImage || DEFAULT_BUSYBOX_IMAGE,
    command: ['/bin/sh', '-c', script],
    securityContext: restrictedContainerSecurity(),
  };
}

/** The init step that checks a member made again on its claim holds that member's data (checkData). */
export const DATA_CHECK = 'check-data';
/** Its exit code when the data is missing (sysexits' EX_NOINPUT); any other exit says nothing of the data. */
export const DATA_MISSING_EXIT = 66;
/** The words its message starts with when the data is missing: read with DATA_MISSING_EXIT (pods.ts dataMissing). */
export const DATA_MISSING_MARK = 'etcd member data missing';

/**
 * The `check-data` init step of a member that started once and is made again on its claim (its pod lost: plan
 * answered.ts recreatedPods, view.ts restartPods): etcd is started with `--initial-cluster-state=existing`, and on an
 * empty data directory it would take the member's old ID from its peers with an empty raft log, and vote as if it
 * remembered what it acknowledged (a committed write can be lost). So the step exits DATA_MISSING_EXIT, saying
 * DATA_MISSING_MARK, when `<data-dir>/member/snap` or a `member/wal/*.wal` file is missing, and the hook replaces the
 * member (plan/members.ts replaceDataLost). It runs the busybox image the DNS wait runs (official etcd images from
 * 3.5 have no shell). A directory it cannot read is no proof of anything: it exits 1 (not read as data lost), and
 * the kubelet runs it again. Its message is its output (FallbackToLogsOnError): nothing writes a file for it.
 */
export function checkData(spec: EtcdClusterSpec, fresh = false): Record<string, unknown> {
  const member = `${DATA_DIR}/member`;
  const script = [
    // A pod made fresh (freshDataCheck): its first run records that this pod started etcd on the volume, and passes
    // on an empty one; every later run (its sandbox made again) checks as for a pod made again on its claim.
    ...(fresh
      ? [
          `if [ ! -e ${STARTED_DIR}/started ]; then`,
          `  echo started > ${STARTED_DIR}/started || { echo "cannot record the first start in ${STARTED_DIR}"; exit 1; }`,
          '  exit 0',
          'fi',
        ]
      : []),
    `for d in ${DATA_DIR} ${member} ${member}/wal; do`,
    '  if [ -e "$d" ] && ! ls "$d" >/dev/null 2>&1; then',
    '    echo "cannot read $d: the data check proves nothing"',
    '    exit 1',
    '  fi',
    'done',
    'missing=""',
    `[ -d ${member}/snap ] || missing="${member}/snap"`,
    `set -- ${member}/wal/*.wal`,
    `[ -f "$1" ] || missing="\${missing:+$missing and }${member}/wal/*.wal"`,
    'if [ -n "$missing" ]; then',
    `  echo "${DATA_MISSING_MARK}: no $missing on the member's volume; etcd is not started under the member's old ID"`,
    `  exit ${DATA_MISSING_EXIT}`,
    'fi',
  ].join('\n');
  return {
    name: DATA_CHECK,
    image: spec.pod?.busyboxImage || DEFAULT_BUSYBOX_IMAGE,
    command: ['/bin/sh', '-c', script],
    volumeMounts: [
      { name: 'etcd-data', mountPath: '/var/etcd', readOnly: true },
      ...(fresh ? [{ name: STARTED_VOLUME, mountPath: STARTED_DIR }] : []),
    ],
    terminationMessagePolicy: 'FallbackToLogsOnError',
    securityContext: restrictedContainerSecurity(),
  };
}

/**
 * The volume a member pod made fresh with a claim records its first start on (its data check, checkData `fresh`): an
 * emptyDir, which lives as long as the pod, through its sandbox made again (a node reboot, a container runtime
 * restart), and goes with it. Not the data volume: it is the one that may come back empty.
 */
export const STARTED_VOLUME = 'member-started';
const STARTED_DIR = '/var/lib/etcd-member';

/**
 * The data check of a member pod made fresh on a claim (a bootstrap member, an addition, a replacement: its data
 * directory is empty when it first starts). Its first run passes and records the start (STARTED_VOLUME); when its
 * sandbox is made again and the claim came back empty (a local volume on a wiped disk), it finds no data and the
 * member is replaced, never started under its old ID with an empty log (which etcd would do: the member ID comes from
 * its peers, or, for `new`, from its name and peer URLs). Limits: a start recorded before etcd wrote its data (the
 * sandbox made again in between) reads as data lost too (a member that never started is made again fresh:
 * plan/answered.ts); an emptyDir lost with the node's disk while the pod stays reads as a first start.
 */
export function freshDataCheck(spec: EtcdClusterSpec): Record<string, unknown> {
  return checkData(spec, true);
}

/**
 * The check-dns loop head for a relative member name (`<pod>.<cluster>.<ns>.svc`, a cluster that keeps the names its
 * members were made with). The pod resolves with `ndots:1` (podDnsConfig): glibc's resolver (the default busybox)
 * tries the search domains after the name as it is, but musl's (an alpine busyboxImage) does not search a name with
 * ndots dots or more at all; so the name is also looked up under each of the pod's search domains, as etcd (Go)
 * finds it.
 */
function relativeLookup(host: string): string[] {
  return [
    'found() {',
    `  nslookup ${host} && return 0`,
    `  for d in $(sed -n 's/^search //p' /etc/resolv.conf); do nslookup ${host}.$d && return 0; done`,
    '  return 1',
    '}',
    'while ( ! found )',
  ];
}

/** Where a restore fetches the snapshot from, and with which image. */
export interface RestoreSource {
  s3: {
    path: string;
    awsSecret?: string | undefined;
    endpoint?: string | undefined;
    forcePathStyle?: boolean | undefined;
  };
  /** This project's image, which carries `metaops etcd-restore-fetch`. */
  image: string;
  /** What the restore's check verified and pinned (its sha256, version or copy): the only bytes fetched. */
  snapshot?: SnapshotPin | undefined;
}

/** The fetch step's arguments for the pin: the bytes checked, and where they stay. */
function pinArgs(pin: SnapshotPin | undefined): string[] {
  if (!pin) return [];
  return [
    '--sha256',
    pin.sha256,
    ...(pin.versionId ? ['--version-id', pin.versionId] : []),
    ...(pin.pinnedPath ? ['--pinned-path', pin.pinnedPath] : []),
  ];
}

const SNAPSHOT = '/var/etcd/snapshot.db';
/** Where etcdutl restores the snapshot before the place step makes it the member's data (DATA_DIR). */
const RESTORED_DIR = '/var/etcd/restored';

/** The binary that restores a snapshot in the members' etcd image: etcdutl from 3.5, etcdctl before. */
export function restoreTool(spec: EtcdClusterSpec): string {
  const version = etcdVersion(spec.version).split('.').map(Number);
  const etcdutl = (version[0] ?? 0) > 3 || ((version[0] ?? 0) === 3 && (version[1] ?? 0) >= 5);
  return etcdutl ? '/usr/local/bin/etcdutl' : '/usr/local/bin/etcdctl';
}

/**
 * The names of a restored member's restore steps (restoreInitContainers): any other init container of its pod is its
 * DNS wait (check-dns) or not the hook's (one a mutating webhook added: istio-init, linkerd-init, vault-agent-init).
 */
export const RESTORE_STEPS: ReadonlySet<string> = new Set(['fetch-snapshot', 'restore-snapshot', 'place-snapshot']);

/**
 * The init steps of a member restored from a snapshot: fetch it from S3 (this project's CLI), then
 * `etcdutl snapshot restore` (etcdctl before 3.5) into the member's data directory.
 */
// eslint-disable-next-line max-params -- the cluster, its spec, the member, its token, and where the snapshot comes from: all six differ per restored member
export function restoreInitContainers(
  c: Cluster,
  spec: EtcdClusterSpec,
  pod: string,
  token: string,
  source: RestoreSource,
  initialCluster = `${pod}=${peerURL(c, pod)}`,
): unknown[] {
  const access = s3Access(source.s3);
  return [
    {
      name: 'fetch-snapshot',
      image: source.image,
      command: METAOPS_CLI,
      // Run again after the member started (a sandbox recreated), it keeps the member's data and the snapshot.
      args: [
        'etcd-restore-fetch',
        '--s3-path',
        source.s3.path,
        '--file',
        SNAPSHOT,
        '--restore-dir',
        RESTORED_DIR,
        '--data-dir',
        DATA_DIR,
        ...pinArgs(source.snapshot),
        ...access.args,
      ],
      env: access.env,
      envFrom: access.envFrom,
      volumeMounts: [{ name: 'etcd-data', mountPath: '/var/etcd' }, ...access.mounts],
      securityContext: restrictedContainerSecurity(),
    },
    {
      name: 'restore-snapshot',
      image: image(spec),
      command: [
        restoreTool(spec),
        'snapshot',
        'restore',
        SNAPSHOT,
        `--data-dir=${RESTORED_DIR}`,
        `--name=${pod}`,
        `--initial-cluster=${initialCluster}`,
        `--initial-advertise-peer-urls=${peerURL(c, pod)}`,
        `--initial-cluster-token=${token}`,
      ],
      env: [{ name: 'ETCDCTL_API', value: '3' }],
      volumeMounts: [{ name: 'etcd-data', mountPath: '/var/etcd' }],
      securityContext: restrictedContainerSecurity(),
    },
    {
      // The restored data becomes the member's, unless it has data already (these steps ran again).
      name: 'place-snapshot',
      image: source.image,
      command: METAOPS_CLI,
      args: ['etcd-restore-place', '--restore-dir', RESTORED_DIR, '--data-dir', DATA_DIR],
      volumeMounts: [{ name: 'etcd-data', mountPath: '/var/etcd' }],
      securityContext: restrictedContainerSecurity(),
    },
  ];
}

export interface MemberPodOptions {
  parent: ParentObject;
  spec: EtcdClusterSpec;
  /** The member's name, which is its pod's (and its claim's). */
  name: string;
  /** `--initial-cluster`: the members it starts with (`name=peerURL,...`). */
  initialCluster: string;
  /** `--initial-cluster-state`: `new` for members that bootstrap together, `existing` to join or restart. */
  state: 'new' | 'existing';
  /**
   * A member that started once, made again on its claim: etcd starts only if the claim holds its data (checkData).
   * Not for a member made fresh (a bootstrap, an addition, a restore: an empty data directory is right there); one
   * made fresh on a claim checks its claim from its second run of its steps on (freshDataCheck).
   */
  requireData?: boolean | undefined;
  /** Where its data comes from when it is restored from a snapshot. */
  restore?: RestoreSource | undefined;
  /** The EtcdRestore it is restored for (its uid), recorded on the pod (RESTORED_BY): it outlives a lost status. */
  restoreUid?: string | undefined;
  /** The EtcdRestore's name, recorded on the pod (RESTORED_NAME): one made again under it is known by it. */
  restoreName?: string | undefined;
}

/**
 * The etcd version a member pod's image was given at (its tag `v<version>`), recorded with it whenever the hook gives
 * the pod an image (memberPod, plan/member-pods.ts withImage): the hook's own record, read when an admission policy
 * put a digest in place of the tag (memberImage). Written over any spec.pod.annotations of the same key.
 */
export const MEMBER_VERSION = 'etcd.version';

/**
 * The image the hook gave a member pod's etcd container (`<spec.repository>:v<version>`), recorded with it whenever it
 * gives one (memberPod, plan/member-pods.ts withImage), beside MEMBER_VERSION: read when an admission webhook pointed
 * the image at another registry or repository (a registry mirror) at the same tag (memberImage). Written over any
 * spec.pod.annotations of the same key.
 */
export const MEMBER_IMAGE = 'etcd.metaops.io/image';

/** The annotation naming the EtcdRestore (uid) a member pod was restored for; never taken from spec.pod. */
export const RESTORED_BY = 'etcd.metaops.io/restored-by';

/**
 * The annotation naming the EtcdRestore (its name) a member pod was restored for, beside RESTORED_BY: after the
 * status is lost, an EtcdRestore made again under that name from the snapshot the pod's fetch step reads is known
 * as the restore carried out already (plan/restore-check.ts). Never taken from spec.pod.
 */
export const RESTORED_NAME = 'etcd.metaops.io/restored-name';

/**
 * The fingerprint of the spec.pod a member pod was made from (podSpecFingerprint), recorded on it (memberPod): a
 * member pod that does not run etcd (it cannot start on that spec) and whose fingerprint is not the spec's is made
 * again with the spec of the moment (plan/respec.ts). Never taken from spec.pod.
 */
export const POD_SPEC = 'etcd.metaops.io/pod-spec';

/** Keys sorted at every level: the same spec, whatever order its fields came in, gives the same text. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]),
  );
}

/**
 * The fingerprint of what of spec.pod shapes a member pod (its resources, etcdEnv, busyboxImage, placement, labels
 * and annotations...): not the claim's spec (a claim is never changed under a member, and a member made again keeps
 * its claim) nor the cluster domain (the sync fills it in with the server's when the spec names none). The version
 * and repository are the upgrade's (upgrade.ts), not in it.
 */
export function podSpecFingerprint(spec: EtcdClusterSpec): string {
  const {
    persistentVolumeClaimSpec: _claim,
    clusterDomain: _domain,
    ClusterDomain: _coreos,
    ...pod
  } = (spec.pod ?? {}) as Record<string, unknown>;
  return createHash('sha256')
    .update(JSON.stringify(sortedKeys(pod)))
    .digest('hex')
    .slice(0, 16);
}

type PodPolicy = NonNullable<EtcdClusterSpec['pod']>;

/** The pod of a new member. Existing members keep the pod they were created with (see sync.ts). */
export function memberPod({
  parent,
  spec,
  name: pod,
  initialCluster,
  state,
  requireData,
  restore,
  restoreUid,
  restoreName,
}: MemberPodOptions): KubeObject {
  const c = clusterOf(parent, spec);
  const version = etcdVersion(spec.version);
  const policy = spec.pod ?? {};
  const uid = parent.metadata.uid ?? c.name;
  const history = restoresCarriedOutAnnotation(restoresCarriedOut(parent));
  const { volumes, mounts } = memberVolumes(c, spec, pod);
  const command = withMetricsListener(version, memberCommand(c, pod, initialCluster, state, uid));
  const container = etcdContainer(c, spec, mounts, command, version);
  const fresh = !requireData && !restore && Boolean(spec.pod?.persistentVolumeClaimSpec);
  if (fresh) volumes.push({ name: STARTED_VOLUME, emptyDir: { sizeLimit: '1Mi' } });
  const podSpec: Record<string, unknown> = {
    hostname: pod,
    subdomain: c.name,
    // A member whose etcd exits (a crash, an OOM kill, a container runtime restart) is restarted in place by the
    // kubelet: the same member, on its data (an emptyDir outlives its container). One whose pod is gone, or that
    // stays unhealthy past UNHEALTHY_REPLACE_SECONDS, is replaced (plan.ts).
    restartPolicy: 'Always',
    // Its own DNS name first: etcd exits on a peer name that does not resolve yet (check-dns, as etcd-operator).
    // A member made again on its claim first proves the claim holds its data (checkData).
    // A member made fresh on a claim checks it too whenever its sandbox is made again (freshDataCheck), after its
    // DNS wait: its first start is recorded as late as it can be. (Restored members: their restore steps.)
    initContainers: [
      ...(requireData && !restore ? [checkData(spec)] : []),
      checkDns(c, spec, pod),
      ...(fresh ? [freshDataCheck(spec)] : []),
    ],
    containers: [container],
    volumes,
    // Names with a dot looked up as they are first (lib/names.ts): the restore steps dial S3, STS or a custom
    // endpoint by name, and with ndots 5 a tenant's namespace `com` would answer `sts.amazonaws.com` first. Only
    // pods made from now on: a running member is kept as it was made (its DNS settings cannot change in place).
    dnsConfig: podDnsConfig(),
    // The spec's image calls no Kubernetes API: no token of the namespace's default ServiceAccount. Only
    // pods made from now on, as dnsConfig: a running member is kept as it was made (the field cannot change in place).
    automountServiceAccountToken: false,
  };
  if (restore) {
    (podSpec['initContainers'] as unknown[]).push(...restoreInitContainers(c, spec, pod, uid, restore, initialCluster));
    // Optional: the restore's Secret is needed for the first fetch only. A tenant deletes it once the restore is done;
    // when the member's sandbox is recreated later (a node reboot), its fetch step finds the data kept and asks
    // nothing of S3 (main/cli.ts), and a required volume would keep the pod from starting at all.
    const aws = s3Access(restore.s3, { optionalVolume: true });
    volumes.push(...aws.volumes);
  }
  Object.assign(podSpec, placement(c, policy));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: pod,
      namespace: parent.metadata.namespace,
      // etcd_node names the member, as etcd-operator labelled its pods.
      labels: {
        ...userAnnotations(policy.labels),
        ...labels(c.name, version),
        [INSTANCE_LABEL]: c.name,
        etcd_node: pod,
      },
      annotations: {
        ...userAnnotations(policy.annotations),
        [MEMBER_VERSION]: version,
        [MEMBER_IMAGE]: image(spec),
        [POD_SPEC]: podSpecFingerprint(spec),
        ...(restore && restoreUid ? { [RESTORED_BY]: restoreUid } : {}),
        ...(restore && restoreName ? { [RESTORED_NAME]: restoreName } : {}),
        // The restores carried out before this member was made (restored members: those before theirs; a member
        // added later inherits them): they outlive a lost status (etcdcommon RESTORES_CARRIED_OUT).
        ...(history ? { [RESTORES_CARRIED_OUT]: history } : {}),
      },
    },
    spec: podSpec,
  };
}

/** A member's volumes and its etcd container's mounts: its data, and the static TLS Secrets it serves with. */
function memberVolumes(c: Cluster, spec: EtcdClusterSpec, pod: string): { volumes: unknown[]; mounts: unknown[] } {
  const volumes: unknown[] = [
    spec.pod?.persistentVolumeClaimSpec
      ? { name: 'etcd-data', persistentVolumeClaim: { claimName: pod } }
      : { name: 'etcd-data', emptyDir: {} },
  ];
  const mounts: unknown[] = [{ name: 'etcd-data', mountPath: '/var/etcd' }];
  if (c.peerTLS) {
    volumes.push({ name: 'member-peer-tls', secret: { secretName: spec.TLS!.static!.member!.peerSecret } });
    mounts.push({ name: 'member-peer-tls', mountPath: PEER_TLS_DIR, readOnly: true });
  }
  if (c.clientTLS) {
    volumes.push({ name: 'member-server-tls', secret: { secretName: spec.TLS!.static!.member!.serverSecret } });
    mounts.push({ name: 'member-server-tls', mountPath: SERVER_TLS_DIR, readOnly: true });
  }
  return { volumes, mounts };
}

/**
 * An etcdctl v3 command run against the member itself (with its server certificate under TLS): `endpoint status`
 * (the liveness probe's before etcd 3.3), `alarm list` (the readiness probe's before 3.6).
 */
function etcdctlCommand(c: Cluster, args: string[]): string[] {
  const probeEndpoint = `${c.clientTLS ? 'https' : 'http'}://localhost:${CLIENT_PORT}`;
  return [
    '/usr/local/bin/etcdctl',
    `--endpoints=${probeEndpoint}`,
    ...(c.clientTLS
      ? [
          `--cacert=${SERVER_TLS_DIR}/server-ca.crt`,
          `--cert=${SERVER_TLS_DIR}/server.crt`,
          `--key=${SERVER_TLS_DIR}/server.key`,
        ]
      : []),
    ...args,
  ];
}

/** Whether an etcd version (`3.5.17`, `3.6.0-rc.1`) is `major.minor` or newer. */
function atLeast(version: string, major: number, minor: number): boolean {
  const [ma, mi] = version.split('.').map((x) => Number.parseInt(x, 10));
  if (ma === undefined || mi === undefined || Number.isNaN(ma) || Number.isNaN(mi)) return false;
  return ma > major || (ma === major && mi >= minor);
}

/**
 * The liveness probe of a member's etcd (the kubelet restarts its container in place when it fails): whether this
 * etcd process still serves, asked of the member alone, never of the cluster: a member that serves while quorum is
 * lost passes it (else every member would be restarted in a loop for as long as quorum is lost). A process frozen
 * (alive, not serving: a stalled disk, a deadlock, a cgroup freeze) fails it and is restarted, on its data.
 * - etcd 3.6+: GET /livez on the metrics listener (a serializable read of the member's own store; no alarm, no
 *   leader asked: NOSPACE restarts nothing);
 * - 3.3 to 3.5: GET /metrics there (the process answers; /livez only came with 3.5.11, and a patch change in place
 *   to an older 3.5 would fail it for good; /health asks for quorum, or fails on an alarm, in those versions);
 * - older (no metrics listener): `etcdctl endpoint status`, the member's own Status (local; it answers without a
 *   leader), with its certificate under TLS.
 * A version changed in place (an upgrade) keeps the probe its pod was made with: each works on the later versions.
 * Generous: 3 minutes of no answer (6 periods of 30 s, 10 s each) before a restart, so that a defragmentation or a
 * slow disk does not have a member killed; the startup probe gives a member 10 minutes to start (a large WAL replayed)
 * before liveness counts.
 */
export function livenessProbe(c: Cluster, version: string): { startupProbe: unknown; livenessProbe: unknown } {
  const handler = atLeast(version, 3, 3)
    ? { httpGet: { path: atLeast(version, 3, 6) ? '/livez' : '/metrics', port: METRICS_PORT, scheme: 'HTTP' } }
    : { exec: { command: etcdctlCommand(c, ['endpoint', 'status']) } };
  return {
    startupProbe: { ...handler, periodSeconds: 10, timeoutSeconds: 10, failureThreshold: 60 },
    livenessProbe: { ...handler, periodSeconds: 30, timeoutSeconds: 10, failureThreshold: 6 },
  };
}

/** etcd 3.6's /readyz without its data_corruption check (a CORRUPT alarm makes no member NotReady). */
export const READYZ_PATH = '/readyz?exclude=data_corruption';

/**
 * The readiness probe of a member's etcd (a Ready member is in the client Service, and counts as available to the
 * PodDisruptionBudget): whether this member serves its clients, which it cannot without quorum, nor as a learner
 * (etcd refuses a learner every client request but serializable reads). Asked without credentials, and etcd's
 * authentication enabled (docs/etcdcluster.md, not supported, but the members keep serving) must not make a serving
 * member NotReady: `etcdctl endpoint health` counts `permission denied` as healthy but not etcd's answer to a request
 * without a user, `user name is empty` (coreos/etcd-operator#1051), so every member went NotReady.
 * - etcd 3.6+: GET /readyz?exclude=data_corruption on the metrics listener (plain HTTP, also under TLS): a linearizable
 *   read (quorum) and a serializable one, made by etcd as root, not a learner; its data_corruption check (no CORRUPT
 *   alarm) left out, as below;
 * - before 3.6: `etcdctl alarm list` (with its certificate under TLS): a request through raft (quorum; a learner is
 *   refused it) that etcd before 3.6 answers without credentials. /readyz only came with 3.5.11 (a patch change in
 *   place to an older 3.5 would fail it for good), and /health does not refuse a learner, which the disruption
 *   budget would then count as available.
 * An active alarm (NOSPACE, CORRUPT) keeps a serving member Ready: an alarm is the cluster's (etcd refuses every write
 * on every member, whichever member ID it names), and every member NotReady at once would empty the client Service
 * through which it is dealt with and let a drain evict them all (without storage: every member's data). The status
 * says the alarm (`NoSpace`, `DataCorrupt`: plan/members.ts) and names the member it names.
 * A version changed in place (an upgrade) keeps the probe its pod was made with: `alarm list` asks for credentials
 * from 3.6 on, so a member made before 3.6 is NotReady there only while authentication is enabled.
 */
export function readinessProbe(c: Cluster, version: string): Record<string, unknown> {
  const handler = atLeast(version, 3, 6)
    ? { httpGet: { path: READYZ_PATH, port: METRICS_PORT, scheme: 'HTTP' } }
    : { exec: { command: etcdctlCommand(c, ['alarm', 'list']) } };
  return { ...handler, initialDelaySeconds: 1, periodSeconds: 5, timeoutSeconds: 5, failureThreshold: 3 };
}

/** A member's etcd container: `command`, its volumes `mounts`, spec.pod's env and resources. */
function etcdContainer(
  c: Cluster,
  spec: EtcdClusterSpec,
  mounts: unknown[],
  command: string[],
  version: string,
): Record<string, unknown> {
  const policy = spec.pod ?? {};
  const container: Record<string, unknown> = {
    name: 'etcd',
    image: image(spec),
    command,
    ports: [
      { name: 'client', containerPort: CLIENT_PORT, protocol: 'TCP' },
      { name: 'peer', containerPort: PEER_PORT, protocol: 'TCP' },
    ],
    env: [{ name: 'ETCDCTL_API', value: '3' }, ...(policy.etcdEnv ?? [])],
    volumeMounts: mounts,
    readinessProbe: readinessProbe(c, version),
    ...livenessProbe(c, version),
    securityContext: restrictedContainerSecurity(),
  };
  if (policy.resources) container['resources'] = policy.resources;
  return container;
}

/**
 * Where a member runs and as whom: spec.pod's nodeSelector and tolerations, the pod's security context, and its
 * affinity, with one member to a node when spec.pod.antiAffinity is set.
 */
function placement(c: Cluster, policy: PodPolicy): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (policy.nodeSelector) out['nodeSelector'] = policy.nodeSelector;
  if (policy.tolerations) out['tolerations'] = policy.tolerations;
  out['securityContext'] = memberPodSecurity(policy.securityContext as Record<string, unknown> | undefined);
  const affinity = policy.affinity ? (structuredClone(policy.affinity) as Record<string, unknown>) : undefined;
  if (policy.antiAffinity) {
    const anti = {
      requiredDuringSchedulingIgnoredDuringExecution: [
        // Its own members only (INSTANCE_LABEL): another pod labelled etcd_cluster=<name> keeps no member off a node.
        // Pods made from now on: a running member keeps the term it was made with (it matches these pods too).
        { labelSelector: { matchLabels: { [INSTANCE_LABEL]: c.name } }, topologyKey: 'kubernetes.io/hostname' },
      ],
    };
    out['affinity'] = { ...(affinity ?? {}), podAntiAffinity: anti };
  } else if (affinity) {
    out['affinity'] = affinity;
  }
  return out;
}

/**
 * Whether a label or annotation key is one metaops reads or writes: its prefix is etcd-operator's
 * (etcd.database.coreos.com), metaops.io or metaops.dev, or a subdomain of those (debug.metaops.dev/author, the
 * PodBuggerTool author stamp; memcached.metaops.io/instance, mysqlcluster.metaops.io/instance and
 * etcdcluster.metaops.io/instance (INSTANCE_LABEL), which Services select on; metaops.dev/owner...). A tenant's spec.pod.labels or annotations never set one on a member pod: it could make
 * another parent's Service select the pod, or forge what metaops trusts.
 */
export function ownKey(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  const prefix = key.slice(0, slash).toLowerCase();
  return ['metaops.io', 'metaops.dev', 'etcd.database.coreos.com'].some(
    (d) => prefix === d || prefix.endsWith(`.${d}`),
  );
}

/**
 * The label keys a member pod carries (memberPod): the API server merges a pod affinity term's matchLabelKeys into
 * its selector with the pod's labels before it validates the term (index.ts etcdValueProblem).
 */
export function memberLabelKeys(cluster: string, policy: { labels?: unknown }): string[] {
  const user = userAnnotations(policy.labels as Record<string, string> | undefined);
  return Object.keys({ ...user, ...labels(cluster, 'version'), [INSTANCE_LABEL]: cluster, etcd_node: '' });
}

/** spec.pod.annotations (or labels) without the hook's own (ownKey). */
export function userAnnotations(annotations: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(annotations ?? {}).filter(([k]) => !ownKey(k)));
}

/** A member's data volume, when pod.persistentVolumeClaimSpec is set. */
export function memberClaim(parent: ParentObject, spec: EtcdClusterSpec, pod: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: pod, namespace: parent.metadata.namespace, labels: labels(parent.metadata.name) },
    spec: structuredClone(spec.pod!.persistentVolumeClaimSpec) as Record<string, unknown>,
  };
}

/**
 * The headless peer Service <name> (2379 and 2380) and the client Service <name>-client (2379), selecting the member
 * pods (`own`: only those carrying INSTANCE_LABEL).
 */
export function services(parent: ParentObject, own = true): KubeObject[] {
  const name = parent.metadata.name;
  const l = childLabels(APP, name, 'service');
  const ports = [
    { name: 'client', port: CLIENT_PORT },
    { name: 'peer', port: PEER_PORT },
  ];
  return [
    serviceChild(parent, name, l, selector(name, own), ports, { headless: true }),
    serviceChild(parent, `${name}-client`, l, selector(name, own), [{ name: 'client', port: CLIENT_PORT }]),
  ];
}

/**
 * The cluster's PodDisruptionBudget: a voluntary disruption (a node drain) may take a Ready member only while a
 * quorum of the desired size stays available (size 3: one at a time; size 1 or 2: none, a drain waits), and a member
 * that is not Ready at any time (`unhealthyPodEvictionPolicy: AlwaysAllow`). A member that is not Ready serves no
 * quorum, and the tenant who writes the EtcdCluster chooses its image and its nodes: with the API server's default
 * (IfHealthyBudget) members that never become Ready, pinned to nodes, kept those nodes from being drained for ever.
 * The price: a member not Ready when its node is drained goes, and without storage its data (emptyDir) with it
 * (docs/etcdcluster.md, docs/operating.md).
 */
/**
 * minAvailable of the member pods: at rest a quorum of `size`. While the voters differ from the size (a
 * scale-down or growth under way) or there are pods that are not voters (a learner), only as many pods may go as
 * both the voters and the size tolerate losing: `pods` minus the smaller tolerance, never below a quorum of size.
 * It counts the member pods (`own`: only those carrying INSTANCE_LABEL, as the Services select them).
 */
export function disruptionBudget(
  parent: ParentObject,
  size: number,
  voters = size,
  pods = size,
  own = true,
): KubeObject {
  const name = parent.metadata.name;
  const tolerance = (n: number) => n - (Math.floor(n / 2) + 1);
  const minAvailable = Math.max(Math.floor(size / 2) + 1, pods - Math.min(tolerance(voters), tolerance(size)));
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace: parent.metadata.namespace, labels: childLabels(APP, name, 'disruption-budget') },
    spec: { minAvailable, selector: { matchLabels: selector(name, own) }, unhealthyPodEvictionPolicy: 'AlwaysAllow' },
  };
}

/**
 * The image the hook gave a member pod's etcd container (the first container when none is named etcd), read from the
 * pod as observed: an admission policy that pins images by digest rewrites it when the pod is made or moved
 * (`quay.io/coreos/etcd:v3.5.0` is held as `...:v3.5.0@sha256:<hex>` by Kyverno, as `quay.io/coreos/etcd@sha256:<hex>`
 * by Sigstore's policy-controller, which drops the tag). The hook never gives a digest, and records the version it
 * gives with the image (the pod's `etcd.version`, MEMBER_VERSION): a pinned image of that version (lib/images.ts
 * asGiven, the tag dropped or kept) is `<repository>:v<version>`, the image given. An admission webhook that points
 * images at a registry mirror (Kyverno's "replace image registry", an air-gapped cluster's rewriter:
 * `quay.io/coreos/etcd:v3.5.0` held as `mirror.example.com/coreos/etcd:v3.5.0`) keeps the tag: an image of another
 * registry or repository at the tag of the image the hook recorded giving (MEMBER_IMAGE, at `v<etcd.version>`) is
 * that image. Any other is read as written. Every comparison of a member's image with the spec's, and every version
 * read from it, reads this.
 */
export function memberImage(pod: KubeObject): string | undefined {
  const written = memberImageAsWritten(pod);
  if (written === undefined) return undefined;
  const version = pod.metadata?.annotations?.[MEMBER_VERSION];
  if (typeof version !== 'string') return written;
  const given = imageAtTag(written, `v${version}`);
  const at = given !== undefined && asGiven(written, given, true) ? given : written;
  const recorded = pod.metadata.annotations?.[MEMBER_IMAGE];
  return typeof recorded === 'string' && bothAtTag(at, recorded, `v${version}`) ? recorded : at;
}

/** Whether both images name `tag` (whatever registry and repository: one rewritten by admission). */
function bothAtTag(at: string, recorded: string, tag: string): boolean {
  // (Input: an image reference is at most 255 characters of name, 128 of tag and a digest.)
  if (recorded.length > 512) return false;
  const [a, r] = [parseImage(at), parseImage(recorded)];
  return a?.tag === tag && r?.tag === tag;
}

/** The image of a member pod's etcd container as the pod's spec writes it (a digest a policy pinned included). */
export function memberImageAsWritten(pod: KubeObject): string | undefined {
  const listed = (pod['spec'] as { containers?: unknown } | undefined)?.containers;
  if (!Array.isArray(listed)) return undefined;
  // Observed pods are input: an entry may be anything (null), and is then no container.
  const containers = listed as Array<{ name?: unknown; image?: unknown } | null>;
  const chosen = containers.find((c) => c?.name === 'etcd') ?? containers[0];
  return typeof chosen?.image === 'string' ? chosen.image : undefined;
}
