// S3 sync and finalize. The sync hook ensures, idempotently: the bucket with its settings, an IAM user named
// after the resource, a policy allowing the bucket's own operations and nothing else, one access key; and
// answers with the Secret holding the credentials. IAM returns a secret key only when the key is created, so
// the Secret itself is the memory: it is read back from the observed children and re-emitted.
//
// Ownership comes from the AWS objects' own tags (metaops.dev/owner-uid = this resource's UID), never from
// the status, which anyone allowed to write s3s/status can change; a bucket is emptied or deleted only when the
// status recorded it as created by this resource *and* its tags, read right before, agree. What the hook does
// when AWS is slow, wrong or someone else's: docs/s3-failures.md.
import {
  type ClientEnvironment,
  perReplica,
  replicasOf,
  allObserved,
  type ChildName,
  type CompositeSyncResponse,
  type ConditionInput,
  buildConditions,
  conditionsFor,
  currentStatus,
  type EventSpec,
  previousConditions,
  textOf,
  type FinalizeHook,
  keepObserved,
  type KubeObject,
  observedNamed,
  parentNameProblem,
  type ParentObject,
  PermanentError,
  RETRY_SECONDS,
  specParser,
  type SyncHook,
  type RefusedHook,
  TAKEN_RESYNC_SECONDS,
  takenCondition,
  takenNames,
  wantedByFirst,
  TemporaryError,
  isHookFailure,
  type CustomizeRequest,
  type CustomizeResponse,
  HELD_BY,
  type HeldRecord,
  heldRecords,
  heldRecordsOf,
  invalidSpecResponse,
  type CompositeSyncRequest,
  type TakenName,
  withoutHeldRecords,
  holderWants as namesHolderWants,
} from '../../lib/index.js';
import {
  AwsError,
  BUCKET_INTENT_TAG,
  findOwnBucket,
  ofAnotherAccount,
  bucketRecords,
  bucketRecordTag,
  OWNER_TAG,
  OWNER_UID_TAG,
  type AccessKey,
  type AwsApi,
  type BucketRecord,
  type IamPolicy,
  type IamUser,
} from './api.js';
import {
  bucketCreated,
  bucketLost,
  bucketLostCondition,
  bucketLostBefore,
  bucketLists,
  bucketRetained,
  credentialsSecret,
  grantedKmsKey,
  keptKey,
  keyCreated,
  oldBucketsCondition,
  pendingSecret,
  pendingStatus,
  planKeysOf,
  planOldBuckets,
  readyStatus,
  resyncAfter,
} from './plan.js';
import {
  arnParts,
  claimArn,
  claimName,
  bucketArn,
  type KmsAllowlist,
  bucketNameProblem,
  bucketPolicy,
  kmsKeyNotAllowed,
  kmsKeyRefusal,
  grantedBucket,
  policyName,
  rawKmsKey,
  scrubAwsText,
  userName,
  withoutKmsGrant,
} from './policy.js';
import {
  countBuckets,
  keepEntry,
  namesAnotherNamespace,
  releaseEntry,
  releaseEntryIfAbsent,
  reserveBucket,
} from './ledger.js';
import { S3Spec, type S3Spec as Spec } from './schema.js';
import {
  MAX_NAMESPACES,
  S3_TENANT_MAX_SYNCS,
  S3Tenants,
  ShareWait,
  WAITING_FOR_SHARE,
  callsPerPeriod,
} from './share.js';
import { parseJson } from '../../lib/index.js';

/**
 * What the server allows S3 resources: the KMS keys they may name (METAOPS_KMS_KEY_ALLOWLIST), and how many buckets
 * the S3 resources of one namespace may hold in the account (METAOPS_S3_BUCKETS_PER_NAMESPACE, ledger.ts).
 */
export interface S3Settings {
  kms: KmsAllowlist;
  bucketsPerNamespace: number;
  /** The operator's region (AWS_REGION...): a spec.region outside its AWS partition is refused (api.ts). */
  operatorRegion?: string;
}

export const parser = specParser(S3Spec, (spec) => {
  const problem = bucketNameProblem(spec.bucketName);
  if (problem) return `spec.bucketName "${spec.bucketName}" ${problem}`;
  if (spec.encryption.type === 'SSE-S3' && spec.encryption.kmsKeyId)
    return 'spec.encryption.kmsKeyId is only used with type SSE-KMS';
  return undefined;
});

/** Everything AWS does in one hook call fits in this, below Metacontroller's 10 s webhook timeout. */
export const HOOK_BUDGET_MS = 7000;

/** The S3 hooks' clients: AWS (S3 and IAM) from the SDK's standard credential chain. */
export interface S3Clients {
  /**
   * Created on first use; the SDK is loaded only then, so a server that serves no S3 resource never pays its
   * memory (perf: docs/performance.md).
   */
  aws(): Promise<AwsApi>;
  /**
   * Each namespace's share of the hook's AWS calls (share.ts): one for the server, every namespace's S3 resources
   * counted in it, so that one namespace never holds all of Metacontroller's workers or the account's throttle.
   */
  tenants: S3Tenants;
}

export function s3Clients({ env }: ClientEnvironment = { env: {} }): S3Clients {
  let aws: Promise<AwsApi> | undefined;
  // A namespace's calls under way at once: what this replica allows of S3_TENANT_MAX_SYNCS (METAOPS_REPLICAS).
  const tenants = new S3Tenants(MAX_NAMESPACES, callsPerPeriod, perReplica(S3_TENANT_MAX_SYNCS, replicasOf(env)));
  return { aws: () => (aws ??= import('./aws.js').then((m) => new m.SdkAwsApi())), tenants };
}

/**
 * Runs `work` in the namespace's share (share.ts): counted before any call; when the namespace already has its calls
 * under way or has spent its budget, answered at once (heldForShare), nothing sent to AWS. `refused` (a refused spec's
 * check) throws the wait instead, told in its InvalidSpec answer.
 */
async function inShare(
  hook: {
    request: CompositeSyncRequest;
    parent: ParentObject;
    now: Date;
    clients: S3Clients;
    settings: S3Settings;
    /** The call's turn of the body budget asked to give way (lib/hook.ts turnWanted). */
    turnWanted?: AbortSignal | undefined;
  },
  which: 'sync' | 'finalize',
  work: (aws: AwsApi) => Promise<CompositeSyncResponse>,
  withdraws = false,
  /** The answer while the call waits, when not heldForShare's (a spec refused whatever AWS says: refusedWaiting). */
  waiting?: (wait: ShareWait) => CompositeSyncResponse,
): Promise<CompositeSyncResponse> {
  const { parent, now, clients, settings, turnWanted } = hook;
  try {
    const call = {
      namespace: ownerOf(parent).namespace,
      bucketsPerNamespace: settings.bucketsPerNamespace,
      now,
      withdraws,
    };
    return await clients.tenants.run(call, await clients.aws(), turnWanted ? givingWay(turnWanted, work) : work);
  } catch (err) {
    if (!(err instanceof ShareWait)) throw err;
    return waiting ? waiting(err) : heldForShare(hook.request, err, now, which);
  }
}

/**
 * `work` that gives way when `wanted` aborts (another namespace's request has waited half its wait for the body budget
 * this call's request holds, lib/body-budget.ts): every AWS call of it stops then (its deadline's signal), and the
 * hook call answers as one waiting for its share (heldForShare: nothing of the resource changed in its answer, the
 * status and every child kept), asked again soon; what AWS applied before is found by the next sync, as after a call
 * whose answer was lost. A region whose endpoints the egress drops otherwise held the turn until the sync's deadline
 * (HOOK_BUDGET_MS, 7 s), past the other namespace's wait (half the hook deadline, ~4.2 s).
 */
function givingWay<T>(wanted: AbortSignal, work: (aws: AwsApi) => Promise<T>): (aws: AwsApi) => Promise<T> {
  const gaveWay = () =>
    new ShareWait(
      WAITING_FOR_SHARE,
      `gave way to another namespace's request waiting for the hook server's room for request bodies, which this call held while it waited on AWS; its calls to AWS were stopped and nothing of the resource changed, asked again in ${RETRY_SECONDS.step} s`,
      { retryAfterSeconds: RETRY_SECONDS.step },
    );
  return async (aws) => {
    if (wanted.aborted) throw gaveWay();
    const view = new Proxy(aws, {
      get(target, prop, receiver) {
        if (prop !== 'withDeadline') return Reflect.get(target, prop, receiver) as unknown;
        return (ms: number, signal?: AbortSignal) =>
          target.withDeadline(ms, signal ? AbortSignal.any([signal, wanted]) : wanted);
      },
    });
    try {
      // A call whose work returned is answered, wanted or not: what it made (an access key, whose secret IAM shows
      // once) is in that answer alone.
      return await work(view);
    } catch (err) {
      throw wanted.aborted ? gaveWay() : err;
    }
  };
}

/**
 * The answer of a hook call that waits for its namespace's share: every observed child kept, the status kept as it is
 * (its observedGeneration too: this generation was not looked at), every condition kept but Synced (a finalize:
 * Finalized), which says it waits; Ready is said only when the resource has none yet. A Ready resource waiting for its
 * share stays Ready: what it has (bucket, user, key, Secret) works, nothing of it changed. Asked again when the share
 * is likely to allow it.
 */
function heldForShare(
  request: CompositeSyncRequest,
  wait: ShareWait,
  now: Date,
  which: 'sync' | 'finalize',
): CompositeSyncResponse {
  const parent = request.parent;
  const previous = previousConditions(parent.status);
  const told = which === 'finalize' ? ['Finalized'] : ['Synced'];
  if (which === 'sync' && !previous.some((c) => c.type === 'Ready')) told.unshift('Ready');
  const fresh = buildConditions(
    told.map((type) => ({ type, status: false, reason: wait.reason, message: wait.message })),
    previous,
    undefined,
    now,
  );
  const conditions = [...previous.filter((c) => !told.includes(c.type)), ...fresh];
  const before = (parent.status as Record<string, unknown> | undefined)?.['observedGeneration'];
  const status: Record<string, unknown> = {
    ...currentStatus(parent),
    observedGeneration: typeof before === 'number' ? before : 0,
    conditions,
  };
  const response: CompositeSyncResponse = {
    status,
    children: allObserved(request.children).map(keepObserved),
    resyncAfterSeconds: wait.retryAfterSeconds,
  };
  if (which === 'finalize') response.finalized = false;
  return response;
}

/** An AWS failure as the framework renders it (lib/operator.ts): conditions, a resync, throttling waits longer. */
function awsFailure(
  err: unknown,
  message: string,
  options: { conditions: string[]; status?: Record<string, unknown> },
): TemporaryError {
  const reason = reasonOf(err);
  return new TemporaryError(reason, message, {
    ...options,
    retryAfterSeconds: reason === 'Throttled' ? RETRY_SECONDS.throttled : RETRY_SECONDS.failure,
  });
}

export { KEY_GRACE_SECONDS } from './plan.js';

export function secretName(parent: ParentObject, spec: Spec): string {
  return spec.secretName ?? `${parent.metadata.name}-credentials`;
}

/** The Secret an S3 resource may want (its spec's, or `<name>-credentials`), asked for by name (lib/ownership.ts). */
export function childNames(parent: ParentObject): ChildName[] {
  const named = (parent.spec as { secretName?: unknown } | undefined)?.secretName;
  const name = typeof named === 'string' ? named : `${parent.metadata.name!}-credentials`;
  return [{ apiVersion: 'v1', kind: 'Secret', name }];
}

/** The API version of S3 resources (a holder of a Secret name of this kind is judged by holderWants). */
const S3_API_VERSION = 'systek.no/v1';

/**
 * The names the holder of a name this resource wants still wants: an S3 resource's Secret, a MySQLCluster's Secret,
 * any kind's children (lib/holders.ts). The one held remembers the holder (status.heldBy) and stays held while it
 * exists and wants the name, even when the Secret is deleted for a moment (lib/ownership.ts).
 */
export function holderWants(holder: KubeObject): ChildName[] | undefined {
  return namesHolderWants(holder);
}

