// A restore checks before it acts. An EtcdRestore naming this cluster first gets a check pod
// (`<cluster>-restore-check`): it fetches the snapshot with the restore's own S3 access (its awsSecret, bucket,
// key, endpoint) and verifies it as etcd will (hooks/etcdcommon/snapshot.ts). Meanwhile the cluster runs as
// always. Only a check that passed lets the plan drop the old members (Replacing); a check that failed, or that
// did not finish within RESTORE_CHECK_SECONDS, ends the restore failed with its reason (the EtcdRestore says
// succeeded: false), and the cluster is untouched. Once the old members are dropped, the restored members have
// RESTORE_SECONDS to serve; past that the restore ends RestoreFailed, naming why the pods wait.
import { createHash } from 'node:crypto';
import {
  asGiven,
  parseImage,
  childLabels,
  type KubeObject,
  type ParentObject,
  podDnsConfig,
  quantityValue,
  restrictedContainerSecurity,
  rfc3339,
} from '../../lib/index.js';
import { type CheckedSpec, METAOPS_CLI, s3Access, type RestoreState } from '../etcdcommon/index.js';
import { pinPath, sha256Of, type SnapshotPin, versionIdOf } from '../etcdcommon/pin.js';
import {
  CLIENT_PORT,
  DATA_DIR,
  DEFAULT_BUSYBOX_IMAGE,
  ETCD_BINARY,
  etcdVersion,
  METRICS_PORT,
  PEER_PORT,
  withMetricsListener,
  image as etcdImage,
  memberPodSecurity,
  RESTORE_STEPS,
  restoreTool,
  type RestoreSource,
} from './members.js';
import { sanitize, sanitizeAws } from './pods.js';
import type { EtcdClusterSpec } from './schema.js';
import { DEFAULT_QUOTA_BACKEND_BYTES, memberQuota } from './quota.js';
import { isRecord, parseJson, textOf } from '../../lib/index.js';

/** How long the snapshot check may take (fetching a large snapshot included) before the restore is refused. */
export const RESTORE_CHECK_SECONDS = 600;
/** How long restored members may take to serve after the old members were dropped. */
export const RESTORE_SECONDS = 900;
/** How long one run of a restored member's fetch or restore step may take before the deadline stops sparing it. */
export const RESTORE_STEP_SECONDS = 3600;

/** The check pod's name: no member is named so (members are `<cluster>-<ordinal>`). */
export function checkPodName(cluster: string): string {
  return `${cluster}-restore-check`;
}

/** The pod that checks a restore's snapshot before anything is dropped. */
export function restoreCheckPod(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  source: RestoreSource,
  restoreUid: string,
): KubeObject {
  const name = parent.metadata.name;
  // The Secret is optional here, so that a missing one is the check's answer (with its name), not a pod that never
  // starts; the check still refuses to go on without the credentials it names.
  const access = s3Access(source.s3, { optionalVolume: true });
  const { volumes } = access;
  const place = checkPlacement(spec);
  // The check keeps what it verified for the restored members (a copy beside the key, when the bucket keeps no
  // versions): each fetches those bytes later, whatever the key holds by then (snapshot.ts, pin).
  const args = [
    'etcd-restore-check',
    '--s3-path',
    source.s3.path,
    '--pin-path',
    pinPath(source.s3.path, restoreUid),
    ...access.args,
  ];
  if (source.s3.awsSecret) args.push('--aws-secret', source.s3.awsSecret);
  const busybox = spec.pod?.busyboxImage || DEFAULT_BUSYBOX_IMAGE;
  const sources = envSources(spec.pod?.etcdEnv);
  const etcd = etcdStartContainer(spec);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: checkPodName(name),
      namespace: parent.metadata.namespace,
      labels: childLabels('etcd', name, 'restore-check'),
      annotations: {
        'etcd.database.coreos.com/restore-uid': restoreUid,
        [PLACEMENT_KEY]: placementDigest(place),
        [CHECK_IMAGES_KEY]: imagesDigest([source.image, etcdImage(spec), busybox, etcdImage(spec), etcdImage(spec)]),
        [ENV_SOURCES_KEY]: envSourcesDigest(sources),
        // (Its resources, given only with a resourceFieldRef, only then: a check pod made before they were given
        // keeps its digest.)
        [ETCD_START_KEY]: envSourcesDigest([etcd.command, etcd.env, ...(etcd.resources ? [etcd.resources] : [])]),
      },
    },
    spec: {
      restartPolicy: 'Never',
      // The tenant's images (busybox, etcd) call no Kubernetes API: no token of the namespace's default account.
      automountServiceAccountToken: false,
      // The restored members' DNS step runs spec.pod.busyboxImage, which no running member may have pulled (pods
      // keep the init steps they were made with): the check starts it first, so that an image the nodes cannot
      // pull or run is found before any member is dropped (the check waits on it, then fails at its deadline).
      initContainers: checkSteps(spec, busybox, sources),
      containers: [
        {
          name: 'check',
          image: source.image,
          command: METAOPS_CLI,
          args,
          env: access.env,
          envFrom: access.envFrom,
          volumeMounts: access.mounts,
          securityContext: restrictedContainerSecurity(),
        },
        etcd,
      ],
      volumes: [...volumes, { name: ETCD_START_VOLUME, emptyDir: {} }],
      securityContext: memberPodSecurity(spec.pod?.securityContext as Record<string, unknown> | undefined),
      // It dials S3 (or STS, a custom endpoint) by name: looked up as it is first (lib/names.ts).
      dnsConfig: podDnsConfig(),
      ...place,
    },
  };
}

/**
 * The check's busybox-image step: each program a member's steps run from spec.pod.busyboxImage (check-dns: nslookup,
 * sed, sleep; check-data: ls) run once from it, so that an image with a shell but without one of them (a distro base
 * image put in place of busybox) fails the check, not every restored member. A program the shell cannot find or run
 * exits 127 or 126; any other exit (nslookup finding no `localhost` on a cluster's DNS) is the program at work.
 */
export const BUSYBOX_PROGRAMS = [
  'nslookup localhost >/dev/null 2>&1',
  '[ $? -lt 126 ] || { echo "nslookup cannot run in this image"; exit 1; }',
  'sed -n p /dev/null',
  '[ $? -lt 126 ] || { echo "sed cannot run in this image"; exit 1; }',
  'sleep 0',
  '[ $? -lt 126 ] || { echo "sleep cannot run in this image"; exit 1; }',
  'ls / >/dev/null',
  '[ $? -lt 126 ] || { echo "ls cannot run in this image"; exit 1; }',
].join('\n');

/** The digest of the command and env the check's etcd was given (etcdStartContainer), recorded on the check pod. */
const ETCD_START_KEY = 'etcd.metaops.io/check-etcd-start';

/** The check pod's container that starts etcd as the restored members will (etcdStartContainer). */
export const ETCD_START = 'etcd-start';
const ETCD_START_VOLUME = 'etcd-start-data';
const LOCAL = 'http://127.0.0.1';

/**
 * The check's etcd: the restored members' image (`<spec.repository>:v<spec.version>`) started with the flags a
 * member's command sets (memberCommand, withMetricsListener: the same flags, so that etcd reads the same variables as
 * flags and refuses the same ones) and the members' env (`ETCDCTL_API` and spec.pod.etcdEnv, values and Secret or
 * ConfigMap references as they take them), as a cluster of one on the pod's own loopback (nothing reaches it; no
 * member's TLS), on an empty data directory. spec.pod.etcdEnv reaches only pods made after it is set: a value etcd
 * refuses (`ETCD_SNAPSHOT_COUNT=8G`, "invalid value") is found here, where etcd exits at start, before any running
 * member is dropped. It serves until the check pod goes (the hook drops it once the verdict is taken); the check
 * passes only once it is Ready (its probe: `etcdctl endpoint health` on loopback, which a member's etcd that started
 * answers), and fails when it exits (checkVerdict: its last log lines say why, FallbackToLogsOnError).
 */
