// The answer to an EtcdBackup whose spec is refused before the sync (InvalidSpec: the raw spec, the schema, the
// parent's name, the answer budget). No sync runs while the spec is refused, so its NotAllowed check (sync.ts
// reachable) drops nothing: a Job or CronJob an earlier metaops made under looser rules (another namespace's S3
// prefix, the node's own credentials, an endpoint no longer allowlisted, another namespace's etcd, the whole Secret
// as environment) would run on for as long as the tenant keeps the spec invalid for another field. So the children
// are narrowed to what today's tenancy rules (hooks/etcdcommon/tenancy.ts) allow: a child is kept, as it is, only
// when its backup container, read back as the CLI reads it, reaches nothing those rules refuse; the rest is not kept
// (Metacontroller deletes it). Dropping a backup child destroys no snapshot: once the spec is fixed the sync makes
// it again, as the rules allow. A child today's rules allow is kept whatever the typo: a valid schedule never goes.
import { parseArgs, isDeepStrictEqual } from 'node:util';
import {
  isRecord,
  allObserved,
  invalidSpecResponse,
  keepObserved,
  parseImage,
  type CompositeSyncRequest,
  type CompositeSyncResponse,
  type KubeObject,
  type RefusedHook,
} from '../../lib/index.js';
import { AWS_DIR, s3Access, type EtcdSettings } from '../etcdcommon/index.js';
import { dialledEndpointAllowed, s3TargetProblem, tenancyOf, type BackupTenancy } from '../etcdcommon/tenancy.js';
import { backupPodFixed, TLS_DIR } from './sync.js';

/** The options of `metaops etcd-backup` a backup container is given (main/cli.ts OPTIONS, as it parses them). */
const BACKUP_OPTIONS = {
  endpoints: { type: 'string' },
  's3-path': { type: 'string' },
  's3-endpoint': { type: 'string' },
  'force-path-style': { type: 'boolean' },
  periodic: { type: 'boolean' },
  'max-backups': { type: 'string' },
  'min-interval-seconds': { type: 'string' },
  'cluster-id': { type: 'string', multiple: true },
  'timeout-seconds': { type: 'string' },
  'tls-dir': { type: 'string' },
  'aws-dir': { type: 'string' },
  'backup-uid': { type: 'string' },
  'backup-name': { type: 'string' },
  spare: { type: 'string', multiple: true },
  'spare-all': { type: 'boolean' },
} as const;

/** The pod spec of a backup Job or CronJob. */
function podSpecOf(child: KubeObject): Record<string, unknown> | undefined {
  const spec = child['spec'] as Record<string, any> | undefined;
  const job = child.kind === 'CronJob' ? spec?.['jobTemplate']?.['spec'] : child.kind === 'Job' ? spec : undefined;
  const pod = job?.['template']?.['spec'] as unknown;
  return isRecord(pod) ? pod : undefined;
}

const list = (v: unknown): unknown[] | undefined =>
  v === undefined || v === null ? [] : Array.isArray(v) ? v : undefined;

type Options = ReturnType<typeof parseArgs<{ options: typeof BACKUP_OPTIONS; strict: true }>>['values'];

/**
 * Server defaults the API server writes into a pod template metaops gave without them (SetDefaults_PodSpec,
 * SetDefaults_Container): a stored child carries them, and they run nothing else.
 */
const POD_DEFAULTS: Record<string, unknown> = {
  terminationGracePeriodSeconds: 30,
  dnsPolicy: 'ClusterFirst',
  schedulerName: 'default-scheduler',
  securityContext: {},
};
const CONTAINER_DEFAULTS: Record<string, (v: unknown) => boolean> = {
  terminationMessagePath: (v) => v === '/dev/termination-log',
  imagePullPolicy: (v) => v === 'Always' || v === 'IfNotPresent' || v === 'Never',
  resources: (v) => isDeepStrictEqual(v, {}),
};

/** At most this many characters of a value read from a child go into a message (it is the tenant's text). */
const SHOWN = 120;
const clip = (text: string): string => (text.length > SHOWN ? `${text.slice(0, SHOWN - 3)}...` : text);
/** A value as JSON, clipped (JSON.stringify of a value read from a request never throws: it is JSON). */
const shown = (v: unknown): string => clip(JSON.stringify(v) ?? 'nothing');

/**
 * Why the pod spec or its backup container sets what today's child does not (a field metaops never writes, or one it
 * writes with another value), or undefined. Each field is the observed one: what the pod runs.
 */