/** The S3 resources a parent's status records as holders of its Secret name (status.heldBy), at most 3. */
function recordedHolders(parent: ParentObject): HeldRecord[] {
  return heldRecordsOf(parent).filter(
    (r) => r.holder.kind === 'S3' && r.holder.apiVersion === S3_API_VERSION && r.holder.uid !== parent.metadata.uid,
  );
}

/**
 * Asks for the S3 resources that the parent's status records as holders of its Secret name (status.heldBy), by name:
 * a held resource judges them (holderWants). Never the namespace's every S3 resource: each would be sent with every
 * sync, and each change of one would sync every other (Metacontroller matches a rule without names to every object of
 * its namespace). A resource that is not held asks for none.
 *
 * Metacontroller keeps this answer for the parent's generation (v4.17: up to 20 minutes), so a holder recorded after
 * it was asked for is not sent yet: the sync cannot tell "not sent" from "gone", and asks AWS (unjudgedHolders).
 */
export function customize(request: CustomizeRequest): CustomizeResponse {
  const parent = request.parent;
  const namespace = parent?.metadata.namespace;
  if (!parent || !namespace) return { relatedResources: [] };
  const names = [...new Set(recordedHolders(parent).map((r) => r.holder.name))].sort();
  if (names.length === 0) return { relatedResources: [] };
  return { relatedResources: [{ apiVersion: S3_API_VERSION, resource: 's3s', namespace, names }] };
}

/**
 * The recorded holders (status.heldBy) of `wanted` that the related objects do not show, while the name is free: the
 * holder deleted, or recorded after Metacontroller asked customize for this generation (its answer is kept, and names
 * only the holders recorded then). Never taken on that doubt: such a holder still holds the name while its IAM user
 * (named after its namespace, name and uid, tagged with that uid, deleted last by its finalize) exists. A holder the
 * related objects show is judged by them (takenNames, stillHeld), with no AWS call.
 */
async function unjudgedHolders(aws: AwsApi, request: CompositeSyncRequest, wanted: ChildName): Promise<TakenName[]> {
  const parent = request.parent;
  const namespace = parent.metadata.namespace ?? '';
  const present = (map: CompositeSyncRequest['related'], kind: string, apiVersion: string, name: string) =>
    observedNamed(map, kind, apiVersion, name, namespace) !== undefined;
  if (
    present(request.related, wanted.kind, wanted.apiVersion, wanted.name) ||
    present(request.children, wanted.kind, wanted.apiVersion, wanted.name)
  )
    return [];
  const taken: TakenName[] = [];
  for (const { child, holder } of recordedHolders(parent)) {
    if (child.kind !== wanted.kind || child.apiVersion !== wanted.apiVersion || child.name !== wanted.name) continue;
    if (present(request.related, holder.kind, holder.apiVersion, holder.name)) continue;
    const user = await aws.getUser(userName(namespace, holder.name, holder.uid));
    if (!user || !owns({ namespace, name: holder.name, uid: holder.uid }, user.tags)) continue;
    taken.push({
      child,
      holder: `${holder.kind} ${holder.name} (uid ${holder.uid}), whose IAM user still exists (the ${child.kind} is gone for a moment: it makes it again)`,
      ref: holder,
    });
  }
  return taken;
}

/** A name the credentials Secret's labels or its default name cannot carry. */
export function nameProblem(parent: ParentObject): string | undefined {
  return parentNameProblem(parent.metadata.name ?? '', [
    { what: 'label app.kubernetes.io/instance', rule: 'labelValue' },
    { what: 'Secret', rule: 'dns1123Subdomain', suffix: '-credentials' },
  ]);
}

interface Owner {
  namespace: string;
  name: string;
  uid: string;
}

function ownerOf(parent: ParentObject): Owner {
  const namespace = parent.metadata.namespace ?? 'default';
  const name = parent.metadata.name!;
  return { namespace, name, uid: parent.metadata.uid ?? `${namespace}/${name}` };
}

function ownerTags(owner: Owner): Map<string, string> {
  return new Map([
    [OWNER_TAG, `${owner.namespace}/${owner.name}`],
    [OWNER_UID_TAG, owner.uid],
  ]);
}

/**
 * Whether these tags say `owner` made the object. `legacy`: a bucket made before the UID tag existed, with only
 * the namespace/name tag, is this resource's when its status already named it.
 */
function owns(owner: Owner, tags: Map<string, string>, legacy = false): boolean {
  const uid = tags.get(OWNER_UID_TAG);
  if (uid !== undefined) return uid === owner.uid;
  return legacy && tags.get(OWNER_TAG) === `${owner.namespace}/${owner.name}`;
}

/**
 * Why `what` is refused, as the tenant reads it (status, Events): another tenant's namespace and resource are never
 * named (they would tell any tenant who owns a bucket name it guesses); the operator's log names them.
 */
function notOurs(
  run: { owner: Owner; log: SyncHook<Spec, S3Clients>['log'] },
  what: string,
  tags: Map<string, string>,
): string {
  const { owner } = run;
  const by = tags.get(OWNER_TAG);
  if (by === `${owner.namespace}/${owner.name}`) {
    return `${what} was made by an earlier S3 resource named ${by} (uid ${tags.get(OWNER_UID_TAG) ?? 'unknown'}), not this one; to hand it over, set its tag ${OWNER_UID_TAG} to ${owner.uid}`;
  }
  if (by !== undefined || tags.has(OWNER_UID_TAG)) {
    run.log.info(
      { refused: what, owner: by, ownerUid: tags.get(OWNER_UID_TAG) },
      "S3: refused another resource's object",
    );
    return `${what} belongs to another S3 resource`;
  }
  return `${what} already exists and is not managed by metaops`;
}

/** The claim of a bucket (policy.ts), named here for the tests that read it. */
export { claimName };

function claimArnOf(userArn: string, bucket: string): string {
  const arn = claimArn(userArn, bucket);
  if (!arn) throw new AwsError('InvalidResponse', 'the IAM user has no usable ARN', 'GetUser');
  return arn;
}

/** The claim's document: a Deny on the bucket (it is attached to no one; attached by mistake, it only denies). */
function claimDocument(bucket: string): string {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [{ Sid: 'MetaopsBucketClaim', Effect: 'Deny', Action: 's3:*', Resource: bucketArn(bucket) }],
  });
}

/**
 * Takes (or finds held) the claim of `bucket` for this resource: true when it is ours, false when another
 * resource holds it. First writer wins: a CreatePolicy refused as existing is read back.
 */
async function holdClaim(aws: AwsApi, owner: Owner, userArn: string, bucket: string): Promise<boolean> {
  return (await claimHolder(aws, owner, userArn, bucket)) === undefined;
}

/** As holdClaim: undefined when the claim is ours (found or made now), else the tags of the claim another holds. */
async function claimHolder(
  aws: AwsApi,
  owner: Owner,
  userArn: string,
  bucket: string,
): Promise<Map<string, string> | undefined> {
  const arn = claimArnOf(userArn, bucket);
  const claim = await aws.getPolicy(arn);
  if (claim) return owns(owner, claim.tags) ? undefined : claim.tags;
  try {
    await aws.createPolicy(claimName(bucket), claimDocument(bucket), ownerTags(owner));
    return undefined;
  } catch (err) {
    if (!(err instanceof AwsError && err.code === 'EntityAlreadyExists')) throw err;
    // Made between our read and our create, or made by this resource a moment ago and not listed yet (IAM is
    // eventually consistent): read again. Still not there is no answer at all, and no refusal: nothing is given up.
    const raced = await aws.getPolicy(arn);
    if (!raced) throw unconfirmedClaim(bucket);
    return owns(owner, raced.tags) ? undefined : raced.tags;
  }
}

/** A claim IAM says exists (CreatePolicy: EntityAlreadyExists) but does not show: a lagging read, decided later. */
function unconfirmedClaim(bucket: string): AwsError {
  return new AwsError(
    'OwnershipUnconfirmed',
    `the claim of bucket ${bucket} (IAM policy ${claimName(bucket)}) exists but IAM does not show it yet; nothing is given up, the next sync reads it again`,
    'GetPolicy',
  );
}

/**
 * How long after this resource claimed a bucket (and tagged it, in the same sync) an untagged read of that bucket may
 * still be S3's lag: bucket configuration, tags included, is eventually consistent, and a GetBucketTagging right after
 * PutBucketTagging may answer NoSuchTagSet. Later, an untagged bucket is not the one this resource tagged: it was
 * deleted and made again by someone else, or its tags were removed; it is never taken back on the claim alone.
 */
export const TAGS_SETTLE_SECONDS = 600;

/** Whether this claim is this resource's and young enough that an untagged read of its bucket may be a stale one. */
function freshClaim(owner: Owner, claim: IamPolicy | undefined, now: Date): boolean {
  if (!claim?.created || !owns(owner, claim.tags)) return false;
  return now.getTime() - claim.created.getTime() < TAGS_SETTLE_SECONDS * 1000;
}

/**
 * Whether an untagged bucket this resource's user records may be taken back as this resource's: the record of intent
 * names it (a sync killed between CreateBucket and PutBucketTagging: its claim is taken now unless another holds it),
 * or this resource claimed it less than TAGS_SETTLE_SECONDS ago (a stale read of the tags it has just put).
 */
async function mayTakeBack(
  aws: AwsApi,
  owner: Owner,
  userArn: string,
  bucket: string,
  { intent, now }: { intent: boolean; now: Date },
): Promise<boolean> {
  if (intent) return holdClaim(aws, owner, userArn, bucket);
  return freshClaim(owner, await aws.getPolicy(claimArnOf(userArn, bucket)), now);
}

/**
 * An untagged bucket this resource claimed a moment ago (a stale read of its tags): tagged again with its owner tags.
 * Whether the claim is this resource's and young, and the bucket still exists: the caller waits for the tags to read
 * back rather than giving the bucket up. An untagged bucket under an older claim is not this resource's bucket any
 * more (made again by someone else, or its tags removed): never tagged, emptied or deleted.
 */
async function retagUnderClaim(
  aws: AwsApi,
  owner: Owner,
  userArn: string | undefined,
  bucket: string,
  now: Date,
): Promise<boolean> {
  const arn = userArn ? claimArn(userArn, bucket) : undefined;
  const claim = arn ? await aws.getPolicy(arn) : undefined;
  if (!freshClaim(owner, claim, now)) return false;
  const found = await findOwnBucket(aws, bucket);
  if (found && found.tags.size === 0) await aws.tagBucket(bucket, found.region, ownerTags(owner));
  return found !== undefined;
}

/** Releases this resource's claim of `bucket` (deleted or retained: its own tags guard it from now on). */
async function releaseClaim(aws: AwsApi, owner: Owner, userArn: string | undefined, bucket: string): Promise<void> {
  const arn = userArn ? claimArn(userArn, bucket) : undefined;
  if (!arn) return;
  const claim = await aws.getPolicy(arn);
  if (claim && owns(owner, claim.tags)) await aws.deletePolicy(arn);
}

/** The status fields this hook reads back, each checked for its type (the status is anyone's to write). */
interface Previous {
  bucketName: string | undefined;
  region: string | undefined;
  policyArn: string | undefined;
  iamUser: string | undefined;
  createdBuckets: string[] | undefined;
  retainedBuckets: string[];
}

function previousOf(parent: ParentObject): Previous {
  const s = currentStatus(parent) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const strs = (v: unknown) =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').slice(0, 100) : undefined;
  return {
    bucketName: str(s['bucketName']),
    region: str(s['region']),
    policyArn: str(s['policyArn']),
    iamUser: str(s['iamUser']),
    createdBuckets: strs(s['createdBuckets']),
    retainedBuckets: strs(s['retainedBuckets']) ?? [],
  };
}

/** The buckets the status records as created by this resource (a status from before the field: its bucket). */
function recordedBuckets(previous: Previous): Set<string> {
  return new Set(previous.createdBuckets ?? (previous.bucketName ? [previous.bucketName] : []));
}

function sameJson(a: string, b: string): boolean {
  try {
    return JSON.stringify(parseJson(a)) === JSON.stringify(parseJson(b));
  } catch {
    return false;
  }
}