export function etcdStartContainer(spec: EtcdClusterSpec): Record<string, unknown> {
  const version = etcdVersion(spec.version);
  const name = 'restore-check';
  const command = [
    ETCD_BINARY,
    `--data-dir=${DATA_DIR}`,
    `--name=${name}`,
    `--initial-advertise-peer-urls=${LOCAL}:${PEER_PORT}`,
    `--listen-peer-urls=${LOCAL}:${PEER_PORT}`,
    `--listen-client-urls=${LOCAL}:${CLIENT_PORT}`,
    `--advertise-client-urls=${LOCAL}:${CLIENT_PORT}`,
    `--initial-cluster=${name}=${LOCAL}:${PEER_PORT}`,
    '--initial-cluster-state=new',
    `--initial-cluster-token=${name}`,
  ];
  // A value the env takes from a container's resources (resourceFieldRef: GOMEMLIMIT from limits.memory) is the
  // members' only if this etcd has their resources: it is given them then (etcdStartEnv), and only then.
  const resources = takesResources(spec.pod?.etcdEnv) ? spec.pod?.resources : undefined;
  return {
    name: ETCD_START,
    image: etcdImage(spec),
    command: withMetricsListener(version, command).map((a) =>
      a.replace(`http://0.0.0.0:${METRICS_PORT}`, `${LOCAL}:${METRICS_PORT}`),
    ),
    env: [{ name: 'ETCDCTL_API', value: '3' }, ...etcdStartEnv(spec.pod?.etcdEnv)],
    ...(resources ? { resources: structuredClone(resources) } : {}),
    volumeMounts: [{ name: ETCD_START_VOLUME, mountPath: '/var/etcd' }],
    readinessProbe: {
      exec: { command: ['/usr/local/bin/etcdctl', `--endpoints=${LOCAL}:${CLIENT_PORT}`, 'endpoint', 'health'] },
      initialDelaySeconds: 1,
      periodSeconds: 2,
      timeoutSeconds: 5,
      failureThreshold: 3,
    },
    terminationMessagePolicy: 'FallbackToLogsOnError',
    securityContext: restrictedContainerSecurity(),
  };
}

/** Whether an etcdEnv takes a value from a container's resources (valueFrom.resourceFieldRef). */
function takesResources(env: unknown): boolean {
  return (
    Array.isArray(env) &&
    env.some((e) => isRecord(e) && isRecord(e['valueFrom']) && isRecord(e['valueFrom']['resourceFieldRef']))
  );
}

/**
 * spec.pod.etcdEnv as the check's etcd takes it: as written, but a resourceFieldRef naming the members' etcd
 * container (`containerName: etcd`, the GOMEMLIMIT idiom) names this one. The kubelet resolves such a reference
 * against the pod it is in, and the check pod has no container `etcd`: as written, its etcd would never be made
 * (CreateContainerConfigError) and every restore of such a cluster would be refused at the check's deadline. Given
 * the members' resources too (etcdStartContainer), the reference resolves here to the value it has in a member.
 * Any other container named is left as written (a member's pod has no other of the hook's: such a reference fails
 * there as here).
 */
function etcdStartEnv(env: unknown): unknown[] {
  if (!Array.isArray(env)) return [];
  return env.map((e) => {
    const from = isRecord(e) ? e['valueFrom'] : undefined;
    const ref = isRecord(from) ? from['resourceFieldRef'] : undefined;
    if (!isRecord(e) || !isRecord(from) || !isRecord(ref) || ref['containerName'] !== 'etcd') return e;
    return { ...e, valueFrom: { ...from, resourceFieldRef: { ...ref, containerName: ETCD_START } } };
  });
}

/**
 * What the check starts the restored members' etcd and images as, of the spec its pod is made from (restoredSpec):
 * recorded with the drop of the old members (RestoreState.checked), so that the restored members, made later, are
 * made so (madeAsChecked), whatever the spec says by then: an etcdEnv, version, repository or busyboxImage edited
 * after the check passed (a GitOps tool syncing, a hand edit) reaches no restored member unchecked. Bounded as the
 * spec's fields are (schema.ts).
 */
export function checkedOf(spec: EtcdClusterSpec): CheckedSpec {
  const env = spec.pod?.etcdEnv as unknown[] | undefined;
  const resources = takesResources(env) ? (spec.pod?.resources as Record<string, unknown> | undefined) : undefined;
  return {
    version: spec.version,
    repository: spec.repository,
    ...(spec.pod?.busyboxImage ? { busyboxImage: spec.pod.busyboxImage } : {}),
    ...(env && env.length > 0 ? { etcdEnv: structuredClone(env) } : {}),
    ...(resources ? { resources: structuredClone(resources) } : {}),
  };
}

/**
 * `spec` as the check started the restored members (`checked`, the restore's record: read by type; a record not
 * readable, or none (written before it was kept), leaves the spec as it is): its version, repository,
 * busyboxImage and etcdEnv, and the etcd resources when the check's etcd was given them (etcdStartContainer). The
 * record is the status's: the sync checks what this makes of it as the spec is checked (spec-checks.ts
 * checkedRecordProblem) before any member is made from it.
 */
export function madeAsChecked(spec: EtcdClusterSpec, checked: unknown): EtcdClusterSpec {
  if (!isRecord(checked) || typeof checked['version'] !== 'string' || typeof checked['repository'] !== 'string')
    return spec;
  const { busyboxImage, etcdEnv, resources } = checked;
  if (busyboxImage !== undefined && typeof busyboxImage !== 'string') return spec;
  if (etcdEnv !== undefined && !(Array.isArray(etcdEnv) && etcdEnv.every(isRecord))) return spec;
  if (resources !== undefined && !isRecord(resources)) return spec;
  const { busyboxImage: _busybox, etcdEnv: _env, ...pod } = spec.pod ?? {};
  return {
    ...spec,
    version: checked['version'],
    repository: checked['repository'],
    pod: {
      ...pod,
      ...(busyboxImage ? { busyboxImage } : {}),
      ...(etcdEnv ? { etcdEnv: structuredClone(etcdEnv) } : {}),
      ...(resources ? { resources: structuredClone(resources) } : {}),
    } as EtcdClusterSpec['pod'],
  };
}

/** The state and readiness of the check pod's etcd (etcdStartContainer), if the pod reports them. */
function etcdStartState(pod: KubeObject): { state?: ContainerState['state']; ready: boolean } | undefined {
  const statuses = (pod['status'] as { containerStatuses?: unknown } | undefined)?.containerStatuses;
  if (!Array.isArray(statuses)) return undefined;
  const c = (statuses as Array<(ContainerState & { ready?: unknown }) | null>).find((x) => x?.name === ETCD_START);
  return c ? { ...(c.state ? { state: c.state } : {}), ready: c.ready === true } : undefined;
}

/**
 * What etcd said as it exited (its termination message: its last log lines), for a reason: the last of its JSON log
 * lines that carries a `msg` and an `error` (etcd's "failed to verify flags": `invalid value "8G" for
 * ETCD_SNAPSHOT_COUNT`), else its last line. Observed text: at most 80 lines read, each of at most 2000 characters.
 */
