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
  allObserved,
  invalidSpecResponse,
  keepObserved,
  type CompositeSyncRequest,
  type CompositeSyncResponse,
  type KubeObject,
  type RefusedHook,
} from '../../lib/index.js';
import { AWS_DIR, s3Access, type EtcdSettings } from '../etcdcommon/index.js';
import { dialledEndpointAllowed, s3TargetProblem, tenancyOf, type BackupTenancy } from '../etcdcommon/tenancy.js';
import { TLS_DIR } from './sync.js';

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
  return pod && typeof pod === 'object' && !Array.isArray(pod) ? (pod as Record<string, unknown>) : undefined;
}

const list = (v: unknown): unknown[] | undefined => (v === undefined ? [] : Array.isArray(v) ? v : undefined);

type Options = ReturnType<typeof parseArgs<{ options: typeof BACKUP_OPTIONS; strict: true }>>['values'];

/** The pod spec, its one container `backup`, and that container's options as the CLI reads them; or undefined. */
function backupCommand(child: KubeObject) {
  const pod = podSpecOf(child);
  const containers = list(pod?.['containers']);
  if (!pod || containers?.length !== 1) return undefined;
  if (['initContainers', 'ephemeralContainers'].some((f) => list(pod[f])?.length !== 0)) return undefined;
  const container = containers[0] as Record<string, unknown> | null;
  const args = container?.['args'];
  if (container?.['name'] !== 'backup' || !Array.isArray(args) || args[0] !== 'etcd-backup') return undefined;
  if (!args.every((a) => typeof a === 'string')) return undefined;
  try {
    const values: Options = parseArgs({ args: args.slice(1), options: BACKUP_OPTIONS, strict: true }).values;
    return { pod, container, values };
  } catch {
    return undefined;
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
    const only = v !== null && Object.keys(v).every((k) => k === 'name' || k === 'secret');
    if (!only || typeof secret?.['secretName'] !== 'string') return undefined;
    if (v['name'] === 'aws') awsSecret = secret['secretName'];
    else if (v['name'] !== 'etcd-tls') return undefined;
  }
  const at: Record<string, string> = { aws: AWS_DIR, 'etcd-tls': TLS_DIR };
  const mounted = (mounts as (Record<string, unknown> | null)[]).every(
    (m) => typeof m?.['name'] === 'string' && at[m['name']] !== undefined && m['mountPath'] === at[m['name']],
  );
  return mounted ? awsSecret : undefined;
}

/**
 * Whether a backup child reaches only what today's rules allow namespace `namespace`: one container, `backup`, run
 * as `metaops etcd-backup` with options the CLI reads; its S3 path, credentials and endpoint pass s3TargetProblem;
 * every etcd endpoint passes dialledEndpointAllowed; its S3 access wired as s3Access wires it today (the Secret's
 * keys one by one, the instance metadata service off; no envFrom); no volume but the Secret's and the client TLS
 * Secret's. Anything not read as such is not shown allowed, and not kept.
 */
export function childAllowed(child: KubeObject, namespace: string, policy: BackupTenancy): boolean {
  const command = backupCommand(child);
  if (!command) return false;
  const { pod, container, values } = command;
  const secret = secretOf(pod, container);
  const path = values['s3-path'];
  if (secret === undefined || !path || !values.endpoints) return false;
  const awsSecret = secret ?? undefined;
  const endpoint = values['s3-endpoint'];
  const access = s3Access({ awsSecret, endpoint, forcePathStyle: values['force-path-style'] });
  const wired =
    values['aws-dir'] === (awsSecret ? AWS_DIR : undefined) &&
    (values['tls-dir'] === undefined || values['tls-dir'] === TLS_DIR) &&
    isDeepStrictEqual(list(container['env']), access.env) &&
    list(container['envFrom'])?.length === 0;
  return (
    wired &&
    s3TargetProblem(namespace, { path, awsSecret, endpoint }, policy) === undefined &&
    values.endpoints.split(',').every((e) => dialledEndpointAllowed(e, namespace, policy))
  );
}

/**
 * The InvalidSpec answer of an EtcdBackup: lib/hook.ts invalidSpecResponse (the status kept, the condition said),
 * with only the observed children today's rules allow, each kept as it is (childAllowed reads the form the answer
 * keeps: the configuration last applied; a child with no pod template is kept). Pure: the same observed children, the
 * same answer.
 */
export function invalidBackup(
  request: CompositeSyncRequest,
  message: string,
  now: Date,
  hook: RefusedHook<unknown, EtcdSettings>,
): CompositeSyncResponse {
  const namespace = request.parent.metadata.namespace ?? '';
  const policy = tenancyOf(hook.settings);
  // A child with no pod template to read (the API server never stores a Job or CronJob without one) runs nothing
  // the hook can judge: kept, as on any doubt; one whose template runs what today's rules refuse is not.
  const children = allObserved(request.children)
    .map(keepObserved)
    .filter((child) => podSpecOf(child) === undefined || childAllowed(child, namespace, policy));
  return { ...invalidSpecResponse(request, message, now), children };
}