/** AWS error codes as condition reasons. */
export function reasonOf(err: unknown): string {
  // Stryker disable next-line StringLiteral: no pattern below matches either word: both are AWSError
  const code = err instanceof AwsError ? err.code : 'Unknown';
  if (/Throttl|SlowDown|RequestLimitExceeded|TooManyRequests/.test(code)) return 'Throttled';
  if (
    /AccessDenied|InvalidClientTokenId|InvalidAccessKeyId|SignatureDoesNotMatch|UnrecognizedClient|Forbidden/.test(code)
  )
    return 'AccessDenied';
  if (
    code === 'BucketAlreadyExists' ||
    code === 'OwnershipUnconfirmed' ||
    code === 'IAMNameTaken' ||
    code === 'RegionMismatch' ||
    code === 'ResponseTooLarge'
  )
    return code;
  if (
    /Timeout|Abort|ECONNREFUSED|ENOTFOUND|ECONNRESET|NetworkingError|socket/i.test(`${code} ${(err as Error)?.message}`)
  ) {
    return 'Unreachable';
  }
  return 'AWSError';
}

/**
 * CreateBucket's definite refusals (4xx: the request was refused, no bucket was made). A 5xx (InternalError,
 * ServiceUnavailable), a throttle, an answer that never came or a code not listed here may have made the bucket.
 */
const CREATE_REFUSED = new Set([
  'BucketAlreadyExists',
  'InvalidBucketName',
  'TooManyBuckets',
  'InvalidLocationConstraint',
  'IllegalLocationConstraintException',
  'InvalidArgument',
  'InvalidRequest',
  'MalformedXML',
  'PermanentRedirect',
  'AuthorizationHeaderMalformed',
]);

/** Whether CreateBucket's failure says for certain that no bucket was made. */
export function createRefused(err: unknown): boolean {
  return err instanceof AwsError && (CREATE_REFUSED.has(err.code) || reasonOf(err) === 'AccessDenied');
}

/** An AWS failure as the status and Events say it: AWS's words without the operator's account and identity. */
function describe(err: unknown): string {
  if (err instanceof AwsError && /Abort/.test(err.code)) return `${err.operation}: no answer within the deadline`;
  if (err instanceof AwsError) return scrubAwsText(`${err.operation}: ${err.code}: ${err.message}`);
  return scrubAwsText((err as Error)?.message ?? String(err));
}

/** One sync's inputs, and the buckets it records as created and retained as it goes (on failure too). */
interface SyncRun {
  aws: AwsApi;
  spec: Spec;
  owner: Owner;
  previous: Previous;
  /** The IAM user of this resource. */
  user: string;
  /** The IAM user as found (or made) by this sync, once it is: its tags hold the records of the buckets. */
  iamUser?: IamUser;
  /** Whether this sync made the IAM user (CreateUser): it holds nothing but what this sync gave it. */
  madeUser?: boolean;
  /** The buckets the user records (bucketRecords), as this sync keeps them. */
  records: Map<string, BucketRecord>;
  /** The bucket the user's record of intent names (a CreateBucket under way), as this sync keeps it. */
  intent?: string | undefined;
  /**
   * A refusal of the spec's bucket on a definite answer (its tags or its claim name another owner, or AWS refused
   * CreateBucket as another account's): only such a refusal revokes this resource's grant. An untagged read, a
   * lagging IAM read is no such answer.
   */
  definite?: boolean;
  /** The credentials Secret's name. */
  secretName: string;
  observedSecret: KubeObject | undefined;
  /**
   * The other Secrets observed as this resource's children: a renamed secretName's old Secret, until Metacontroller
   * deletes it (the answer names only the new one). Their readers use their keys: copied, never deleted meanwhile.
   */
  oldSecrets: KubeObject[];
  specTags: Map<string, string>;
  /** The buckets the status records as created by this resource, as the sync found them. */
  recorded: ReadonlySet<string>;
  created: Set<string>;
  retained: Set<string>;
  /** Conditions beside Ready and Synced (old buckets waiting). */
  notes: ConditionInput[];
  note: (event: EventSpec) => void;
  log: SyncHook<Spec, S3Clients>['log'];
  /** The most buckets the namespace's S3 resources may hold (the server's settings; ledger.ts). */
  bucketsPerNamespace: number;
  now: Date;
}

/** The Secrets observed as this resource's children other than `wanted`, in name order (a few at most). */
function otherSecrets(request: CompositeSyncRequest, wanted: string): KubeObject[] {
  return allObserved(request.children)
    .filter(
      (c) =>
        c.kind === 'Secret' &&
        c.apiVersion === 'v1' &&
        typeof c.metadata?.name === 'string' &&
        c.metadata.name !== wanted,
    )
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
}

/**
 * The sync: the bucket, the buckets a rename left behind, the IAM user, its policy, its access key, the user of
 * an older metaops, in the order AWS needs them, each a named step; the answer is built from what they made
 * (plan.ts). Each transition made in AWS is told as an Event (hook.event: BucketCreated, BucketRetained,
 * AccessKeyCreated, KeyRotated); it never changes the answer.
 */
export async function sync(hook: SyncHook<Spec, S3Clients, S3Settings>): Promise<CompositeSyncResponse> {
  const key = grantedKmsKey(hook.spec.encryption);
  const keyRefused = key && kmsKeyNotAllowed(key, ownerOf(hook.parent).namespace, hook.settings.kms);
  // A KMS key the server does not allow the namespace (refusedKmsKey): a grant of it is withdrawn whatever the budget
  // says when there may be one (recordsMade, not refused at this generation yet), within one period's debt. Waiting,
  // a resource that records nothing made is answered its refusal (the spec is refused whatever AWS says), one that
  // does keeps what it has.
  const recorded = !!keyRefused && recordsMade(hook.parent);
  const withdraws = recorded && !withdrawnAtThisGeneration(hook.parent) && withinWithdrawalDebt(hook);
  const waiting =
    keyRefused && !recorded ? (wait: ShareWait) => refusedWaiting(hook.request, keyRefused, wait, hook.now) : undefined;
  const run = () => inShare(hook, 'sync', (aws) => syncIn(hook, aws), withdraws, waiting);
  const claim = claimOf(hook.request, secretName(hook.parent, hook.spec));
  if (!claim) return run();
  try {
    return withClaim(await run(), claim);
  } catch (err) {
    throw claimedIn(hook.request, err, claim);
  }
}

/**
 * The claim on a Secret name (pendingSecret) that an answer of this sync carries when it answers no Secret of that
 * name, or undefined. An S3 resource answers its Secret only once its IAM user, bucket, policy and key are made
 * (seconds of AWS calls, or for as long as it waits on AWS: Throttled, TooManyBuckets, BucketPlacePending, an outage,
 * its namespace's share); until then the name was free, and a parent made after it (a MySQLCluster `<x>` for Secret
 * `<x>-mysql`, another S3 resource naming the same secretName) took it: customize never asks for every S3 resource of
 * a namespace (each would be sent with every sync), so the later one cannot see the earlier one's spec. So the answer
 * of every sync that makes no Secret claims the name: the Secret, pending, without keys (its keys are added in place
 * once made), which the later parent finds by name (lib/ownership.ts takenNames) and is held for. Only while nothing
 * was ever answered under the name: no Secret of this resource observed (a renamed secretName moves the old one's
 * key instead), no access key in the status (a Secret deleted by hand is made again by the key plan, as before), the
 * name free (takenNames, no AWS call) and no holder recorded (a held resource claims nothing: stillHeld and
 * unjudgedHolders judge those).
 */
export function claimOf(request: CompositeSyncRequest, name: string): KubeObject | undefined {
  const parent = request.parent;
  if (parent.metadata.deletionTimestamp) return undefined;
  if (allObserved(request.children).some((c) => c.kind === 'Secret' && c.apiVersion === 'v1')) return undefined;
  const status = currentStatus(parent) as Record<string, unknown>;
  if (typeof status['accessKeyId'] === 'string' && status['accessKeyId'] !== '') return undefined;
  if (heldRecordsOf(parent).length > 0) return undefined;
  const wanted: ChildName = { apiVersion: 'v1', kind: 'Secret', name };
  if (takenNames(request, [wanted], undefined, holderWants).length > 0) return undefined;
  return pendingSecret(parent, name);
}

/** The answer with the claim added when it answers no Secret of the claim's name and is not held for it. */
function withClaim(response: CompositeSyncResponse, claim: KubeObject): CompositeSyncResponse {
  const name = claim.metadata.name;
  if (response.children.some((c) => c?.kind === 'Secret' && c.metadata?.name === name)) return response;
  const ready = previousConditions(response.status).find((c) => c.type === 'Ready');
  if (typeof ready?.reason === 'string' && refusal(ready.reason)) return response;
  return { ...response, children: [...response.children, claim] };
}

/**
 * Whether an answer's reason claims no Secret name: a refusal until the resource's spec or namespace changes (a bucket
 * or IAM name another owner holds, a region or a KMS key refused, no place for its bucket, a Secret name held: it
 * makes nothing, as docs/s3.md says), or SecretPending with no Secret observed (IAM's newest key is young and may be
 * in a Secret Metacontroller's cache does not show yet: an empty Secret answered over it would drop its keys). A wait
 * on AWS (Throttled, Unreachable, AccessDenied, AWSError, BucketPlacePending, its namespace's share) claims it: the
 * resource goes on by itself.
 */
function refusal(reason: string): boolean {
  return (
    /Name(Taken|Releasing)$/.test(reason) ||
    [
      'BucketAlreadyExists',
      'RegionMismatch',
      'TooManyBuckets',
      'InvalidSpec',
      'OwnershipUnconfirmed',
      'SecretPending',
    ].includes(reason)
  );
}

/** A failure of the sync (rendered by lib/operator.ts) whose answer carries the claim besides the observed children. */
function claimedIn(request: CompositeSyncRequest, err: unknown, claim: KubeObject): unknown {
  if (!isHookFailure(err) || err instanceof PermanentError || refusal(err.reason)) return err;
  const children = [...(err.options.children ?? allObserved(request.children).map(keepObserved)), claim];
  return new TemporaryError(err.reason, err.message, {
    ...err.options,
    children,
    retryAfterSeconds: err.retryAfterSeconds,
  });
}

/**
 * Whether the status records anything made for the resource in AWS (a bucket it created, its IAM user, policy or access
 * key): only then may its policy hold a KMS grant to withdraw. A resource that records nothing (refused from its first
 * sync: nothing was ever made) has nothing to withdraw, and its syncs wait for the namespace's budget like any other; so
 * does one whose first sync made something and never wrote its status (rare: a sync killed, an answer lost), whose grant
 * is then withdrawn once the budget allows, not at once.
 */
function recordsMade(parent: ParentObject): boolean {
  const previous = previousOf(parent);
  const status = currentStatus(parent) as Record<string, unknown>;
  return (
    previous.iamUser !== undefined ||
    previous.policyArn !== undefined ||
    typeof status['accessKeyId'] === 'string' ||
    (previous.createdBuckets?.length ?? 0) > 0
  );
}

/**
 * Whether this generation's spec was answered InvalidSpec already (Ready False InvalidSpec, for this generation): that
 * answer held the policy to the rules (refusedKmsKey, ensurePolicy's refusal, `refused`), so no grant is left to
 * withdraw at once; an edit, or a Ready resource whose key the server stopped allowing, has one.
 */
function withdrawnAtThisGeneration(parent: ParentObject): boolean {
  const ready = previousConditions(parent.status).find((c) => c.type === 'Ready');
  return (
    ready?.status === 'False' &&
    ready.reason === 'InvalidSpec' &&
    ready.observedGeneration === parent.metadata.generation
  );
}

/**
 * Whether a withdrawal may still pass the namespace's budget: while the namespace owes less than one period's calls.
 * Past that (its resources' edits naming keys it is not allowed, each a new generation to withdraw from), its
 * withdrawals wait for the budget like any sync: a namespace makes at most twice its share in a period that way.
 */
function withinWithdrawalDebt(hook: { parent: ParentObject; now: Date; clients: S3Clients; settings: S3Settings }) {
  const { tenants } = hook.clients;
  const capacity = tenants.callsOf(hook.settings.bucketsPerNamespace);
  return tenants.callsLeft(ownerOf(hook.parent).namespace, capacity, hook.now) > -capacity;
}

/**
 * A spec refused for its KMS key that waits for its namespace's share, its status recording nothing made: answered
 * InvalidSpec as the key's refusal, the wait said after it (nothing was checked or sent), every child kept; asked again
 * when the share allows, as a refused spec's check waiting is (lib/operator.ts).
 */