function etcdSaid(message: unknown): string {
  const lines = textOf(message)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .slice(-80);
  for (const line of [...lines].reverse()) {
    try {
      const entry = parseJson(line.slice(0, 2000)) as { msg?: unknown; error?: unknown } | null;
      if (isRecord(entry) && typeof entry.msg === 'string' && typeof entry.error === 'string')
        return `${entry.msg}: ${entry.error}`;
    } catch {
      // not one of etcd's JSON log lines
    }
  }
  return lines.at(-1)?.slice(0, 300) ?? '';
}

/**
 * Why the check's etcd (etcdStartContainer) failed: it exited by itself (not killed under it: killedRun), which the
 * restored members' etcd, started on the same image, flags and env, would do too. Undefined while it runs or waits.
 */
function etcdStartFailed(pod: KubeObject, spec?: Container | null): string | undefined {
  const t = etcdStartState(pod)?.state?.terminated;
  if (!t || typeof t.exitCode !== 'number' || killedRun({ ...t, message: undefined })) return undefined;
  const said = etcdSaid(t.message);
  return sanitize(
    `the restored members' etcd (image ${textOf(spec?.image ?? 'unknown', 'unknown')}, spec.pod.etcdEnv) exited at start with ${t.exitCode}${said ? `: ${said}` : ''}`,
    300,
  );
}

/**
 * The check pod's own steps before its check (CHECK_STEPS): the restored members' busybox image (`busybox`) running
 * the programs their steps run, and their etcd image running the binaries they run from it, with the references their
 * env takes (`sources`, envSources).
 */
function checkSteps(spec: EtcdClusterSpec, busybox: string, sources: unknown[]): unknown[] {
  return [
    {
      name: 'busybox-image',
      image: busybox,
      command: ['/bin/sh', '-c', BUSYBOX_PROGRAMS],
      securityContext: restrictedContainerSecurity(),
    },
    // The restored members' etcd image (`<spec.repository>:v<spec.version>`), which their restore-snapshot step
    // and their etcd container run: edited with the EtcdRestore (a mirror, a tag that does not exist), no
    // running member has pulled it. The check runs both binaries the members run from it, so that an image
    // the nodes cannot pull keeps the check waiting (refused at its deadline) and one that cannot run them
    // fails the check (checkVerdict: a step that failed), before any member is dropped.
    {
      name: 'etcd-image',
      image: etcdImage(spec),
      command: ['/usr/local/bin/etcd', '--version'],
      // The Secrets' and ConfigMaps' values the restored members' etcd container takes (spec.pod.etcdEnv
      // valueFrom): the kubelet resolves them as it will for the members, so that one gone (or its key) keeps the
      // check waiting, CreateContainerConfigError, refused at its deadline, before any member is dropped.
      ...(sources.length > 0 ? { env: sources } : {}),
      securityContext: restrictedContainerSecurity(),
    },
    {
      name: 'restore-tool',
      image: etcdImage(spec),
      command: [restoreTool(spec), 'version'],
      env: [{ name: 'ETCDCTL_API', value: '3' }],
      securityContext: restrictedContainerSecurity(),
    },
  ];
}

/** The digest of the placement a check pod was made with (checkPlacement): a pod's spec may not say it as made. */
const PLACEMENT_KEY = 'etcd.metaops.io/check-placement';

/** The digest of the env sources a check pod was given (envSources), recorded on it. */
const ENV_SOURCES_KEY = 'etcd.metaops.io/check-env-sources';

/**
 * The entries of spec.pod.etcdEnv that take a Secret's or ConfigMap's value (valueFrom secretKeyRef, configMapKeyRef:
 * allowed only under METAOPS_ETCD_ALLOW_REFERENCES, checked well formed by envProblem), as the check's etcd-image step
 * carries them: under names etcd does not read (METAOPS_ETCD_ENV_<i>), the reference as the members take it. Other
 * sources (fieldRef, resourceFieldRef) name the pod itself and cannot be missing. Bounded by etcdEnv (64 entries, schema.ts).
 */
export function envSources(env: unknown): Array<Record<string, unknown>> {
  if (!Array.isArray(env)) return [];
  const sources: Array<Record<string, unknown>> = [];
  for (const [i, entry] of env.entries()) {
    const from = isRecord(entry) ? entry['valueFrom'] : undefined;
    if (!isRecord(from)) continue;
    for (const kind of ['secretKeyRef', 'configMapKeyRef'] as const)
      if (isRecord(from[kind])) sources.push({ name: `METAOPS_ETCD_ENV_${i}`, valueFrom: { [kind]: from[kind] } });
  }
  return sources;
}

function envSourcesDigest(sources: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(sources)).digest('hex').slice(0, 16);
}

/** The digest of no env source: a check pod made before they were checked (no digest) was given none. */
const NO_ENV_SOURCES = envSourcesDigest([]);

/**
 * Where the check pod runs: where the restored members will (members.ts placement: spec.pod's nodeSelector,
 * tolerations and node affinity), so that the images it starts are pulled and run on the nodes the members run on
 * (an arm64 pool, a pool with its own registry mirror or credentials), not on some other node. The members' pod
 * (anti-)affinity is not given to it: it places a member among the other members, and the check pod, no member,
 * would be kept off every node where one runs (with one member to a node, off every node there is).
 */
export function checkPlacement(spec: EtcdClusterSpec): Record<string, unknown> {
  const policy = spec.pod ?? {};
  const out: Record<string, unknown> = {};
  if (policy.nodeSelector) out['nodeSelector'] = policy.nodeSelector;
  if (policy.tolerations) out['tolerations'] = policy.tolerations;
  const nodeAffinity = (policy.affinity as { nodeAffinity?: unknown } | undefined)?.nodeAffinity;
  if (nodeAffinity) out['affinity'] = { nodeAffinity: structuredClone(nodeAffinity) };
  return out;
}

/**
 * A short digest of a placement, recorded on the check pod (the API server may add tolerations of its own to the
 * pod's spec): its JSON with every object's keys in order, so that the same placement reads the same however sent.
 */
function placementDigest(place: Record<string, unknown>): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
          )
        : v;
  return createHash('sha256')
    .update(JSON.stringify(sorted(place)))
    .digest('hex')
    .slice(0, 16);
}

/**
 * The digest of the images a check pod was given (its container's, then its steps'), recorded on it: an admission
 * policy that pins images by digest may take their tags off (Sigstore's policy-controller writes `repo@sha256:<hex>`),
 * and the pod so observed is known by this record as the one given them (sameCheck).
 */
const CHECK_IMAGES_KEY = 'etcd.metaops.io/check-images';

function imagesDigest(images: string[]): string {
  return createHash('sha256').update(JSON.stringify(images)).digest('hex').slice(0, 16);
}

/**
 * Whether `observed` names the tag `given` names (`latest` when it names none), whatever its registry and repository:
 * the image given as a webhook that points images at a registry mirror holds it. Read only of a pod that records the
 * very images it was given (CHECK_IMAGES_KEY).
 */
function atTagGiven(observed: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const [o, g] = [parseImage(observed), parseImage(given)];
  return o?.tag !== undefined && g !== undefined && o.tag === (g.tag ?? 'latest');
}

/** The digest of no placement (a check pod made by a metaops that gave it none). */
const NO_PLACEMENT = placementDigest({});

/** The check pod's own steps, before its check (restoreCheckPod): any other init container is not the hook's. */
const CHECK_STEPS: ReadonlySet<string> = new Set(['busybox-image', 'etcd-image', 'restore-tool']);