function fixedFieldsProblem(pod: Record<string, unknown>, container: Record<string, unknown>): string | undefined {
  const fixed = backupPodFixed();
  const podFixed: Record<string, unknown> = fixed.pod;
  for (const key of Object.keys(pod)) {
    if (['containers', 'initContainers', 'ephemeralContainers', 'volumes'].includes(key)) continue;
    const value = pod[key];
    if (Object.hasOwn(podFixed, key) && isDeepStrictEqual(value, podFixed[key])) continue;
    // A server default stands only for a field metaops leaves out: the `{}` stored for a pod written without a
    // security context is a pod running as root where metaops sets one.
    if (
      !Object.hasOwn(podFixed, key) &&
      Object.hasOwn(POD_DEFAULTS, key) &&
      isDeepStrictEqual(value, POD_DEFAULTS[key])
    )
      continue;
    return `its pod sets ${shown(key)} to ${shown(value)}, which metaops does not`;
  }
  const containerFixed: Record<string, unknown> = fixed.container;
  for (const key of Object.keys(container)) {
    if (['name', 'image', 'args', 'env', 'envFrom', 'volumeMounts'].includes(key)) continue;
    const value = container[key];
    if (Object.hasOwn(containerFixed, key) && isDeepStrictEqual(value, containerFixed[key])) continue;
    if (
      !Object.hasOwn(containerFixed, key) &&
      Object.hasOwn(CONTAINER_DEFAULTS, key) &&
      CONTAINER_DEFAULTS[key]!(value)
    )
      continue;
    return `its container sets ${shown(key)} to ${shown(value)}, which metaops does not`;
  }
  for (const key of Object.keys(podFixed)) {
    // securityContext and the rest: a pod without what metaops sets runs with less than it asks (DNS as the node has
    // it; as root): not today's child.
    if (!Object.hasOwn(pod, key)) return `its pod has no ${key}, which metaops sets`;
  }
  for (const key of Object.keys(containerFixed)) {
    if (!Object.hasOwn(container, key)) return `its container has no ${key}, which metaops sets`;
  }
  return undefined;
}

/** The pod spec, its one container `backup`, and that container's options as the CLI reads them; or why not. */
function backupCommand(pod: Record<string, unknown>) {
  const containers = list(pod['containers']);
  if (containers?.length !== 1) return { problem: 'its pod runs other containers than the backup one' };
  if (['initContainers', 'ephemeralContainers'].some((f) => list(pod[f])?.length !== 0))
    return { problem: 'its pod runs init or ephemeral containers' };
  const container = containers[0] as Record<string, unknown> | null;
  const args = container?.['args'];
  const notCli = { problem: 'its container does not run metaops etcd-backup with options the command reads' };
  if (!container || typeof container !== 'object' || container['name'] !== 'backup') return notCli;
  if (!Array.isArray(args) || args[0] !== 'etcd-backup' || !args.every((a) => typeof a === 'string')) return notCli;
  try {
    const values: Options = parseArgs({ args: args.slice(1), options: BACKUP_OPTIONS, strict: true }).values;
    return { container, values };
  } catch {
    return notCli;
  }
}

/**
 * The `awsSecret` the pod's volumes name (`null`: none), when its volumes are only the Secret's and the client TLS
 * Secret's, each mounted where today's child mounts it; undefined for anything else.
 */
function secretOf(pod: Record<string, unknown>, container: Record<string, unknown>): string | null | undefined {
  const volumes = list(pod['volumes']);
  const mounts = list(container['volumeMounts']);
  if (!volumes || !mounts) return undefined;
  let awsSecret: string | null = null;
  for (const v of volumes as (Record<string, unknown> | null)[]) {
    const secret = v?.['secret'] as Record<string, unknown> | undefined;
    const only = v !== null && typeof v === 'object' && Object.keys(v).every((k) => k === 'name' || k === 'secret');
    if (!only || typeof secret?.['secretName'] !== 'string') return undefined;
    if (v['name'] === 'aws') awsSecret = secret['secretName'];
    else if (v['name'] !== 'etcd-tls') return undefined;
  }
  const at: Record<string, string> = { aws: AWS_DIR, 'etcd-tls': TLS_DIR };
  const mounted = (mounts as (Record<string, unknown> | null)[]).every(
    (m) =>
      typeof m?.['name'] === 'string' &&
      Object.hasOwn(at, m['name']) &&
      m['mountPath'] === at[m['name']] &&
      Object.keys(m).every((k) => k === 'name' || k === 'mountPath' || k === 'readOnly'),
  );
  return mounted ? awsSecret : undefined;
}