function refusedWaiting(
  request: CompositeSyncRequest,
  refusal: string,
  wait: ShareWait,
  now: Date,
): CompositeSyncResponse {
  return {
    ...invalidSpecResponse(request, `${refusal}; ${wait.message}`, now),
    resyncAfterSeconds: wait.retryAfterSeconds,
  };
}

async function syncIn(hook: SyncHook<Spec, S3Clients, S3Settings>, shared: AwsApi): Promise<CompositeSyncResponse> {
  const { request, parent, spec, now } = hook;
  const aws = shared.withDeadline(HOOK_BUDGET_MS, hook.signal);
  const owner = ownerOf(parent);
  const previous = previousOf(parent);
  const wantedSecret = secretName(parent, spec);
  const recorded = recordedBuckets(previous);
  const run: SyncRun = {
    aws,
    spec,
    owner,
    previous,
    user: userName(owner.namespace, owner.name, owner.uid),
    secretName: wantedSecret,
    // Found by the object's own name, never by a key of the observed map: a Secret named `constructor` must not
    // find Object.prototype's.
    observedSecret: observedNamed(request.children, 'Secret', 'v1', wantedSecret),
    oldSecrets: otherSecrets(request, wantedSecret),
    specTags: tagsOf(parent.spec),
    recorded,
    records: new Map(),
    created: new Set(recorded),
    retained: new Set(previous.retainedBuckets),
    notes: [],
    note: hook.event,
    log: hook.log,
    bucketsPerNamespace: hook.settings.bucketsPerNamespace,
    now,
  };
  // A customer managed key the server does not allow the namespace (METAOPS_KMS_KEY_ALLOWLIST): the spec is refused
  // before anything is made, and a grant of a key made while it was allowed (the admin took it off the list since, or
  // gave it to another namespace only) is withdrawn from the policy; nothing else is touched.
  const kmsKey = grantedKmsKey(spec.encryption);
  const notAllowed = kmsKey && kmsKeyNotAllowed(kmsKey, owner.namespace, hook.settings.kms);
  if (notAllowed) return refusedKmsKey(run, request, notAllowed);
  // A bucket found lost before (made again empty) is still said, for as long as the resource names it.
  const lostBefore = bucketLostBefore(parent, spec.bucketName);
  if (lostBefore) run.notes.push(lostBefore);
  // A Secret of that name another owner holds is never taken, and no key is made or rotated for it.
  // A name free for a moment whose holder (remembered in status.heldBy) still exists and wants it is still taken.
  const wanted: ChildName = { apiVersion: 'v1', kind: 'Secret', name: wantedSecret };
  const taken = takenNames(request, [wanted], undefined, holderWants);
  // A recorded holder the related objects do not show: AWS says whether it still exists.
  if (taken.length === 0) {
    try {
      taken.push(...(await unjudgedHolders(aws, request, wanted)));
    } catch (err) {
      throw awsFailure(err, `Secret ${wantedSecret}'s holder: ${describe(err)}`, { conditions: ['Ready', 'Synced'] });
    }
  }
  if (taken.length > 0) {
    const { reason, message } = takenCondition(parent, taken);
    throw new TemporaryError(reason, message, {
      conditions: ['Ready', 'Synced'],
      retryAfterSeconds: TAKEN_RESYNC_SECONDS,
      status: { [HELD_BY]: heldRecords(taken) },
    });
  }
  // A parent made before this resource is held for the Secret it holds (two parents made together: neither first sync
  // saw the other, and this resource's Secret was created first): it yields (yieldedSecret).
  const first = wantedByFirst(request, holderWants);
  if (first.length > 0) throw yieldedSecret(request, first);
  // Not held: the holders remembered are forgotten.
  const released: ParentObject = parent.status ? { ...parent, status: withoutHeldRecords(parent.status) } : parent;
  const step = stepsOf(run);
  // The user first (a read): someone else's refuses the resource before anything is made, and ours holds the
  // records of the buckets this resource made (a killed sync's among them).
  run.iamUser = await step('IAM user', () => findUser(run));
  // A new bucket's record of intent is on the user, made then (its own step: a refused CreateUser is the user's).
  const region = await step('bucket', () => ensureBucket(run, () => step('IAM user', () => userOf(run)))).catch(
    (err: unknown) => lostBucket(run, err),
  );
  const old = await step('old buckets', () => retireOldBuckets(run));
  const arn = await step('IAM user', () => ensureUser(run));
  const policyArn = await step('IAM policy', () => ensurePolicy(run, arn, region));
  const key = await step('access key', () => ensureKey(run));
  const synced = { bucket: spec.bucketName, region, secretName: wantedSecret };
  if ('pending' in key) {
    const status = pendingStatus(
      released,
      { ...synced, lists: bucketLists(run.created, run.retained) },
      key.pending,
      now,
    );
    return { status, children: allObserved(request.children).map(keepObserved), resyncAfterSeconds: key.wait };
  }
  // The Secret gets this user's key: the user an older metaops named after namespace and name alone goes,
  // with its keys, as a rotated key does (only if its tag names this resource).
  await step('old IAM user', () => retireLegacyUser(aws, owner, previous, run.user));
  const done = { ...synced, lists: bucketLists(run.created, run.retained) };
  return {
    status: readyStatus(released, { ...done, user: run.user, policyArn, keyId: key.key.id }, run.notes, now),
    children: [credentialsSecret(parent, done, key.key, aws.endpoint)],
    ...resyncAfter(old.unconfirmed, key.recheckIn, oldBucketsWait(parent, old.waiting, now)),
  };
}

/**
 * The answer of a resource whose Secret a parent made before it is held for (lib/ownership.ts wantedByFirst: that
 * parent's status.heldBy records this resource or its Secret): the first parent keeps working, so this resource
 * releases the Secret (left out of the answer: Metacontroller deletes it), records the first as the holder it yields
 * to (status.heldBy yieldsTo, so that it does not take the name again while the first wants it) and says so:
 * `SecretNameTaken` naming the first. Whether or not it served: its Secret holds no data, only credentials that its
 * bucket, IAM user and key (all kept) can give again under a name of its own (spec.secretName). No AWS call.
 */
function yieldedSecret(request: CompositeSyncRequest, first: readonly TakenName[]): TemporaryError {
  const parent = request.parent;
  const names = new Set(first.map((t) => `${t.child.apiVersion}/${t.child.kind}/${t.child.name}`));
  const kept = allObserved(request.children).filter(
    (c) => !names.has(`${c.apiVersion}/${c.kind}/${c.metadata.name ?? ''}`),
  );
  const firsts = [...new Set(first.map((t) => `${t.ref!.kind} ${t.ref!.name}`))].join(', ');
  const { message } = takenCondition(parent, first, {
    reason: 'SecretNameTaken',
    note:
      `${firsts}, made before this S3, wants it and is held for it, so this S3 yields: it releases the Secret ` +
      `(Metacontroller deletes it; its bucket, IAM user and key are kept) and stays held while the name is wanted ` +
      `there. To run both, set spec.secretName to a name no other resource of the namespace uses`,
  });
  return new TemporaryError('SecretNameTaken', message, {
    conditions: ['Ready', 'Synced'],
    retryAfterSeconds: TAKEN_RESYNC_SECONDS,
    // status.secretName no longer names this resource's credentials: left out (a tool reading it would read the
    // first's Secret).
    status: { [HELD_BY]: heldRecords(first, (t) => t.ref), secretName: undefined },
    children: kept.map(keepObserved),
  });
}

/**
 * Old buckets waiting on their tenant alone (not empty) are looked at again less and less often, as the finalize's
 * are (tenantWaitSeconds): the wait is recorded by OldBucketDeleted's lastTransitionTime, in the status.
 */
function oldBucketsWait(parent: ParentObject, waiting: string[], now: Date): number | undefined {
  return waiting.length ? tenantWaitSeconds(parent, now, 'OldBucketDeleted') : undefined;
}

/**
 * A spec naming a KMS key the server does not allow the namespace: answered InvalidSpec, every child kept (the
 * Secret and its access key, the bucket and its data, the user are not touched), once no policy of this resource
 * grants a KMS key any more (withdrawKmsGrant). The bucket's default encryption is left as it is: the objects
 * written under the key stay encrypted under it, and the tenant's user can no longer read them or write new ones
 * until the spec names a key the server allows (or none) or the server allows the key again; nothing is deleted or
 * re-encrypted. Withdrawing fails: the refusal and the failure are said, and the sync is tried again.
 */
async function refusedKmsKey(
  run: SyncRun,
  request: CompositeSyncRequest,
  refusal: string,
): Promise<CompositeSyncResponse> {
  let note: string | undefined;
  try {
    note = await narrowGrant(run.aws, run.owner, run.recorded, undefined, run.log);
  } catch (err) {
    throw awsFailure(err, `${refusal}; its grant could not be withdrawn yet: ${describe(err)}`, {
      conditions: ['Ready', 'Synced'],
    });
  }
  return invalidSpecResponse(request, note ? `${refusal}; ${note}` : refusal, run.now);
}

/**
 * A spec refused before the sync (index.ts specProblem: a kmsKeyId that is no exact key ARN, a tag AWS refuses; the
 * schema; the resource's name; the answer budget): no sync runs while it is refused, so what an earlier answer (of
 * this metaops, or of one with older rules) granted is held to today's rules here (narrowGrant), and the refusal is
 * then answered InvalidSpec, every child kept. A key the raw spec names and the rules allow stays granted: a spec
 * refused for another field cuts no access the rules give. Checking fails (AWS unreachable, throttled): the
 * InvalidSpec message says the failure too, and the sync is tried again.
 */
export async function refused(hook: RefusedHook<S3Clients, S3Settings>): Promise<string | undefined> {
  const { parent } = hook;
  const owner = ownerOf(parent);
  const key = rawKmsKey(parent.spec);
  const allowed = key !== undefined && !kmsKeyNotAllowed(key, owner.namespace, hook.settings.kms) ? key : undefined;
  try {
    const { tenants, aws } = hook.clients;
    const call = { namespace: owner.namespace, bucketsPerNamespace: hook.settings.bucketsPerNamespace, now: hook.now };
    return await tenants.run(call, await aws(), (shared) =>
      narrowGrant(
        shared.withDeadline(HOOK_BUDGET_MS, hook.signal),
        owner,
        recordedBuckets(previousOf(parent)),
        allowed,
        hook.log,
      ),
    );
  } catch (err) {
    // Waiting for the namespace's share: said as it is (nothing was checked, nothing sent).
    if (err instanceof ShareWait) throw err;
    // Said after the refusal in the InvalidSpec answer (lib/operator.ts), which is asked again after its retry.
    throw awsFailure(err, `what this resource was granted before could not be checked yet: ${describe(err)}`, {
      conditions: ['Ready', 'Synced'],
    });
  }
}

/**
 * Holds this resource's IAM policy (ours by its tags) to what the rules grant now, while its spec is refused and no
 * sync checks it: every KMS statement goes but bucketPolicy's own for `keep` (a key the raw spec names and the
 * server allows the namespace), and that one too unless the key is in the operator's partition and account (the
 * user's) and the region of the bucket the policy grants, found and ours; a policy granting a bucket whose tags name
 * another owner (an older metaops let two resources take one bucket) is detached from the user, as the sync's
 * lostBucket does on that definite answer (its keys and Secret go at the first sync of a valid spec). Nothing is
 * made, no bucket, key or Secret touched, none of another owner's objects written; reads only when nothing is to
 * narrow. `recorded`: the buckets the status records (a bucket tagged by name alone by a metaops before the UID tag
 * is this resource's when its status names it, as the sync reads it).
 */