type Container = { name?: unknown; image?: unknown; args?: unknown };

/** A pod's containers or init containers as listed (observed data: an entry may be anything, null). */
function listed(p: KubeObject, field: 'containers' | 'initContainers'): Array<Container | null> {
  const list = (p['spec'] as Record<string, unknown> | undefined)?.[field];
  return Array.isArray(list) ? (list as Array<Container | null>) : [];
}

/**
 * Whether an observed check pod is the one `expected` describes: the same restore, the same command. The hook's own
 * containers are found by name (the check, its steps): a mutating admission webhook may add its own to the pod as it
 * is made (Istio's istio-init or istio-validation put before the pod's own init containers, Linkerd's linkerd-init,
 * Vault's vault-agent-init; a sidecar after the check, or before it), which are not the hook's and are not read.
 */
export function sameCheck(observed: KubeObject, expected: KubeObject): boolean {
  const key = 'etcd.database.coreos.com/restore-uid';
  // Its images are the ones given, whatever digest an admission policy pinned each to (lib/images.ts asGiven): a tag
  // kept, or (the pod records the very images given: CHECK_IMAGES_KEY) taken off; or, the pod recording them, at the
  // tag given in another registry or repository (a webhook pointing images at a registry mirror: atTagGiven).
  const recorded =
    observed.metadata.annotations?.[CHECK_IMAGES_KEY] !== undefined &&
    observed.metadata.annotations[CHECK_IMAGES_KEY] === expected.metadata.annotations?.[CHECK_IMAGES_KEY];
  // Each container given (the check, then its steps) is there under its name, on the image given, with the
  // arguments given.
  const sameContainers = (['containers', 'initContainers'] as const).every((field) =>
    listed(expected, field).every((given) => {
      const seen = listed(observed, field).find((c) => c?.name === given?.name);
      return (
        typeof seen?.image === 'string' &&
        (asGiven(seen.image, given?.image as string | undefined, recorded) ||
          (recorded && atTagGiven(seen.image, given?.image))) &&
        JSON.stringify(seen.args) === JSON.stringify(given?.args)
      );
    }),
  );
  // Its placement too (spec.pod's nodeSelector, tolerations or node affinity edited meanwhile: it proves the images
  // on other nodes than the members'), by the digest recorded when it was made; one made before placements were
  // given (no digest) was placed nowhere in particular.
  return (
    observed.metadata.annotations?.[key] === expected.metadata.annotations?.[key] &&
    (observed.metadata.annotations?.[PLACEMENT_KEY] ?? NO_PLACEMENT) ===
      expected.metadata.annotations?.[PLACEMENT_KEY] &&
    // And the env sources it resolves (spec.pod.etcdEnv edited meanwhile: it proves other Secrets than the members').
    (observed.metadata.annotations?.[ENV_SOURCES_KEY] ?? NO_ENV_SOURCES) ===
      expected.metadata.annotations?.[ENV_SOURCES_KEY] &&
    // And the command and env its etcd was started with (etcdStartContainer: spec.pod.etcdEnv edited meanwhile, a
    // value the restored members would take that this etcd never read), recorded when it was made.
    observed.metadata.annotations?.[ETCD_START_KEY] === expected.metadata.annotations?.[ETCD_START_KEY] &&
    sameContainers
  );
}

export type CheckVerdict = { state: 'passed' } | { state: 'failed'; reason: string } | { state: 'waiting' | 'again' };

/** Why a node ends a pod whatever its containers do (status.reason): evicted, preempted, shut down with it. */
const NODE_REASONS = ['Evicted', 'Preempting', 'Shutdown', 'Terminated', 'NodeLost', 'NodeShutdown'];

/**
 * The reasons a kubelet gives a pod it rejects at admission, before any container of it runs (the scheduler and the
 * kubelet racing after a node restart, a device plugin not ready): `OutOf<resource>` (OutOfcpu, OutOfmemory, OutOfpods,
 * ...) and these. The pod ends Failed having run nothing: it says nothing of the snapshot either.
 */
const ADMISSION_REASONS = new Set([
  'UnexpectedAdmissionError',
  'NodeAffinity',
  'NodeSelectorMismatching',
  'InvalidNodeInfo',
  'TopologyAffinityError',
  'SMTAlignmentError',
  'NodeTaint',
]);

function rejectedAtAdmission(reason: string): boolean {
  return ADMISSION_REASONS.has(reason) || /^OutOf[A-Za-z0-9.-]+$/.test(reason);
}

/**
 * Whether the check pod was ended by its node, not by its check: evicted (a drain, node pressure), preempted, shut
 * down with its node, or rejected by its kubelet at admission (ADMISSION_REASONS, or any reason given before a
 * container of its own ran: rejectedByNode). That says nothing of the snapshot:
 * the check runs again (within its deadline).
 */
function checkEndedByNode(pod: KubeObject): boolean {
  const status = (pod['status'] ?? {}) as { reason?: unknown; conditions?: unknown };
  if (typeof status.reason === 'string' && NODE_REASONS.includes(status.reason)) return true;
  if (typeof status.reason === 'string' && rejectedAtAdmission(status.reason)) return true;
  const conditions = Array.isArray(status.conditions) ? (status.conditions as unknown[]) : [];
  return (
    conditions.some((c) => {
      const x = c as { type?: unknown; status?: unknown } | null;
      return x?.type === 'DisruptionTarget' && x.status === 'True';
    }) || rejectedByNode(pod)
  );
}

/**
 * Whether the check pod was rejected by its node's kubelet at admission: Failed with a `status.reason` (OutOfcpu,
 * OutOfmemory, OutOfpods and the other OutOf<resource>, UnexpectedAdmissionError, NodeAffinity, TopologyAffinityError,
 * ... as the kubelet names its refusal: the scheduler and the kubelet disagreeing just after a node restart, a device
 * plugin not yet registered) before any container of the check's own (its steps, its check) ran. Nothing of the
 * snapshot, its credentials or the restored members' images was tried.
 */
function rejectedByNode(pod: KubeObject): boolean {
  const status = (pod['status'] ?? {}) as {
    phase?: unknown;
    reason?: unknown;
    initContainerStatuses?: unknown;
    containerStatuses?: unknown;
  };
  if (status.phase !== 'Failed' || typeof status.reason !== 'string' || status.reason === '') return false;
  const ran = [status.initContainerStatuses, status.containerStatuses]
    .flatMap((l) => (Array.isArray(l) ? (l as Array<ContainerState | null>) : []))
    .some(
      (c) =>
        c !== null &&
        (c.name === 'check' || c.name === ETCD_START || CHECK_STEPS.has(textOf(c.name))) &&
        ((c.state?.running ?? c.state?.terminated) !== undefined ||
          (c as { lastState?: { terminated?: unknown } }).lastState?.terminated !== undefined),
    );
  return !ran;
}

/**
 * What a check that passed pinned (its termination message, the CLI's JSON): the sha256 of the bytes verified, and
 * the version or the copy where they stay. Only well-formed values; the copy's path is the one this hook named
 * (pinPath), never one read from the pod. Undefined without a sha256 (a check of an older image).
 */
export function pinOf(pod: KubeObject | undefined, source: RestoreSource, restoreUid: string): SnapshotPin | undefined {
  const ended = pod ? checkState(pod)?.terminated : undefined;
  let result: { sha256?: unknown; versionId?: unknown; pinned?: unknown };
  try {
    result = parseJson(textOf(ended?.message)) as typeof result;
  } catch {
    return undefined;
  }
  const sha256 = sha256Of(result?.sha256);
  if (!sha256) return undefined;
  const versionId = versionIdOf(result.versionId);
  return {
    sha256,
    ...(versionId ? { versionId } : {}),
    ...(!versionId && result.pinned === true ? { pinnedPath: pinPath(source.s3.path, restoreUid) } : {}),
  };
}