/** Why `seen` is no image of metaops's repository (`image`, the server's setting), or undefined. */
function otherImage(seen: unknown, image: string): string | undefined {
  const given = parseImage(image);
  const ref = typeof seen === 'string' ? parseImage(seen) : undefined;
  if (given && ref && ref.registry === given.registry && ref.repository === given.repository) return undefined;
  return `its container runs image ${shown(seen)}, not metaops's ${image}`;
}

/**
 * Why a backup child, as observed (`pod`, its live pod template's spec, never the configuration last applied, which
 * the tenant may write), runs what today's rules would not make for namespace `namespace`; undefined when it runs
 * only that. Today's child: one container, `backup`, on this metaops's image (its repository: a tag or digest of
 * another release of it runs the same command), running `metaops etcd-backup` with options the CLI reads; no init or
 * ephemeral container; its S3 path, credentials and endpoint pass s3TargetProblem; every etcd endpoint passes
 * dialledEndpointAllowed; its S3 access wired as s3Access wires it today (the Secret's keys one by one, the instance
 * metadata service off; no envFrom); no volume but the Secret's and the client TLS Secret's; every other field of the
 * pod and of its container as today's child sets it (or the API server's default of one it leaves out).
 */
export function childProblem(
  pod: Record<string, unknown>,
  namespace: string,
  policy: BackupTenancy,
  image: string,
): string | undefined {
  const command = backupCommand(pod);
  if (!command.values) return command.problem;
  const { container, values } = command;
  const other = otherImage(container['image'], image);
  if (other) return other;
  const fixed = fixedFieldsProblem(pod, container);
  if (fixed) return fixed;
  const secret = secretOf(pod, container);
  if (secret === undefined) return "its volumes are not only the S3 Secret's and the client TLS Secret's";
  const path = values['s3-path'];
  if (!path || !values.endpoints) return 'its command names no S3 path or no etcd endpoint';
  const awsSecret = secret ?? undefined;
  const endpoint = values['s3-endpoint'];
  const access = s3Access({ awsSecret, endpoint, forcePathStyle: values['force-path-style'] });
  const wired =
    values['aws-dir'] === (awsSecret ? AWS_DIR : undefined) &&
    (values['tls-dir'] === undefined || values['tls-dir'] === TLS_DIR) &&
    isDeepStrictEqual(list(container['env']), access.env) &&
    list(container['envFrom'])?.length === 0;
  if (!wired) return "its S3 credentials are not wired as metaops wires them (the Secret's keys one by one)";
  const s3 = s3TargetProblem(namespace, { path, awsSecret, endpoint }, policy);
  if (s3) return clip(s3);
  const far = values.endpoints.split(',').find((e) => !dialledEndpointAllowed(e, namespace, policy));
  return far === undefined ? undefined : `it dials etcd at ${shown(far)}, which this namespace may not reach`;
}

/**
 * The InvalidSpec answer of an EtcdBackup: lib/hook.ts invalidSpecResponse (the status kept, the condition said),
 * with only the observed children today's rules allow, each kept as it is (keepObserved), judged by what it runs
 * (childProblem reads the observed child, not the form the answer keeps: Metacontroller's apply leaves in place
 * whatever its last-applied annotation, which the tenant may write, leaves out). The condition names each child not
 * kept and why. Pure: the same observed children, the same answer.
 */
export function invalidBackup(
  request: CompositeSyncRequest,
  message: string,
  now: Date,
  hook: RefusedHook<unknown, EtcdSettings>,
): CompositeSyncResponse {
  const namespace = request.parent.metadata.namespace ?? '';
  const policy = tenancyOf(hook.settings);
  const children: KubeObject[] = [];
  const dropped: string[] = [];
  for (const child of allObserved(request.children)) {
    // A child with no pod template to read (the API server never stores a Job or CronJob without one) runs nothing
    // the hook can judge: kept, as on any doubt. The rest is judged as observed.
    const pod = podSpecOf(child);
    const problem = pod === undefined ? undefined : childProblem(pod, namespace, policy, hook.settings.image);
    if (problem === undefined) children.push(keepObserved(child));
    else dropped.push(`${child.kind} ${shown(child.metadata.name)} is not kept: ${problem}`);
  }
  // At most two children (a Job and a CronJob of its name) are observed; any more are named by count.
  const said = dropped.slice(0, 2).join('; ') + (dropped.length > 2 ? `; and ${dropped.length - 2} more` : '');
  return { ...invalidSpecResponse(request, dropped.length ? `${message}; ${said}` : message, now), children };
}