async function narrowGrant(
  aws: AwsApi,
  owner: Owner,
  recorded: ReadonlySet<string>,
  keep: string | undefined,
  log: SyncHook<Spec, S3Clients>['log'],
): Promise<string | undefined> {
  const user = userName(owner.namespace, owner.name, owner.uid);
  const iamUser = await aws.getUser(user);
  if (!iamUser || !owns(owner, iamUser.tags)) return undefined;
  const arn = arnParts(iamUser.arn);
  if (!arn) return undefined;
  const policyArn = `arn:${arn.partition}:iam::${arn.account}:policy/${policyName(owner.namespace, owner.name, owner.uid)}`;
  const policy = await aws.getPolicy(policyArn);
  if (!policy || !owns(owner, policy.tags)) return undefined;
  const document = await aws.policyDocument(policyArn, policy.defaultVersionId);
  const bucket = grantedBucket(document);
  // A bucket of another AWS account under the name (this resource's deleted outside metaops, its name taken since) is
  // never ours: a definite answer, as the sync's refuseOfAnotherAccount takes it (findOwnBucket reads it as gone).
  let foreign = false;
  const found =
    bucket !== undefined
      ? await aws.findBucket(bucket).catch((err: unknown) => {
          if (!ofAnotherAccount(err)) throw err;
          foreign = true;
          return undefined;
        })
      : undefined;
  // Its owner tags decide (a definite answer); a bucket gone, or untagged (a stale read, a sync killed before
  // tagging it), is no answer: nothing is detached on it, and no key kept for it.
  const owned = foreign
    ? false
    : found && found.tags.size > 0
      ? owns(owner, found.tags, recorded.has(bucket!))
      : undefined;
  const attached = owned === false && (await aws.attachedPolicies(user)).includes(policyArn);
  if (attached) {
    await aws.detachPolicy(user, policyArn);
    log.warn(
      { bucket, user },
      foreign
        ? 'S3: the policy of a refused spec grants a bucket of another AWS account: detached'
        : "S3: the policy of a refused spec grants another resource's bucket: detached",
    );
  }
  const kept =
    keep !== undefined && owned === true && !kmsKeyRefusal(keep, { ...arn, region: found!.region }) ? keep : undefined;
  const without = withoutKmsGrant(document, kept);
  if (without !== undefined) await aws.setPolicyDocument(policyArn, without);
  if (!foreign) return undefined;
  return attached
    ? `bucket ${bucket} is owned by another AWS account now, not the operator's: this resource's grant to it was revoked`
    : `bucket ${bucket} is owned by another AWS account now, not the operator's: this resource holds no grant to it`;
}

/** The policy's KMS statements taken out, if the policy exists, is ours, and has any. */
async function withdrawKmsStatements(aws: AwsApi, owner: Owner, policyArn: string): Promise<void> {
  const policy = await aws.getPolicy(policyArn);
  if (!policy || !owns(owner, policy.tags)) return;
  const without = withoutKmsGrant(await aws.policyDocument(policyArn, policy.defaultVersionId));
  if (without !== undefined) await aws.setPolicyDocument(policyArn, without);
}

/**
 * Runs a named step of the sync. A failure, temporary or not, deletes nothing already created: it is answered
 * as `<step>: <what AWS said>` on Ready and Synced, the Secret kept as observed (lib/operator.ts), the hook
 * called again; what was created so far is recorded, so that finalize can clean it up.
 */
function stepsOf(run: SyncRun) {
  // The failures a step answered: one inside another step keeps the inner step's name.
  const answered = new WeakSet<object>();
  return async <T>(name: string, effect: () => Promise<T>): Promise<T> => {
    try {
      return await effect();
    } catch (err) {
      if (answered.has(err as object)) throw err;
      const options = { conditions: ['Ready', 'Synced'], status: bucketLists(run.created, run.retained) };
      // A spec the step refused (a KMS key of another account): that reason, not an AWS failure's.
      const failure =
        err instanceof PermanentError
          ? new PermanentError(err.reason, `${name}: ${err.message}`, options)
          : err instanceof TemporaryError
            ? new TemporaryError(err.reason, `${name}: ${err.message}`, {
                ...options,
                retryAfterSeconds: err.retryAfterSeconds,
              })
            : awsFailure(err, `${name}: ${describe(err)}`, options);
      answered.add(failure);
      throw failure;
    }
  };
}

/** The IAM user of this resource as it is: ours by its tags, absent, or someone else's (refused, never touched). */
async function findUser(run: SyncRun): Promise<IamUser | undefined> {
  const { aws, owner, user } = run;
  const iamUser = await aws.getUser(user);
  if (iamUser && !owns(owner, iamUser.tags))
    throw new AwsError('IAMNameTaken', notOurs(run, `IAM user ${user}`, iamUser.tags), 'CreateUser');
  if (iamUser) {
    run.records = bucketRecords(iamUser.tags);
    run.intent = iamUser.tags.get(BUCKET_INTENT_TAG);
  }
  return iamUser;
}

/** This resource's IAM user: found, or created now (tagged in the same call, so it is ours from its first moment). */
async function userOf(run: SyncRun): Promise<IamUser> {
  run.iamUser ??= await findUser(run);
  if (!run.iamUser) {
    run.iamUser = await run.aws.createUser(run.user, ownerTags(run.owner));
    run.madeUser = true;
  }
  return run.iamUser;
}

/**
 * The spec's new bucket refused (the namespace's bucket bound, TooManyBuckets; or its name another resource's,
 * BucketAlreadyExists, on a definite answer): this resource's IAM user, when it holds nothing (no bucket recorded, no
 * record of intent, no access key, no policy attached), is deleted at once. The account's users are a quota every
 * tenant shares (5,000): two new resources racing for a namespace's last place, or for one new bucket name, each make
 * their user before the place or the claim is decided, and the one refused kept its user for as long as the resource
 * existed, one more per race. A user this sync made holds nothing but the records it dropped on the refusal; one found
 * (left by a sync killed or refused before) is deleted only when IAM lists no key and no policy attached to it. The
 * next sync makes it again only once the bucket's place and name are free.
 */
async function dropIdleUser(run: SyncRun, err: unknown): Promise<void> {
  // The namespace's bound (ledger.ts), or the name's claim or S3 on a definite answer; not S3's own bucket quota.
  const refused =
    reasonOfFailure(err) === 'TooManyBuckets' ||
    (err instanceof AwsError && err.code === 'BucketAlreadyExists' && run.definite === true);
  if (!refused || !run.iamUser || run.records.size > 0 || run.intent !== undefined) return;
  const { aws, user } = run;
  if (!run.madeUser && ((await aws.listAccessKeys(user)).length > 0 || (await aws.attachedPolicies(user)).length > 0))
    return;
  await aws.deleteUser(user);
  run.iamUser = undefined;
  run.madeUser = false;
  run.log.info({ user }, "S3: the resource's new bucket was refused: its IAM user, holding nothing, deleted");
}

/** Records `bucket` on the user as `state` (with the record of intent: a CreateBucket of it follows). */
async function writeRecord(run: SyncRun, bucket: string, state: BucketRecord, intent = false): Promise<void> {
  const tags = new Map<string, string>([[bucketRecordTag(bucket), state]]);
  if (intent) tags.set(BUCKET_INTENT_TAG, bucket);
  await run.aws.tagUser(run.user, tags);
  run.records.set(bucket, state);
  if (intent) run.intent = bucket;
}

/** Removes the user's record of `bucket` (and the record of intent, when it names it); no call when there is none. */
async function dropRecord(run: SyncRun, bucket: string): Promise<void> {
  const keys = [
    ...(run.records.has(bucket) ? [bucketRecordTag(bucket)] : []),
    ...(run.intent === bucket ? [BUCKET_INTENT_TAG] : []),
  ];
  if (!keys.length) return;
  await run.aws.untagUser(run.user, keys);
  run.records.delete(bucket);
  if (run.intent === bucket) run.intent = undefined;
}

/**
 * The buckets the user records other than the spec's, that the status does not list as created (a sync killed before
 * its status was written, a status lost): a retention the status lists already has its record removed, one it does not
 * list is listed; a bucket made is found again: with its owner tags it is recorded as created (a rename then retains or
 * deletes it), untagged (a sync killed between CreateBucket and PutBucketTagging) it is tagged under this resource's
 * claim and recorded; gone, its claim is released and its record removed; another owner's (its tags or its claim
 * say so) loses the record.
 */
async function settleRecords(run: SyncRun): Promise<void> {
  for (const [bucket, state] of [...run.records].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (bucket === run.spec.bucketName) continue;
    if (state === 'retained') {
      // A retention the status does not list (a sync killed between marking it retained and writing its status): its
      // claim released, and listed. Once the status lists it, its record goes (at the end of ensureBucket).
      if (run.previous.retainedBuckets.includes(bucket) || run.created.has(bucket)) continue;
      await releaseClaim(run.aws, run.owner, run.iamUser!.arn, bucket);
      run.retained.add(bucket);
    } else if (!run.recorded.has(bucket)) await settleRecord(run, bucket);
  }
}

async function settleRecord(run: SyncRun, bucket: string): Promise<void> {
  const { aws, owner } = run;
  const found = await findOwnBucket(aws, bucket);
  // Gone (or never made, or another account's now): a claim a killed sync took for it is released, so the name is
  // free again.
  if (!found) {
    await releaseClaim(aws, owner, run.iamUser!.arn, bucket);
    await releaseEntry(aws, run.iamUser!.arn, owner.namespace, bucket);
    return dropRecord(run, bucket);
  }
  if (found.tags.size === 0) {
    if (await mayTakeBack(aws, owner, run.iamUser!.arn, bucket, { intent: run.intent === bucket, now: run.now })) {
      await aws.tagBucket(bucket, found.region, ownerTags(owner));
      run.created.add(bucket);
      run.retained.delete(bucket);
      return;
    }
  } else if (owns(owner, found.tags)) {
    run.created.add(bucket);
    run.retained.delete(bucket);
    return;
  }
  // Another namespace's bucket of that name (made again since): not counted as this namespace's.
  if (namesAnotherNamespace(found.tags, owner.namespace))
    await releaseEntry(aws, run.iamUser!.arn, owner.namespace, bucket);
  await dropRecord(run, bucket);
}

/**
 * The bucket just created, told: a bucket the status records as this resource's was found gone (deleted outside
 * metaops, with whatever it held). It is made again (the spec asks for it), but never as a routine creation: a
 * Warning, and a condition that stays while the resource names the bucket (plan.ts bucketLostBefore).
 */
function toldCreated(run: SyncRun, bucket: string, region: string): void {
  if (!run.recorded.has(bucket)) {
    run.note(bucketCreated(bucket, region));
    return;
  }
  run.note(bucketLost(bucket, region));
  if (!run.notes.some((c) => c.type === 'BucketLost')) run.notes.push(bucketLostCondition(bucket));
}

/**
 * The bucket: ours by its tags, or created now; someone else's is refused and never touched. Its region.
 *
 * Crash-consistent: before CreateBucket, this resource's IAM user (ours by its tags from the call that created it)
 * records the bucket (bucketRecordTag, with the record of intent, BUCKET_INTENT_TAG); the owner tags follow the
 * bucket's creation, and the record of intent is removed once they are on it; the bucket's record stays for as long as
 * the resource manages the bucket. A sync killed between those calls leaves an untagged bucket that the record names:
 * the next sync takes it back under the claim. An untagged bucket without that record is adopted only under a claim
 * this resource took less than TAGS_SETTLE_SECONDS ago (a stale read of its tags): later it is someone's bucket made
 * again under the name, or its tags were removed, and it is refused. `makeUser` finds or makes that user.
 */