/** The source a restore recorded past its check (status.restore: `s3` and its pin `snapshot`), with `image`. */
export function recordedSource(record: RestoreState, image: string): RestoreSource {
  return { s3: record.s3!, image, ...(record.snapshot ? { snapshot: record.snapshot } : {}) };
}

interface ContainerState {
  name?: unknown;
  state?: {
    terminated?: { exitCode?: unknown; message?: unknown; reason?: unknown };
    waiting?: { reason?: unknown };
    running?: { startedAt?: unknown };
  };
}

/** The check container's state, if the pod reports one. */
function checkState(pod: KubeObject): ContainerState['state'] | undefined {
  const statuses = (pod['status'] as { containerStatuses?: unknown } | undefined)?.containerStatuses;
  if (!Array.isArray(statuses)) return undefined;
  return (statuses as Array<ContainerState | null>).find((c) => c?.name === 'check')?.state;
}

/** What the check's termination message says went wrong (the CLI's JSON reason: S3's words), scrubbed and sanitised. */
function failureOf(t: { exitCode?: unknown; message?: unknown; reason?: unknown }): string {
  try {
    const parsed = parseJson(textOf(t.message)) as { reason?: unknown };
    if (typeof parsed.reason === 'string' && parsed.reason) return sanitizeAws(parsed.reason, 180);
  } catch {
    // not the CLI's JSON: the container's own reason below
  }
  return sanitize(
    `the snapshot check exited with ${textOf(t.exitCode, '?')} (${textOf(t.reason ?? 'Error', 'Error')})`,
    180,
  );
}

/**
 * Why a pod waits, for a message: the first waiting reason of a container (or init container), named with it, if any;
 * else its phase, with the reason its node gave when it ended it.
 */
export function waitingReason(pod: KubeObject): string {
  const status = (pod['status'] ?? {}) as {
    phase?: unknown;
    reason?: unknown;
    initContainerStatuses?: unknown;
    containerStatuses?: unknown;
  };
  for (const list of [status.initContainerStatuses, status.containerStatuses]) {
    for (const c of (Array.isArray(list) ? list : []) as Array<ContainerState | null>) {
      const reason = c?.state?.waiting?.reason;
      if (typeof reason === 'string' && reason) return sanitize(`${textOf(c.name, '?')}: ${reason}`, 80);
    }
  }
  // A pod its node ended or refused says why in its reason (Evicted, OutOfcpu, UnexpectedAdmissionError).
  const reason = typeof status.reason === 'string' && status.reason ? ` (${status.reason})` : '';
  return typeof status.phase === 'string' && status.phase ? sanitize(`${status.phase}${reason}`, 80) : 'not started';
}

/** What the check's running container is, told without a clock: its pod's uid, containerID and restartCount. */
function checkContainerId(pod: KubeObject): string | undefined {
  const statuses = (pod['status'] as { containerStatuses?: unknown } | undefined)?.containerStatuses;
  const c = (Array.isArray(statuses) ? statuses : []).find(
    (x) => (x as { name?: unknown } | null)?.name === 'check',
  ) as { containerID?: unknown; restartCount?: unknown; state?: { running?: unknown } } | undefined;
  if (c?.state?.running === undefined || c.state.running === null) return undefined;
  const part = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v).slice(0, 200) : '');
  return [part(pod.metadata.uid), part(c.containerID), part(c.restartCount)].join('|');
}

/**
 * When the hook first saw the check's container of this moment run (`recorded`, kept in the restore's record while
 * Checking), by its own clock: the same container (its identity, checkContainerId) keeps its record; another one (a
 * check pod made again, a container started again) starts its own now. A record ahead of now reads as now; one older
 * than the check's start (`began`: no container of this check ran before it) is not known and starts now. Undefined
 * while no check container runs (or without a clock).
 */
export function checkFetchSeen(
  pod: KubeObject | undefined,
  recorded: RestoreState['checkFetch'],
  began: string | undefined,
  now: Date | undefined,
): RestoreState['checkFetch'] {
  const id = pod ? checkContainerId(pod) : undefined;
  if (id === undefined || !now) return undefined;
  const at = Date.parse(recorded?.seen ?? '');
  const start = Date.parse(began ?? '');
  if (recorded?.id !== id || !Number.isFinite(at) || (Number.isFinite(start) && at < start))
    return { id, seen: rfc3339(now) };
  return { id, seen: at > now.getTime() ? rfc3339(now) : recorded.seen };
}

/**
 * Whether the check's container runs, first seen by the hook (checkFetchSeen) within RESTORE_STEP_SECONDS: it is
 * fetching the snapshot (a large one through a slow S3 takes as long as a restored member's own fetch of it), which is
 * no evidence against the restore. Never past RESTORE_CHECK_SECONDS + RESTORE_STEP_SECONDS since the check began. The
 * container's own state.running.startedAt is stamped by its node's clock and is never read (the clock rule,
 * docs/etcd-failures.md): a node's clock behind made a check at work look overdue, one ahead spared a hung one.
 */
function checkFetching(
  pod: KubeObject,
  began: number,
  now: Date,
  recorded: RestoreState['checkFetch'],
  since: string | undefined,
): boolean {
  const seen = checkFetchSeen(pod, recorded, since, now);
  const from = Date.parse(seen?.seen ?? '');
  return (
    Number.isFinite(from) &&
    now.getTime() - from <= RESTORE_STEP_SECONDS * 1000 &&
    now.getTime() - began <= (RESTORE_CHECK_SECONDS + RESTORE_STEP_SECONDS) * 1000
  );
}

/**
 * The check's verdict: passed or failed as its container ended; past RESTORE_CHECK_SECONDS since the check began
 * without an end, failed, naming why the pod waits, unless its container is at work (checkFetching: then up to
 * RESTORE_STEP_SECONDS from when the hook first saw it run, `fetch`, the restore record's checkFetch).
 */
export function checkVerdict(
  pod: KubeObject | undefined,
  since: string | undefined,
  now: Date | undefined,
  fetch?: RestoreState['checkFetch'],
  lastRun?: string,
): CheckVerdict {
  const ended = pod ? checkState(pod)?.terminated : undefined;
  // The snapshot checked, and etcd started as the restored members' will be (etcdStartContainer) serves.
  if (ended && ended.exitCode === 0 && pod && etcdStartState(pod)?.ready) return { state: 'passed' };
  const began = Date.parse(since ?? '');
  const late = now !== undefined && Number.isFinite(began) && now.getTime() - began > RESTORE_CHECK_SECONDS * 1000;
  const fetching = late && pod !== undefined && checkFetching(pod, began, now, fetch, since);
  const overdue = late && !fetching;
  // Its node ended it, or an init container the check did not make (a webhook's: istio-validation before the mesh is
  // ready on its node) before its own steps and its check ran: nothing of the snapshot or of the members' images was
  // tried, and a new one checks.
  // So has a run that ended on nothing said of the snapshot (endedOnNothing: S3 or the network failing for a moment,
  // its container or one of its own steps lost or killed under it).
  if (pod && !overdue && provedNothing(pod)) return { state: 'again' };
  const failure = failureIn(pod, ended);
  if (failure) return { state: 'failed', reason: failure };
  return overdue ? { state: 'failed', reason: overdueReason(pod, lastRun) } : { state: 'waiting' };
}