async function ensureBucket(run: SyncRun, makeUser: () => Promise<IamUser>): Promise<string> {
  const { aws, spec, owner, previous } = run;
  const bucket = spec.bucketName;
  const hint = spec.region ?? (previous.bucketName === bucket ? previous.region : undefined);
  const found = await aws.findBucket(bucket, hint).catch((err: unknown) => refuseOfAnotherAccount(run, err));
  const intent = run.intent;
  // A record of intent from before the buckets' records: recorded as one, before it is removed.
  if (intent !== undefined && !run.records.has(intent)) await writeRecord(run, intent, 'made');
  await settleRecords(run);
  const desiredTags = new Map<string, string>(run.specTags);
  for (const [k, v] of ownerTags(owner)) desiredTags.set(k, v);
  let region: string;
  let tags: Map<string, string>;
  if (!found) {
    await refuseBeyondLeftBehind(run);
    region = spec.region ?? aws.region;
    // Refused its place or its name: a user holding nothing is not kept for it (dropIdleUser).
    const { entry } = await newBucket(run, makeUser, region).catch(async (err: unknown) => {
      // The refusal stands whatever the deletion answers: a user left is deleted by the next sync refused so.
      await dropIdleUser(run, err).catch((cause: unknown) =>
        run.log.warn({ user: run.user, err: describe(cause) }, 'S3: deleting the IAM user of a refused bucket failed'),
      );
      throw err;
    });
    await aws.tagBucket(bucket, region, ownerTags(owner));
    // Its entry written again if it went meanwhile (pruned while this CreateBucket was under way): never uncounted.
    await keepEntry(entry);
    tags = ownerTags(owner);
    toldCreated(run, bucket, region);
  } else {
    if (!owns(owner, found.tags, run.recorded.has(bucket))) await takeBack(run, bucket, found.tags, makeUser);
    if (spec.region && spec.region !== found.region) {
      throw new AwsError(
        'RegionMismatch',
        `bucket ${bucket} is in ${found.region}, spec.region says ${spec.region}; a bucket cannot move`,
        'GetBucketLocation',
      );
    }
    region = found.region;
    tags = found.tags;
  }
  run.created.add(bucket);
  run.retained.delete(bucket);
  await aws.applyBucketSettings(
    bucket,
    region,
    {
      versioning: spec.versioning,
      encryption: spec.encryption,
      publicAccessBlock: spec.publicAccessBlock,
      tags: desiredTags,
    },
    tags,
  );
  // The bucket carries its owner tags: its record stays (written now for a bucket made before records), the record
  // of intent has done its work.
  if (run.records.get(bucket) !== 'made') {
    await makeUser();
    await writeRecord(run, bucket, 'made');
  }
  // Retentions the status lists now: their records have done their work (one call with the record of intent's).
  const listed = [...run.records].filter(
    ([b, state]) => state === 'retained' && b !== bucket && previous.retainedBuckets.includes(b),
  );
  const done = [
    ...(intent !== undefined || !found ? [BUCKET_INTENT_TAG] : []),
    ...listed.map(([b]) => bucketRecordTag(b)),
  ];
  if (done.length) await aws.untagUser(run.user, done);
  for (const [b] of listed) run.records.delete(b);
  run.intent = undefined;
  return region;
}

/**
 * A new bucket: its place in the namespace (placeNewBucket: the count, the user, the entry), its record on the user,
 * CreateBucket, then its claim. Its entry, to keep.
 */
async function newBucket(
  run: SyncRun,
  makeUser: () => Promise<IamUser>,
  region: string,
): Promise<{ entry: Parameters<typeof keepEntry>[0] }> {
  const { aws, owner } = run;
  const bucket = run.spec.bucketName;
  const { iamUser, entry } = await placeNewBucket(run, makeUser);
  if (run.intent !== bucket || run.records.get(bucket) !== 'made') await writeRecord(run, bucket, 'made', true);
  await aws.createBucket(bucket, region).catch(async (err: unknown) => {
    // AWS said no: nothing was created, and the record must not later take back a bucket someone else makes.
    // Any other outcome (no answer, a 5xx, a throttle: the bucket may exist) keeps the record for the next sync,
    // which takes the bucket back under the claim.
    if (createRefused(err)) {
      await dropRecord(run, bucket);
      // Another account's bucket (S3 says so): a definite answer; no bucket of that name is in this account.
      run.definite = err instanceof AwsError && err.code === 'BucketAlreadyExists';
      if (run.definite) await releaseEntry(aws, iamUser.arn, owner.namespace, bucket);
    }
    throw err;
  });
  await claimOrRefuse(run, iamUser.arn, undefined);
  return { entry };
}

/**
 * The spec's bucket is in another AWS account (api.ts findBucket): refused before anything is made for it (no user,
 * no claim, no ledger entry), a definite answer (a grant this resource's policy gives it is revoked: lostBucket), its
 * record and its place in the namespace's ledger gone (a bucket this resource made, deleted since, whose name another
 * account took). The tenant reads neither account. Any other failure passes through.
 */
async function refuseOfAnotherAccount(run: SyncRun, err: unknown): Promise<never> {
  if (!ofAnotherAccount(err)) throw err;
  const bucket = run.spec.bucketName;
  run.definite = true;
  if (run.iamUser) {
    await dropRecord(run, bucket);
    await releaseEntry(run.aws, run.iamUser.arn, run.owner.namespace, bucket);
  }
  run.log.info({ bucket }, 'S3: refused a bucket of another AWS account');
  throw new AwsError(
    'BucketAlreadyExists',
    `bucket ${bucket} is owned by another AWS account, not the operator's (S3 refuses it to calls that expect the operator's account as its owner): it is never taken as this resource's, and nothing was made for it`,
    (err as AwsError).operation,
  );
}

/**
 * Before the spec's bucket is made: the namespace's bound counted (ledger.ts countBuckets), before anything is made
 * for the bucket: a resource it refuses makes no IAM user (the account's users are a quota every tenant shares), no
 * claim and no entry. A bucket another resource has claimed is not even asked for (the claim is taken once it exists),
 * and, when the account is known without the user (the user's, or the namespace's entries'), no user is made for it.
 * Then this resource's user, and the bucket's place in the namespace's ledger (refused when the namespace is full).
 */
async function placeNewBucket(
  run: SyncRun,
  makeUser: () => Promise<IamUser>,
): Promise<{ iamUser: IamUser; entry: Parameters<typeof keepEntry>[0] }> {
  const { aws, owner } = run;
  const bucket = run.spec.bucketName;
  const limit = run.bucketsPerNamespace;
  const count = { aws, namespace: owner.namespace, bucket, limit, now: run.now };
  const { counted, accountArn } = await countBuckets({ ...count, accountArn: run.iamUser?.arn });
  const refuseClaimed = async (arn: string) => {
    const claim = await aws.getPolicy(claimArnOf(arn, bucket));
    if (claim && !owns(owner, claim.tags)) await claimOrRefuse(run, arn, undefined);
  };
  if (accountArn) await refuseClaimed(accountArn);
  const iamUser = await makeUser();
  if (!accountArn) await refuseClaimed(iamUser.arn);
  const entry = { aws, namespace: owner.namespace, bucket, accountArn: iamUser.arn, tags: ownerTags(owner) };
  await reserveBucket({ ...entry, limit, now: run.now, counted });
  return { iamUser, entry };
}

/**
 * The spec's bucket exists without this resource's tags. Untagged and recorded on the user (a killed sync made it,
 * or its tags read stale): taken back under its claim. Untagged and not recorded: taken back only when this resource
 * already holds its claim (a bucket made before the records; only a sync that made the bucket takes its claim). Else
 * refused: `definite` when its tags name another owner, or its claim does; an untagged bucket the status records but
 * no claim confirms is not refused as another's (`OwnershipUnconfirmed`), nor taken.
 */
async function takeBack(
  run: SyncRun,
  bucket: string,
  tags: Map<string, string>,
  makeUser: () => Promise<IamUser>,
): Promise<void> {
  const refused = () => new AwsError('BucketAlreadyExists', notOurs(run, `bucket ${bucket}`, tags), 'CreateBucket');
  if (tags.size > 0) {
    run.definite = true;
    await dropRecord(run, bucket);
    // Another namespace's bucket is not counted as this namespace's.
    if (namesAnotherNamespace(tags, run.owner.namespace))
      await releaseEntry(run.aws, run.iamUser?.arn, run.owner.namespace, bucket);
    throw refused();
  }
  // A sync killed between CreateBucket and PutBucketTagging: the record of intent names the bucket.
  if (run.intent === bucket) return claimOrRefuse(run, (await makeUser()).arn, tags);
  if (!run.iamUser) throw refused();
  const claim = await run.aws.getPolicy(claimArnOf(run.iamUser.arn, bucket));
  // This resource claimed (and tagged) it a moment ago: a stale read of its tags, put back by applyBucketSettings.
  if (freshClaim(run.owner, claim, run.now)) return;
  if (claim && owns(run.owner, claim.tags)) {
    // Claimed long ago, untagged now: not the bucket this resource tagged. A definite answer: never taken back.
    run.definite = true;
    await dropRecord(run, bucket);
    throw new AwsError(
      'BucketAlreadyExists',
      `bucket ${bucket} no longer carries the owner tags this resource put on it: it was deleted and made again by someone else, or its tags were removed; it is not taken back. If it is this resource's bucket, tag it with ${OWNER_UID_TAG}=${run.owner.uid}`,
      'GetBucketTagging',
    );
  }
  if (claim) return claimOrRefuse(run, run.iamUser.arn, tags);
  if (!run.recorded.has(bucket) && !run.records.has(bucket)) throw refused();
  throw new AwsError(
    'OwnershipUnconfirmed',
    `bucket ${bucket}, recorded in this resource's status, reads without its owner tags and no claim of it confirms it is this resource's: it is neither taken back nor given up; the next sync reads its tags again`,
    'GetBucketTagging',
  );
}

/**
 * The most buckets one S3 resource may have: its current one and those it left behind, renamed away from and
 * retained (deletionPolicy Retain) or waiting to be deleted (Delete, not empty). Every rename to a new name creates
 * a bucket in the account, whose bucket quota every tenant shares (10,000 by default, 100 on older accounts), and a
 * ResourceQuota on s3s counts objects, not renames. Ten is more history than a bucket renamed by design needs, keeps
 * the status short, and makes a namespace's s3s quota a bound on its buckets (docs/s3.md, "Limits").
 */
export const MAX_BUCKETS = 10;

/** The buckets this resource left behind (recorded as created or retained, other than the spec's). */
function leftBehind(run: SyncRun): string[] {
  return [...new Set([...run.created, ...run.retained])].filter((b) => b !== run.spec.bucketName).sort();
}

/**
 * Before a new bucket is created: refused (Ready=False TooManyBuckets, nothing made) when the resource already has
 * MAX_BUCKETS (the new one would be one more). Retained buckets someone has deleted since are dropped from the list
 * first (looked up only here, at the limit: fewer than MAX_BUCKETS reads).
 */
async function refuseBeyondLeftBehind(run: SyncRun): Promise<void> {
  if (leftBehind(run).length < MAX_BUCKETS) return;
  for (const old of [...run.retained].sort()) {
    if (!(await findOwnBucket(run.aws, old))) run.retained.delete(old);
  }
  const left = leftBehind(run);
  if (left.length < MAX_BUCKETS) return;
  throw new PermanentError(
    'TooManyBuckets',
    `spec.bucketName ${run.spec.bucketName} would be a new bucket, and this resource already has ${left.length} (${left.join(', ')}), the most one S3 resource may have (${MAX_BUCKETS}); nothing was created. Delete the retained buckets you no longer need (they leave status.retainedBuckets at the next sync), set spec.bucketName back to one of them, or use a new S3 resource`,
  );
}

/**
 * The claim of the spec's bucket, taken or found ours; else the bucket is refused (another resource holds it: its
 * sync created the bucket, or this resource's CreateBucket only answered 200 for a bucket it had made) and the
 * record of intent goes, so that this resource never takes the bucket back.
 */
async function claimOrRefuse(run: SyncRun, userArn: string, found: unknown): Promise<void> {
  const bucket = run.spec.bucketName;
  const holder = await claimHolder(run.aws, run.owner, userArn, bucket);
  if (!holder) return;
  // The claim exists and is not this resource's: a definite answer.
  run.definite = true;
  await dropRecord(run, bucket);
  // Another namespace's bucket is not counted as this namespace's.
  if (!(holder.get(OWNER_TAG) ?? '').startsWith(`${run.owner.namespace}/`))
    await releaseEntry(run.aws, userArn, run.owner.namespace, bucket);
  run.log.info({ bucket, found: found !== undefined }, 'S3: the bucket is claimed by another resource');
  // The claim of an earlier resource of this name is told as such (with how to hand it over); any other is
  // "another S3 resource", unnamed.
  const message = holder.has(OWNER_UID_TAG)
    ? notOurs(run, `bucket ${bucket}`, holder)
    : `bucket ${bucket} belongs to another S3 resource`;
  const handOver = holder.get(OWNER_TAG) === `${run.owner.namespace}/${run.owner.name}`;
  throw new AwsError(
    'BucketAlreadyExists',
    handOver ? `${message} (on its claim, IAM policy ${claimName(bucket)})` : message,
    'CreateBucket',
  );
}

/**
 * A bucket refused as another's (BucketAlreadyExists): a resource that lost it must keep no way in. When this
 * resource's own policy grants that bucket (it was granted before the other resource won it: two syncs of an
 * older metaops both tagged it), the policy is detached from the user and the user's access keys are deleted,
 * and the answer drops the Secret that held them. Any other failure passes through unchanged.
 */
async function lostBucket(run: SyncRun, err: unknown): Promise<never> {
  // Only on a definite answer: one stale read of the bucket's tags, or a claim IAM does not show yet, revokes nothing.
  if (reasonOfFailure(err) !== 'BucketAlreadyExists' || !run.iamUser || !run.definite) throw err;
  const failure = err as TemporaryError;
  let revoked: boolean;
  try {
    revoked = await revokeGrant(run, run.iamUser.arn);
  } catch (cause) {
    // The refusal stands; the revocation is tried again at the next sync.
    throw awsFailure(cause, `${failure.message}; revoking this resource's grant to it: ${describe(cause)}`, {
      conditions: ['Ready', 'Synced'],
      ...(failure.options.status ? { status: failure.options.status } : {}),
    });
  }
  if (!revoked) throw err;
  throw new TemporaryError(
    failure.reason,
    `${failure.message}; this resource's grant to it and its access keys were revoked`,
    { ...failure.options, children: [], retryAfterSeconds: failure.retryAfterSeconds },
  );
}

/** When this resource's own policy grants the spec's bucket: detached, the user's keys deleted. Whether it did. */
async function revokeGrant(run: SyncRun, userArn: string): Promise<boolean> {
  const { aws, owner, user, spec } = run;
  const arn = arnParts(userArn);
  if (!arn) return false;
  const policyArn = `arn:${arn.partition}:iam::${arn.account}:policy/${policyName(owner.namespace, owner.name, owner.uid)}`;
  const policy = await aws.getPolicy(policyArn);
  if (!policy || !owns(owner, policy.tags)) return false;
  const document = await aws.policyDocument(policyArn, policy.defaultVersionId);
  if (!document.includes(`:s3:::${spec.bucketName}"`)) return false;
  if ((await aws.attachedPolicies(user)).includes(policyArn)) await aws.detachPolicy(user, policyArn);
  for (const key of await aws.listAccessKeys(user)) await aws.deleteAccessKey(user, key.id);
  run.log.warn({ bucket: spec.bucketName, user }, "S3: the bucket is another resource's: grant and keys revoked");
  return true;
}

function reasonOfFailure(err: unknown): string | undefined {
  return err instanceof TemporaryError || err instanceof PermanentError ? err.reason : undefined;
}

/**
 * Buckets a rename left behind: Retain lists them (their records marked retained first, so that a sync killed before
 * its status is written still lists them); Delete deletes them only when empty (re-checking their tags), and one that
 * is not empty is kept as it is, owned, tagged and recorded, with a condition, until it is emptied by someone or the
 * spec names it again (a rename reverted takes it back with its objects); one that reads untagged under this
 * resource's claim is tagged again and waits (never given up on one read). A rename never empties a bucket:
 * forceDelete is the resource's deletion's (finalize), not an edit's, so that a typo in spec.bucketName never loses
 * the bucket in use. The buckets still waiting.
 */
async function retireOldBuckets(run: SyncRun): Promise<{ waiting: string[]; unconfirmed: string[] }> {
  const { aws, spec, owner, created, retained } = run;
  const plan = planOldBuckets(created, spec.bucketName, spec.deletionPolicy);
  for (const old of plan.retain) {
    if (run.records.get(old) === 'made') await writeRecord(run, old, 'retained');
    created.delete(old);
    retained.add(old);
    run.note(bucketRetained(old));
    // Retained: its owner tags guard it from now on, and its name is not held once someone deletes it.
    await releaseClaim(aws, owner, run.iamUser?.arn, old);
  }
  const waiting: string[] = [];
  const unconfirmed: string[] = [];
  for (const old of plan.delete) {
    // Emptied or deleted only under this resource's own UID tag: a bucket tagged by name alone (an older metaops)
    // may be claimed by a sync, never destroyed on the strength of a status that anyone with s3s/status can write.
    let seen: Map<string, string> | undefined;
    // Never emptied here (force false): a bucket with objects is kept until it is empty or named again.
    const result = await aws.deleteBucket(old, false, (t) => owns(owner, (seen = t)));
    if (
      result === 'notOwned' &&
      seen?.size === 0 &&
      (await retagUnderClaim(aws, owner, run.iamUser?.arn, old, run.now))
    ) {
      unconfirmed.push(old);
      continue;
    }
    if (result === 'notEmpty') waiting.push(old);
    else created.delete(old);
    if (result === 'notOwned') {
      retained.add(old);
      await dropRecord(run, old);
      // Another namespace's bucket of that name: its place in this namespace's ledger is free.
      if (namesAnotherNamespace(seen, owner.namespace)) await releaseEntry(aws, run.iamUser?.arn, owner.namespace, old);
    } else if (result !== 'notEmpty') {
      await releaseClaim(aws, owner, run.iamUser?.arn, old);
      // Gone: its place in the namespace's ledger is free.
      await releaseEntry(aws, run.iamUser?.arn, owner.namespace, old);
      await dropRecord(run, old);
    }
  }
  const condition = oldBucketsCondition(waiting, spec.bucketName, spec.forceDelete);
  if (condition) run.notes.push(condition);
  return { waiting, unconfirmed };
}

/** The IAM user: ours by its tags, or created now. Its ARN's partition and account. */
async function ensureUser(run: SyncRun): Promise<{ partition: string; account: string }> {
  const iamUser = await userOf(run);
  const arn = arnParts(iamUser.arn);
  if (!arn) throw new AwsError('InvalidResponse', 'the IAM user has no usable ARN', 'GetUser');
  return arn;
}

/** The policy allowing the bucket's operations (ours by its tags, its document as specified), attached. Its ARN. */
async function ensurePolicy(
  run: SyncRun,
  arn: { partition: string; account: string },
  region: string,
): Promise<string> {
  const { aws, spec, owner, user } = run;
  const policy = policyName(owner.namespace, owner.name, owner.uid);
  const policyArn = `arn:${arn.partition}:iam::${arn.account}:policy/${policy}`;
  const key = grantedKmsKey(spec.encryption);
  const refusal = key ? kmsKeyRefusal(key, { ...arn, region }) : undefined;
  if (refusal) {
    // A key granted before (the spec named another) is not granted past the refusal.
    await withdrawKmsStatements(aws, owner, policyArn);
    throw new PermanentError('InvalidSpec', `spec.encryption.kmsKeyId: ${refusal}`);
  }
  const document = bucketPolicy(spec.bucketName, key);
  const existingPolicy = await aws.getPolicy(policyArn);
  if (!existingPolicy) await aws.createPolicy(policy, document, ownerTags(owner));
  else if (!owns(owner, existingPolicy.tags))
    throw new AwsError('IAMNameTaken', notOurs(run, `IAM policy ${policy}`, existingPolicy.tags), 'CreatePolicy');
  else if (!sameJson(await aws.policyDocument(policyArn, existingPolicy.defaultVersionId), document))
    await aws.setPolicyDocument(policyArn, document);
  if (!(await aws.attachedPolicies(user)).includes(policyArn)) await aws.attachPolicy(user, policyArn);
  return policyArn;
}

/**
 * The access key, as planKeysOf says: the one in the observed Secret while IAM still has it (the others deleted
 * once past the grace period); after a rename of secretName, the one the old Secret holds, published under the new
 * name (its readers keep working). Otherwise a new one, unless IAM has a key younger than the grace period: that
 * one is in a Secret Metacontroller's cache does not show yet (a sync that races the Secret's creation must not
 * rotate the key it just made), and is waited for. Room is made first: IAM allows two keys per user. A key that an
 * old Secret of this resource still holds is never deleted: the sync after that Secret is gone deletes it.
 */
async function ensureKey(
  run: SyncRun,
): Promise<{ key: AccessKey & { created: Date }; recheckIn: number | undefined } | { pending: string; wait: number }> {
  const { aws, user } = run;
  const listed = await aws.listAccessKeys(user);
  const { plan, kept } = planKeysOf(listed, keptKey(run.observedSecret), run.oldSecrets.map(keptKey), run.now);
  if ('pending' in plan) return { pending: plan.pending.id, wait: plan.wait };
  if ('waitForSecrets' in plan) {
    const holders = run.oldSecrets.map((s) => s.metadata.name).join(', ');
    throw new TemporaryError(
      'SecretPending',
      `IAM user ${user} holds two keys (${plan.waitForSecrets.join(', ')}) that Secret ${holders} still holds: no key is made or deleted until it is gone`,
      { retryAfterSeconds: RETRY_SECONDS.failure },
    );
  }
  if ('keep' in plan) {
    for (const id of plan.deleteOld) await aws.deleteAccessKey(user, id);
    // The creation date the Secret carries (the same from one sync to the next), else IAM's.
    const created = kept.created ?? listed.find((k) => k.id === plan.keep.id)?.created ?? run.now;
    return { key: { ...plan.keep, created }, recheckIn: plan.recheckIn };
  }
  for (const id of plan.deleteBefore) await aws.deleteAccessKey(user, id);
  const key = await aws.createAccessKey(user);
  for (const id of plan.deleteAfter) await aws.deleteAccessKey(user, id);
  run.note(keyCreated(plan.rotated, key.id, user, run.secretName, plan.deferred));
  return { key: { ...key, created: run.now }, recheckIn: undefined };
}

/**
 * spec.tags as sent, every own key included: a key such as `__proto__` is an ordinary tag key for S3, and reading
 * the raw object (into a Map, never into `{}`) keeps it. The spec was checked against the schema first (every
 * value of every own key a string, `__proto__` included), so this only reads.
 */
function tagsOf(spec: ParentObject['spec']): Map<string, string> {
  // Stryker disable next-line OptionalChaining: the sync runs only with a valid spec, so parent.spec is there
  const tags = (spec as { tags?: Record<string, string> } | undefined)?.tags ?? {};
  return new Map(Object.entries(tags));
}

/**
 * The IAM user named in status by a metaops from before the UID in names (`metaops-<namespace>-<name>`):
 * deleted, keys and all, when its owner tag names this resource and no other UID. A status naming someone
 * else's user changes nothing.
 */
async function retireLegacyUser(aws: AwsApi, owner: Owner, previous: Previous, user: string): Promise<void> {
  const legacy = previous.iamUser;
  if (!legacy || legacy === user) return;
  const found = await aws.getUser(legacy);
  if (!found || found.tags.get(OWNER_TAG) !== `${owner.namespace}/${owner.name}`) return;
  if (!owns(owner, found.tags, true)) return;
  await aws.deleteUser(legacy);
}

/**
 * Finalize: the access keys are deleted first (the credentials stop working), then the buckets this resource created
 * go per deletionPolicy (a non-empty one only with forceDelete; each re-checked by its tags right before), then the
 * policy and the user, each only if its tags say this resource made it. `finalized` is answered only after checking
 * that they are gone.
 *
 * Crash-consistent: the user, whose tags hold the record of a bucket being created (BUCKET_INTENT_TAG), goes last
 * and only once no bucket waits, so a bucket a killed sync created but could not tag is found, tagged and deleted
 * (or retained) like the others; the policy goes before the user, whose ARN names the policy's account.
 */
/** What one finalize works on: AWS, whose resource it is, and the buckets as it records them. */
interface Teardown {
  aws: AwsApi;
  owner: Owner;
  user: string;
  deletionPolicy: 'Retain' | 'Delete';
  forceDelete: boolean;
  created: Set<string>;
  retained: Set<string>;
  notOwned: string[];
  /** Buckets left alone that read without owner tags, whose claim this resource does not hold. */
  unclaimed: string[];
  /** The resource's IAM user's ARN, once found (the claims' account). */
  userArn?: string;
  /** The policy's ARN as revokeUser found it (the account, when the user is gone). */
  policyArn?: string | undefined;
  /** The buckets the user records (and its record of intent names): their claims may be held. */
  records: Set<string>;
  /** Buckets read untagged under this resource's claim: tagged again, deleted at the next call. */
  unconfirmed: string[];
  now: Date;
}