/**
 * What failed in a check pod, first found: its check's verdict on the snapshot (`ended`), a step of its own that
 * exited by itself (an image the restored members cannot run), or its etcd that exited (etcdStartFailed).
 */
function failureIn(
  pod: KubeObject | undefined,
  ended: { exitCode?: unknown; message?: unknown; reason?: unknown } | undefined,
): string | undefined {
  if (ended && typeof ended.exitCode === 'number' && ended.exitCode !== 0) return failureOf(ended);
  if (!pod) return undefined;
  return (
    failedStep(pod) ??
    etcdStartFailed(
      pod,
      listed(pod, 'containers').find((c) => c?.name === ETCD_START),
    )
  );
}

/**
 * The wait before a check pod dropped as a run that proved nothing is made again, from the second one dropped (the
 * first is made again at once: a drain, a node restarted); doubled for each next.
 */
export const CHECK_BACKOFF_SECONDS = 10;
/** The longest such wait. */
export const MAX_CHECK_BACKOFF_SECONDS = 160;

/** The wait after `runs` check pods dropped as runs that proved nothing: none, 10 s, 20 s, ... at most 160 s. */
export function checkBackoff(runs: number): number {
  if (runs <= 1) return 0;
  return Math.min(CHECK_BACKOFF_SECONDS * 2 ** (runs - 2), MAX_CHECK_BACKOFF_SECONDS);
}

/** What a check pod's run that proved nothing ended on (checkVerdict 'again'), for the record and a refusal. */
export function againReason(pod: KubeObject): string {
  if (checkEndedByNode(pod)) {
    const why = (pod['status'] as { reason?: unknown } | undefined)?.reason;
    return sanitize(`its node ended its pod${typeof why === 'string' && why ? ` (${why})` : ''}`, 120);
  }
  const foreign = foreignStepEnded(pod);
  if (foreign) return sanitize(`${foreign}, an init container the check did not make (an admission webhook's)`, 200);
  return sanitizeAws(endedOnNothing(pod) ?? 'a run that proved nothing', 200);
}

/** What a check pod not the one asked for (sameCheck false: changed at admission, or made for another) ended on. */
export const CHECK_CHANGED =
  'a pod not the one asked for (changed at admission: its containers, images, arguments or placement; or made for another check)';

/**
 * The record of one more check pod dropped as a run that proved nothing (its run ended on `last`) at `now`. During the
 * back-off no check pod is made: one seen then is the one dropped, going, and counts once (its time and count kept).
 */
export function droppedCheck(
  recorded: RestoreState['checkAgain'],
  last: string,
  now: Date | undefined,
): RestoreState['checkAgain'] {
  if (recorded && checkBackingOff(recorded, now)) return recorded;
  return {
    runs: Math.min((recorded?.runs ?? 0) + 1, 99),
    at: now ? rfc3339(now) : (recorded?.at ?? ''),
    last: sanitize(last, 200),
  };
}

/**
 * Whether the next check pod waits (its back-off after the last dropped, checkBackoff, not yet passed by `now`). A
 * time recorded ahead of now reads as now.
 */
export function checkBackingOff(recorded: RestoreState['checkAgain'], now: Date | undefined): boolean {
  if (!recorded || !now) return false;
  const at = Date.parse(recorded.at);
  if (!Number.isFinite(at)) return false;
  return Math.min(at, now.getTime()) + checkBackoff(recorded.runs) * 1000 > now.getTime();
}

/** Whether the check pod ended without trying the snapshot or the images (checkVerdict: made again). */
function provedNothing(pod: KubeObject): boolean {
  return checkEndedByNode(pod) || foreignStepEnded(pod) !== undefined || endedOnNothing(pod) !== undefined;
}

/** The check pod's init containers that ended with an error, as its status reports them. */
function failedInits(pod: KubeObject): Array<ContainerState & { state: { terminated: { exitCode: number } } }> {
  const statuses = (pod['status'] as { initContainerStatuses?: unknown } | undefined)?.initContainerStatuses;
  return ((Array.isArray(statuses) ? statuses : []) as Array<ContainerState | null>).filter(
    (c): c is ContainerState & { state: { terminated: { exitCode: number } } } => {
      const t = c?.state?.terminated;
      return typeof t?.exitCode === 'number' && t.exitCode !== 0;
    },
  );
}

/**
 * An init container the check did not make (CHECK_STEPS: a mutating webhook's) that exited with an error and so
 * ended the check pod (restartPolicy Never) before its check ran (neither the check nor a step of its own ended
 * it): its name and exit, or undefined.
 */
function foreignStepEnded(pod: KubeObject): string | undefined {
  if ((pod['status'] as { phase?: unknown } | undefined)?.phase !== 'Failed') return undefined;
  if (checkState(pod)?.terminated || failedStep(pod)) return undefined;
  const c = failedInits(pod).find((x) => !CHECK_STEPS.has(textOf(x.name)));
  return c
    ? sanitize(
        `${textOf(c.name, '?')} exited with ${c.state.terminated.exitCode} (${textOf(c.state.terminated.reason ?? 'Error', 'Error')})`,
        100,
      )
    : undefined;
}

/**
 * Why a step of the check pod before the check itself failed (its pod, restartPolicy Never, ends there): one of the
 * images the restored members need (busybox, their etcd image) could not run what they will run from it. Only its
 * own steps (CHECK_STEPS) say so: an init container a webhook added says nothing of those images (foreignStepEnded).
 */
function failedStep(pod: KubeObject): string | undefined {
  const c = failedInits(pod).find((x) => CHECK_STEPS.has(textOf(x.name)));
  // A step ended under it (lost by the runtime, killed) did not fail on its image: endedOnNothing.
  if (!c || killedRun(c.state.terminated)) return undefined;
  const t = c.state.terminated;
  const spec = listed(pod, 'initContainers').find((x) => x?.name === c.name);
  return sanitize(
    `the check's step ${textOf(c.name, '?')} (image ${textOf(spec?.image ?? 'unknown', 'unknown')}) exited with ${t.exitCode} (${textOf(t.reason ?? 'Error', 'Error')}): the restored members could not run that image`,
    200,
  );
}

/**
 * How the check pod's run ended without a word on the snapshot, if it did: its check's verdict is one S3 or the
 * network calls transient (transientFailure: SlowDown, ServiceUnavailable after the CLI's own attempts, a connection
 * refused by a mesh proxy a webhook injected that was not yet listening), or its check or one of its own steps
 * (CHECK_STEPS) was ended under it (killedRun: lost by the container runtime, ContainerStatusUnknown; killed by a
 * signal without a verdict of its own). As a restored member's step that ends so is run again (evidence.ts
 * failedInitStep), the check is made again, within its deadline. A verdict on the snapshot (AccessDenied, NoSuchKey,
 * a snapshot that does not verify) and a step that exited by itself (its image cannot run it) are not so.
 */
function endedOnNothing(pod: KubeObject): string | undefined {
  const ended = checkState(pod)?.terminated;
  const etcd = etcdStartState(pod)?.state?.terminated;
  // The check's etcd (etcdStartContainer) killed under it (lost by the runtime, an OOM kill, a node's SIGTERM).
  if (etcd && killedRun({ ...etcd, message: undefined }) && !(ended && ended.exitCode !== 0))
    return sanitize(
      `its ${ETCD_START} ended under it, exit ${textOf(etcd.exitCode, '?')} (${textOf(etcd.reason ?? 'Error', 'Error')})`,
      120,
    );
  if (ended) {
    if (typeof ended.exitCode !== 'number' || ended.exitCode === 0) return undefined;
    const message = typeof ended.message === 'string' ? ended.message : undefined;
    return transientFailure(message, stepPaths(pod, 'check')) || killedRun(ended) ? failureOf(ended) : undefined;
  }
  const step = failedInits(pod).find((x) => CHECK_STEPS.has(textOf(x.name)));
  if (!step || !killedRun(step.state.terminated)) return undefined;
  const t = step.state.terminated;
  return sanitize(
    `its step ${textOf(step.name, '?')} ended under it, exit ${t.exitCode} (${textOf(t.reason ?? 'Error', 'Error')})`,
    120,
  );
}

/** Why a check past its deadline failed: still fetching past its own limit, or why its pod waits. */
function overdueReason(pod: KubeObject | undefined, lastRun?: string): string {
  if (pod && checkState(pod)?.running)
    return `the snapshot check was still fetching the snapshot ${RESTORE_STEP_SECONDS / 60} minutes after its container was first seen running`;
  const etcd = pod ? etcdStartState(pod) : undefined;
  if (pod && checkState(pod)?.terminated?.exitCode === 0 && etcd?.state?.running && !etcd.ready)
    return `the snapshot checked, but etcd started as the restored members' will be (${ETCD_START}) was not ready within ${RESTORE_CHECK_SECONDS / 60} minutes`;
  const foreign = pod ? foreignStepEnded(pod) : undefined;
  const nothing = pod ? endedOnNothing(pod) : undefined;
  const why = foreign
    ? `its pod ended on ${foreign}, an init container the check did not make (an admission webhook's)`
    : nothing
      ? `its last run ended on ${nothing}`
      : pod
        ? waitingReason(pod)
        : lastRun
          ? `its last run ended on ${lastRun}`
          : 'its pod was not created';
  return `the snapshot check did not finish within ${RESTORE_CHECK_SECONDS / 60} minutes (${why})`;
}

/** S3's answers and network failures that say "try again" (the kubelet runs the step again, with a back-off). */
const TRANSIENT_CODES =
  /^(?:SlowDown|ServiceUnavailable|InternalError|RequestTimeout|Throttling\w*|TooManyRequests\w*|TimeoutError)\b|\b(?:ECONNRESET|ETIMEDOUT|EPIPE|EAI_AGAIN|ECONNREFUSED)\b/;
/** The same in a reason whose snapshot paths are taken out (withoutPaths): S3's code after the path, or the network's. */
const TRANSIENT =
  /^(?:s3:\/\/-: )?(?:Error: )?(?:SlowDown|ServiceUnavailable|InternalError|RequestTimeout|Throttling\w*|TooManyRequests\w*|TimeoutError)\b|\b(?:ECONNRESET|ETIMEDOUT|EPIPE|EAI_AGAIN|ECONNREFUSED|socket hang up)\b/;

/**
 * A reason with every snapshot path it names taken out (`s3://-`): the paths the step was given (`paths`, its
 * arguments, whatever they hold), then any other `s3://` word. The path is the EtcdRestore author's: a key named
 * `etcd-ECONNRESET-test.db` says nothing of the network.
 */
function withoutPaths(reason: string, paths: readonly string[]): string {
  let text = reason;
  for (const p of [...paths].sort((x, y) => y.length - x.length)) if (p) text = text.split(`s3://${p}`).join('s3://-');
  return text.replace(/s3:\/\/\S*/g, (m) =>
    m === 's3://-' || m === 's3://-:' ? m : m.endsWith(':') ? 's3://-:' : 's3://-',
  );
}

/**
 * Whether a restore step's termination message (the CLI's JSON: succeeded false, S3's reason) names a failure S3
 * or the network calls transient: no evidence against the restore. Anything else (AccessDenied, NoSuchKey, a
 * snapshot written again, no JSON at all) is. Judged by the failure's own name and code (the CLI's `error`) when the
 * message has one; else by the reason without the snapshot paths it names (`paths`: the step's own arguments), so
 * that no word of the tenant's path makes a verdict on the snapshot one that proves nothing.
 */
export function transientFailure(message: string | undefined, paths: readonly string[] = []): boolean {
  try {
    const parsed = parseJson(message ?? '') as { reason?: unknown; error?: unknown };
    if (typeof parsed?.error === 'string') return TRANSIENT_CODES.test(parsed.error);
    return typeof parsed?.reason === 'string' && TRANSIENT.test(withoutPaths(parsed.reason, paths));
  } catch {
    return false;
  }
}

/** The snapshot paths a step of a pod was given (`--s3-path`, `--pin-path`, `--pinned-path`): its container `name`'s. */
export function stepPaths(pod: KubeObject, name: string): string[] {
  const spec = pod['spec'] as { containers?: unknown; initContainers?: unknown } | undefined;
  const all = [
    ...(Array.isArray(spec?.containers) ? spec.containers : []),
    ...(Array.isArray(spec?.initContainers) ? spec.initContainers : []),
  ] as Array<{ name?: unknown; args?: unknown } | null>;
  const args = all.find((c) => c?.name === name)?.args;
  if (!Array.isArray(args)) return [];
  const paths: string[] = [];
  args.forEach((a, i) => {
    const v = args[i + 1];
    if ((a === '--s3-path' || a === '--pin-path' || a === '--pinned-path') && typeof v === 'string') paths.push(v);
  });
  return paths.slice(0, 3);
}

/** The exits of a process killed by a signal a node or a container runtime sends: SIGKILL (137), SIGTERM (143). */
const KILLED_EXITS: ReadonlySet<number> = new Set([137, 143]);

/**
 * Whether a restore step's run was ended under it, not by its own failure: the container lost by the runtime
 * (`ContainerStatusUnknown`: the runtime restarted, the kubelet reports exit 137), or its process killed by a signal
 * (137: an OOM kill, a runtime stop; 143: a node's SIGTERM) without a verdict of the CLI's own in its termination
 * message (the CLI's JSON `reason`: S3's words, which a killed process never writes). Such a run proves nothing
 * against the snapshot, which the check fetched and verified: the kubelet runs the step again, within the restore's
 * deadline (restoreOverdue), which names the last exit when the step never gets through.
 */
export function killedRun(t: { exitCode?: unknown; message?: unknown; reason?: unknown }): boolean {
  if (t.reason === 'ContainerStatusUnknown') return true;
  if (typeof t.exitCode !== 'number' || !KILLED_EXITS.has(t.exitCode)) return false;
  try {
    const parsed = parseJson(textOf(t.message)) as { reason?: unknown } | null;
    return typeof parsed?.reason !== 'string';
  } catch {
    return true;
  }
}

/**
 * A restore step (fetch or restore of the snapshot, by name: RESTORE_STEPS) the pod runs now, within RESTORE_STEP_SECONDS of the restore's
 * drop of the old members (`began`, recorded by the hook's own clock: no step of this restore ran before it): its
 * name. A step at work is no evidence the restore failed (a large snapshot through a slow S3). The step's own
 * state.running.startedAt is stamped by its node's clock and is never compared with the hook's (a node whose clock
 * runs ahead would spare a hung fetch for as long as it is ahead): the clock rule of docs/etcd-failures.md.
 */