/**
 * The user's part, first: the policy's ARN (from the user's, which names the account), a bucket the record of intent
 * names (a sync killed before tagging it: tagged now, and recorded as created), and the access keys, deleted so that
 * the credentials stop working. Whether the user is this resource's.
 */
async function revokeUser(
  down: Teardown,
  policyArn: string | undefined,
): Promise<{ ours: boolean; policyArn?: string }> {
  const { aws, owner, user, created } = down;
  const iamUser = await aws.getUser(user);
  // A status policyArn is usable only with its account (a status from before the account was hidden as <account>).
  const recorded = policyArn !== undefined && arnParts(policyArn) ? policyArn : undefined;
  if (!iamUser || !owns(owner, iamUser.tags)) return recorded ? { ours: false, policyArn: recorded } : { ours: false };
  const arn = arnParts(iamUser.arn);
  const policy = policyName(owner.namespace, owner.name, owner.uid);
  const ownArn = arn ? `arn:${arn.partition}:iam::${arn.account}:policy/${policy}` : recorded;
  down.userArn = iamUser.arn;
  const records = bucketRecords(iamUser.tags);
  const intent = iamUser.tags.get(BUCKET_INTENT_TAG);
  if (intent !== undefined && !records.has(intent)) records.set(intent, 'made');
  for (const [bucket, state] of [...records].sort(([a], [b]) => (a < b ? -1 : 1))) {
    down.records.add(bucket);
    if (created.has(bucket)) continue;
    // A retention the status never listed (a sync killed before its status was written, a status lost).
    if (state === 'retained') down.retained.add(bucket);
    else await recordIntent(down, bucket, bucket === intent);
  }
  for (const key of await aws.listAccessKeys(user)) await aws.deleteAccessKey(user, key.id);
  return ownArn ? { ours: true, policyArn: ownArn } : { ours: true };
}

/**
 * A bucket the user records: untagged, tagged now when the sync's rule takes it back (the record of intent names it,
 * `named`, under this resource's claim; or a claim of a moment ago); ours, recorded; else none of ours.
 */
async function recordIntent(down: Teardown, intent: string, named: boolean): Promise<void> {
  const { aws, owner } = down;
  const pending = await findOwnBucket(aws, intent);
  if (!pending) return;
  if (pending.tags.size === 0) {
    // Another resource's bucket, or someone's bucket made again under this name, is not deleted.
    if (!(await mayTakeBack(aws, owner, down.userArn!, intent, { intent: named, now: down.now }))) return;
    await aws.tagBucket(intent, pending.region, ownerTags(owner));
  } else if (!owns(owner, pending.tags)) return;
  down.created.add(intent);
  down.retained.delete(intent);
}

/** The buckets this resource created, per deletionPolicy: those still waiting (not empty). */
async function removeBuckets(down: Teardown): Promise<string[]> {
  const { aws, owner, created, retained } = down;
  const waiting: string[] = [];
  for (const bucket of [...created].sort()) {
    if (down.deletionPolicy === 'Retain') {
      retained.add(bucket);
      created.delete(bucket);
      continue;
    }
    // Only under this resource's own UID tag (see the rename above); read untagged under this resource's claim (a
    // stale read, or tags removed by hand): tagged again and deleted at the next call, never left behind on one read.
    let seen: Map<string, string> | undefined;
    const result = await aws.deleteBucket(bucket, down.forceDelete, (t) => owns(owner, (seen = t)));
    if (
      result === 'notOwned' &&
      seen?.size === 0 &&
      (await retagUnderClaim(aws, owner, down.userArn, bucket, down.now))
    ) {
      down.unconfirmed.push(bucket);
      continue;
    }
    if (result === 'notEmpty') waiting.push(bucket);
    else created.delete(bucket);
    if (result === 'notOwned') {
      (seen?.size ? down.notOwned : down.unclaimed).push(bucket);
      // Another namespace's bucket of that name: its place in this namespace's ledger is free.
      if (namesAnotherNamespace(seen, owner.namespace))
        await releaseEntry(aws, down.userArn ?? down.policyArn, owner.namespace, bucket);
    }
    // Gone: its place in the namespace's ledger is free (the account's: the user's ARN, else the status policy's).
    else if (result !== 'notEmpty') await releaseEntry(aws, down.userArn ?? down.policyArn, owner.namespace, bucket);
  }
  return waiting;
}

/**
 * The claims of every bucket this resource held (recorded, retained, its spec's, its record of intent's), before the
 * user: deleted or retained, each bucket is guarded by its own tags from now on, or gone. Their ARN is in the user's
 * account, or the policy's once the user is gone. Only a claim whose tags name this resource is deleted.
 */
async function releaseClaims(
  down: Teardown,
  recorded: string[],
  spec: Spec | undefined,
  policyArn: string | undefined,
): Promise<void> {
  const held = new Set([...recorded, ...down.retained, ...(spec ? [spec.bucketName] : []), ...down.records]);
  const account = [down.userArn, policyArn].find((arn) => arn !== undefined && arnParts(arn));
  for (const bucket of [...held].sort()) await releaseClaim(down.aws, down.owner, account, bucket);
}

/** The policy (detached from the user first), then the user, each only when its tags name this resource. */
async function removeIam(down: Teardown, userOurs: boolean, policyArn: string | undefined): Promise<void> {
  const { aws, owner, user } = down;
  const policy = policyArn ? await aws.getPolicy(policyArn) : undefined;
  if (policyArn && policy && owns(owner, policy.tags)) {
    if (userOurs && (await aws.attachedPolicies(user)).includes(policyArn)) await aws.detachPolicy(user, policyArn);
    await aws.deletePolicy(policyArn);
  }
  if (userOurs) await aws.deleteUser(user);
}

/** The longest a finalize waiting on its tenant (a bucket it alone can empty) waits before it looks again. */
export const TENANT_WAIT_MAX_SECONDS = 300;

/**
 * How long a finalize waiting on its tenant waits before it looks again, or a sync whose old buckets (a rename's,
 * not empty) wait on it (`type` OldBucketDeleted): as long as it has waited so far (since the stored `type`=False
 * condition's lastTransitionTime, the wait's start), at least RETRY_SECONDS.soon and at most
 * TENANT_WAIT_MAX_SECONDS: 10 s, 10 s, 20 s, 40 s... then every 5 minutes. The stored time is read by type; one that
 * does not parse, or lies ahead, starts the wait again (10 s).
 */
export function tenantWaitSeconds(parent: ParentObject, now: Date, type = 'Finalized'): number {
  const before = previousConditions(parent.status).find((c) => c.type === type);
  const since = before && before.status === 'False' ? Date.parse(textOf(before.lastTransitionTime)) : NaN;
  const waited = Number.isFinite(since) ? Math.floor((now.getTime() - since) / 1000) : 0;
  return Math.min(TENANT_WAIT_MAX_SECONDS, Math.max(RETRY_SECONDS.soon, waited));
}

/** The Finalized condition: waiting for a bucket to empty, for AWS, or done (what was deleted, retained, left alone). */
function finalizedCondition(down: Teardown, waiting: string[], done: boolean): ConditionInput {
  const { deletionPolicy, forceDelete, retained, notOwned, unclaimed, unconfirmed } = down;
  const kept = [...retained].sort();
  return waiting.length
    ? {
        type: 'Finalized',
        status: false,
        reason: 'BucketNotEmpty',
        message: forceDelete
          ? `emptying bucket ${waiting.join(', ')}`
          : `bucket ${waiting.join(', ')} is not empty and forceDelete is false: empty it, set forceDelete: true, or set deletionPolicy: Retain ` +
            `(looked at again less and less often, at least every ${TENANT_WAIT_MAX_SECONDS / 60} minutes: an emptied bucket is deleted within ${TENANT_WAIT_MAX_SECONDS / 60} minutes)`,
      }
    : done
      ? {
          type: 'Finalized',
          status: true,
          reason: deletionPolicy === 'Delete' && kept.length === 0 ? 'Deleted' : 'BucketRetained',
          message:
            `access keys, policy and user deleted` +
            (kept.length
              ? `; bucket ${kept.join(', ')} retained`
              : deletionPolicy === 'Delete'
                ? ' and the buckets this resource created'
                : '') +
            (notOwned.length ? `; ${notOwned.join(', ')} left alone: its tags name another owner` : '') +
            (unclaimed.length
              ? `; ${unclaimed.join(', ')} left alone: it carries no owner tags and this resource holds no claim of it`
              : ''),
        }
      : {
          type: 'Finalized',
          status: false,
          reason: 'Deleting',
          message: unconfirmed.length
            ? `bucket ${unconfirmed.join(', ')} read without its owner tags: tagged again under this resource's claim, deleted at the next call`
            : 'waiting for AWS to confirm the deletions',
        };
}

/** Whether the resource's user and policy are gone (absent, or no longer tagged as this resource's). */
async function iamGone(aws: AwsApi, owner: Owner, user: string, policyArn: string | undefined): Promise<boolean> {
  const userLeft = await aws.getUser(user);
  if (userLeft && owns(owner, userLeft.tags)) return false;
  const policyLeft = policyArn ? await aws.getPolicy(policyArn) : undefined;
  return !policyLeft || !owns(owner, policyLeft.tags);
}

export async function finalize(hook: FinalizeHook<Spec, S3Clients, S3Settings>): Promise<CompositeSyncResponse> {
  return inShare(hook, 'finalize', (aws) => finalizeIn(hook, aws));
}

async function finalizeIn(
  hook: FinalizeHook<Spec, S3Clients, S3Settings>,
  shared: AwsApi,
): Promise<CompositeSyncResponse> {
  const { parent, now } = hook;
  const aws = shared.withDeadline(HOOK_BUDGET_MS, hook.signal);
  const owner = ownerOf(parent);
  const previous = previousOf(parent);
  // A spec that no longer validates: the safe choice, Retain.
  const spec = hook.spec;
  const deletionPolicy = spec?.deletionPolicy ?? 'Retain';
  const forceDelete = spec?.forceDelete === true;
  const user = userName(owner.namespace, owner.name, owner.uid);
  const down: Teardown = {
    aws,
    owner,
    user,
    deletionPolicy,
    forceDelete,
    created: recordedBuckets(previous),
    retained: new Set(previous.retainedBuckets),
    notOwned: [],
    unclaimed: [],
    records: new Set(),
    unconfirmed: [],
    now,
  };
  const { created, retained, unconfirmed } = down;
  try {
    const revoked = await revokeUser(down, previous.policyArn);
    const policyArn = revoked.policyArn;
    down.policyArn = policyArn;
    const waiting = await removeBuckets(down);
    // The user, which holds the records of the buckets, and its policy go once no bucket waits.
    if (waiting.length === 0 && unconfirmed.length === 0) {
      // The spec's bucket, never made (a sync refused, or killed after its place was taken): its place is free.
      if (spec && !created.has(spec.bucketName) && !retained.has(spec.bucketName))
        await releaseEntryIfAbsent(aws, down.userArn ?? policyArn, owner.namespace, spec.bucketName);
      await releaseClaims(down, [...recordedBuckets(previous)], hook.spec, policyArn);
      await removeIam(down, revoked.ours, policyArn);
      await retireLegacyUser(aws, owner, previous, user);
    }
    // While a bucket waits the user and its policy stay: done is false without reading them again.
    const done = waiting.length === 0 && unconfirmed.length === 0 && (await iamGone(aws, owner, user, policyArn));
    const finalized = finalizedCondition(down, waiting, done);
    const status: Record<string, unknown> = {
      ...currentStatus(parent),
      ...bucketLists(created, retained),
      conditions: conditionsFor(parent, [finalized], now),
    };
    // Only the tenant ends a wait on a bucket it must empty (forceDelete false): looked at again less and less often.
    const onTenant = waiting.length > 0 && !forceDelete && unconfirmed.length === 0;
    return done
      ? { status, children: [], finalized: true }
      : {
          status,
          children: [],
          finalized: false,
          resyncAfterSeconds: onTenant ? tenantWaitSeconds(parent, now) : RETRY_SECONDS.soon,
        };
  } catch (err) {
    throw awsFailure(err, describe(err), { conditions: ['Finalized'] });
  }
}