function runningStep(pod: KubeObject, began: number, now: Date): { name: string } | undefined {
  if (now.getTime() - began > RESTORE_STEP_SECONDS * 1000) return undefined;
  const statuses = (pod['status'] as { initContainerStatuses?: unknown } | undefined)?.initContainerStatuses;
  for (const c of (Array.isArray(statuses) ? statuses : []) as Array<{
    name?: unknown;
    state?: { running?: unknown };
  } | null>) {
    if (!c || typeof c.name !== 'string' || !RESTORE_STEPS.has(c.name)) continue;
    if (c.state?.running !== undefined && c.state.running !== null) return { name: c.name };
  }
  return undefined;
}

/** Whether more than RESTORE_SECONDS passed since `since` (false without either time). */
export function restoreDeadlinePassed(since: string | undefined, now: Date | undefined): boolean {
  const began = Date.parse(since ?? '');
  return now !== undefined && Number.isFinite(began) && now.getTime() - began > RESTORE_SECONDS * 1000;
}

/**
 * Why a restore that dropped its old members ends failed for time: its members have not served within
 * RESTORE_SECONDS of its start, and none of them runs a restore step started within RESTORE_STEP_SECONDS (a fetch
 * at work is spared: dropping it helps nothing). Undefined while there is time, or without a start time.
 */
export function restoreOverdue(record: RestoreState, pods: KubeObject[], now: Date | undefined): string | undefined {
  const began = Date.parse(record.since ?? '');
  if (!now || !Number.isFinite(began) || now.getTime() - began <= RESTORE_SECONDS * 1000) return undefined;
  if (pods.some((p) => runningStep(p, began, now))) return undefined;
  const waiting = pods.map((p) => `${p.metadata.name}: ${waitingReason(p)}${lastExit(p)}`).slice(0, 3);
  return sanitize(
    `the restored members did not serve within ${RESTORE_SECONDS / 60} minutes (${waiting.join('; ') || 'no pod'})`,
    200,
  );
}

/**
 * How the first restore step (not the DNS wait) that waits to run again last ended, as ` (last exit <code> <reason>)`,
 * or '' : a step the kubelet keeps running again (killed each time, an error S3 calls transient) is named by its exit.
 */
function lastExit(pod: KubeObject): string {
  const statuses = (pod['status'] as { initContainerStatuses?: unknown } | undefined)?.initContainerStatuses;
  for (const c of (Array.isArray(statuses) ? statuses : []) as Array<{
    name?: unknown;
    state?: { waiting?: unknown };
    lastState?: { terminated?: { exitCode?: unknown; reason?: unknown } };
  } | null>) {
    const t = c?.lastState?.terminated;
    if (!c || c.name === 'check-dns' || !c.state?.waiting || typeof t?.exitCode !== 'number') continue;
    return ` ${sanitize(`(last exit ${textOf(t.exitCode, '?')}${typeof t.reason === 'string' && t.reason ? ` ${t.reason}` : ''})`, 60)}`;
  }
  return '';
}

/**
 * What a restored member needs on its data volume beyond twice the snapshot (the snapshot it fetched, which stays for
 * a re-run of its steps, and the data etcdutl restores from it, about as large): etcd's write-ahead log, which it
 * preallocates in 64 MiB segments, and the restore's own files.
 */
export const RESTORE_ROOM_MARGIN = 128 * 1024 ** 2;

/** The room a restored member needs for a snapshot of `size` bytes: twice it, and RESTORE_ROOM_MARGIN. */
export function restoreRoom(size: number): number {
  return 2 * size + RESTORE_ROOM_MARGIN;
}

/** The snapshot's size the check reports (its termination message, the CLI's JSON), if it reports one. */
export function checkedSize(pod: KubeObject | undefined): number | undefined {
  const ended = pod ? checkState(pod)?.terminated : undefined;
  try {
    const size = (parseJson(textOf(ended?.message)) as { size?: unknown })?.size;
    return typeof size === 'number' && Number.isFinite(size) && size >= 0 ? size : undefined;
  } catch {
    return undefined;
  }
}

/** Bytes as people read them: GiB or MiB with one decimal. */
function bytes(n: number): string {
  return n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(1)} GiB` : `${(n / 1024 ** 2).toFixed(1)} MiB`;
}

export { DEFAULT_QUOTA_BACKEND_BYTES };

/**
 * The backend quota the restored members run with (quota.ts memberQuota): spec.pod.etcdEnv's
 * `ETCD_QUOTA_BACKEND_BYTES` in plain decimal bytes (any other spelling the spec's checks refuse: quota.ts
 * quotaSpellingProblem; 0 is etcd's default), else etcd's default; undefined when there is none (a negative value).
 */
export function restoredQuota(spec: EtcdClusterSpec): number | undefined {
  return memberQuota(spec);
}

/**
 * Why a snapshot of `size` bytes is over the backend quota the restored members run with (restoredQuota), or
 * undefined. etcd restores the snapshot's backend as it is: at or over the quota, the restored members raise NOSPACE
 * under their own IDs at the first write and refuse every write (the running members, made before the quota was set,
 * took them). A size not reported, or no quota, is not compared.
 */
export function quotaProblem(spec: EtcdClusterSpec, size: number | undefined): string | undefined {
  const quota = restoredQuota(spec);
  if (size === undefined || quota === undefined || size < quota) return undefined;
  const set = (spec.pod?.etcdEnv ?? []).some((e) => isRecord(e) && e['name'] === 'ETCD_QUOTA_BACKEND_BYTES');
  return `the snapshot has ${size} bytes (${bytes(size)}), at or over the restored members' backend quota of ${quota} bytes (${bytes(quota)}, ${set ? 'spec.pod.etcdEnv ETCD_QUOTA_BACKEND_BYTES' : "etcd's default"}): they would refuse every write (NOSPACE); raise the quota in spec.pod.etcdEnv (it reaches the restored members) or restore a smaller snapshot`;
}

/**
 * Why a snapshot of `size` bytes cannot be restored into the members the spec makes, or undefined: no room on their
 * data volumes (roomProblem), or over the backend quota they run with (quotaProblem).
 */
export function fitProblem(spec: EtcdClusterSpec, size: number | undefined): string | undefined {
  return roomProblem(spec, size) ?? quotaProblem(spec, size);
}

/**
 * Why a snapshot of `size` bytes cannot be restored into the members the spec makes, or undefined: each restored
 * member holds it and its restored copy on its data volume (restoreRoom). That volume is a claim of
 * spec.pod.persistentVolumeClaimSpec (its storage request: all a claim is sure to get), or else an emptyDir on the
 * node's disk, bounded only by the etcd container's ephemeral-storage limit (the kubelet evicts a pod past it);
 * without either nothing is known of its room and nothing is refused. A size not reported (no check of this kind)
 * is not compared.
 */
export function roomProblem(spec: EtcdClusterSpec, size: number | undefined): string | undefined {
  if (size === undefined) return undefined;
  const claim = spec.pod?.persistentVolumeClaimSpec as { resources?: { requests?: { storage?: unknown } } } | undefined;
  const limits = (spec.pod?.resources as { limits?: Record<string, unknown> } | undefined)?.limits;
  const [what, room] = claim
    ? ['its claim (spec.pod.persistentVolumeClaimSpec requests', quantityValue(claim.resources?.requests?.storage)]
    : ['its emptyDir (spec.pod.resources.limits ephemeral-storage', quantityValue(limits?.['ephemeral-storage'])];
  const needed = restoreRoom(size);
  if (room === undefined || room >= needed) return undefined;
  return `the snapshot has ${bytes(size)}: each restored member needs ${bytes(needed)} (the snapshot, its restored copy and 128 MiB for etcd's log) on ${what} ${bytes(room)})`;
}
