// The AWS SDK v3 implementation of the S3 controller's AwsApi (api.ts). Credentials come from the SDK's
// standard chain (environment, web identity, ...); AWS_ENDPOINT_URL points it at MinIO, LocalStack or moto.
// Every call has a deadline well below the webhook timeout, every answer a size cap, and every call about a
// bucket goes to the bucket's own region (the SDK does not follow S3's 301 PermanentRedirect) and expects the bucket
// in the operator's own account (ExpectedBucketOwner: the account STS names for the operator's credentials, asked once).
// Loaded on first use (sync.ts s3Clients), never at startup.
import { Transform, type Readable } from 'node:stream';
import {
  AttachUserPolicyCommand,
  CreateAccessKeyCommand,
  CreatePolicyCommand,
  CreatePolicyVersionCommand,
  CreateUserCommand,
  DeleteAccessKeyCommand,
  DeletePolicyCommand,
  DeletePolicyVersionCommand,
  DeleteUserCommand,
  DetachUserPolicyCommand,
  GetPolicyCommand,
  GetPolicyVersionCommand,
  GetUserCommand,
  IAMClient,
  ListAccessKeysCommand,
  ListAttachedUserPoliciesCommand,
  ListPoliciesCommand,
  ListPolicyVersionsCommand,
  TagUserCommand,
  UntagUserCommand,
  type PolicyVersion,
} from '@aws-sdk/client-iam';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  GetBucketEncryptionCommand,
  GetBucketLocationCommand,
  GetBucketTaggingCommand,
  GetBucketVersioningCommand,
  GetPublicAccessBlockCommand,
  ListObjectVersionsCommand,
  PutBucketEncryptionCommand,
  PutBucketTaggingCommand,
  PutBucketVersioningCommand,
  PutPublicAccessBlockCommand,
  S3Client,
  type BucketLocationConstraint,
  type PublicAccessBlockConfiguration,
  type ServerSideEncryptionByDefault,
} from '@aws-sdk/client-s3';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import {
  AwsError,
  BUCKET_OF_ANOTHER_ACCOUNT,
  findOwnBucket,
  foreignRegionProblem,
  normaliseRegion,
  tagList,
  tagMap,
  type AccessKey,
  type AccessKeyInfo,
  type AwsApi,
  type BucketFound,
  type BucketSettings,
  type IamPolicy,
  type ListedPolicy,
  type IamUser,
  type PublicAccessBlock,
} from './api.js';

export interface SdkAwsOptions {
  region?: string;
  endpoint?: string;
  /** Per-request deadline; the whole sync stays below the 10 s webhook timeout. */
  requestTimeoutMs?: number;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** The largest answer read from AWS, in bytes (default 8 MiB): beyond, the call fails (ResponseTooLarge). */
  maxResponseBytes?: number;
  /** The operator's AWS account ID, which owns every bucket metaops takes; else asked of STS once (GetCallerIdentity). */
  account?: string;
}

/** The biggest expected answer is a ListObjectVersions page of 1000 versions with 1 KiB keys: about 1.5 MiB. */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

function errorCode(err: unknown): string {
  const e = err as { name?: string; Code?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  const code = e.Code ?? e.name ?? e.code ?? 'Unknown';
  if (!/^(Unknown|\d{3})$/.test(code)) return code;
  // Bodiless answers (HEAD) carry only their HTTP status.
  // Stryker disable next-line OptionalChaining: every error the SDK's retry step passes on has a $metadata (it sets one)
  switch (e.$metadata?.httpStatusCode) {
    case 301:
      return 'PermanentRedirect';
    case 403:
      return 'AccessDenied';
    case 404:
      return 'NotFound';
    case 429:
    case 503:
      return 'SlowDown';
    default:
      return code;
  }
}

const NOT_FOUND = new Set(['NoSuchEntity', 'NoSuchBucket', 'NotFound', 'NoSuchEntityException']);
const REDIRECT = new Set(['PermanentRedirect', 'AuthorizationHeaderMalformed', 'IllegalLocationConstraintException']);

/** An HTTP handler that refuses answers above a size: announced (content-length) or streamed. */
class CappedHandler extends NodeHttpHandler {
  constructor(
    options: ConstructorParameters<typeof NodeHttpHandler>[0],
    private readonly maxBytes: number,
  ) {
    super(options);
  }
  override async handle(...args: Parameters<NodeHttpHandler['handle']>): ReturnType<NodeHttpHandler['handle']> {
    const out = await super.handle(...args);
    const max = this.maxBytes;
    const tooLarge = () =>
      Object.assign(new Error(`AWS answered more than ${max} bytes`), { name: 'ResponseTooLarge' });
    const declared = Number(out.response.headers['content-length'] ?? out.response.headers['Content-Length'] ?? 0);
    const body = out.response.body as Readable | undefined;
    if (declared > max) {
      body?.destroy?.();
      throw tooLarge();
    }
    if (body && typeof body.pipe === 'function') {
      let seen = 0;
      const capped = new Transform({
        transform(chunk: Buffer, _enc, done) {
          seen += chunk.length;
          if (seen > max) {
            body.destroy();
            done(tooLarge());
          } else done(null, chunk);
        },
      });
      body.on('error', (err) => capped.destroy(err));
      out.response.body = body.pipe(capped);
    }
    return out;
  }
}

/** Deadline of one AWS request (the SDK may try twice within the hook's budget, HOOK_BUDGET_MS). */
export const REQUEST_TIMEOUT_MS = 4000;

/**
 * The most pages read of one IAM list. IAM may answer fewer items than asked even when more remain (IsTruncated,
 * Marker); the lists read here are short (5 policy versions, 2 keys, 20 attached policies), so a list longer than
 * this is an endpoint that does not stop: refused (ResponseTooLarge).
 */
export const MAX_PAGES = 100;

/** Regions remembered per bucket, at most this many. */
const MAX_REMEMBERED = 4096;

/**
 * S3 clients kept, one per region, the least recently used dropped first. AWS has about 40 regions; a region comes
 * from a tenant's spec.region (a hint, dialled before AWS says whether it exists), so without a bound every made-up
 * name would keep a client (~34 KiB of heap each) for the life of the server. A client dropped is not destroyed: all
 * share one HTTP handler (its sockets), and a call under way on it finishes; the next call in that region builds one.
 */
export const MAX_S3_CLIENTS = 64;

export class SdkAwsApi implements AwsApi {
  readonly region: string;
  readonly endpoint: string | undefined;
  /** The name of every AWS operation sent, in order, when a test or the benchmark asks for it. */
  readonly sent: string[] | undefined;
  private readonly iam: IAMClient;
  private readonly sts: STSClient;
  /** The operator's account ID, once known (shared by every withDeadline copy). */
  private readonly identity: { account?: Promise<string> | undefined } = {};
  private readonly requestTimeoutMs: number;
  private readonly s3Config: ConstructorParameters<typeof S3Client>[0];
  private readonly s3Clients = new Map<string, S3Client>();
  private readonly bucketRegions = new Map<string, string>();

  constructor(options: SdkAwsOptions & { recordCalls?: boolean } = {}) {
    this.region = options.region ?? process.env['AWS_REGION'] ?? process.env['AWS_DEFAULT_REGION'] ?? 'us-east-1';
    this.endpoint = options.endpoint ?? process.env['AWS_ENDPOINT_URL'] ?? undefined;
    this.requestTimeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
    this.sent = options.recordCalls ? [] : undefined;
    const requestHandler = new CappedHandler(
      { connectionTimeout: 2000, requestTimeout: this.requestTimeoutMs },
      options.maxResponseBytes ?? MAX_RESPONSE_BYTES,
    );
    const common = {
      region: this.region,
      requestHandler,
      maxAttempts: 2,
      ...(this.endpoint ? { endpoint: this.endpoint } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
    };
    this.s3Config = { ...common, forcePathStyle: Boolean(this.endpoint) };
    this.iam = this.record(new IAMClient(common));
    this.sts = this.record(new STSClient(common));
    if (options.account !== undefined) this.identity.account = Promise.resolve(options.account);
  }

  private record<C extends S3Client | IAMClient | STSClient>(client: C): C {
    const sent = this.sent;
    if (sent) {
      (client.middlewareStack as S3Client['middlewareStack']).add(
        (next, context) => (args) => {
          sent.push(String(context.commandName ?? '?').replace(/Command$/, ''));
          return next(args);
        },
        { step: 'initialize', name: 'metaopsRecordCalls' },
      );
    }
    return client;
  }

  /**
   * The same API, every call of which is abandoned once `ms` have passed from now (one hook call's budget), or
   * when `signal` aborts (the hook route's deadline).
   */
  withDeadline(ms: number, signal?: AbortSignal): SdkAwsApi {
    const scoped = Object.create(this) as SdkAwsApi;
    scoped.signal = signal ? AbortSignal.any([AbortSignal.timeout(ms), signal]) : AbortSignal.timeout(ms);
    return scoped;
  }

  private signal: AbortSignal | undefined;

  /** Each request's deadline, and the hook call's when withDeadline() set one. */
  private opts(): { abortSignal: AbortSignal } {
    const signals = [AbortSignal.timeout(this.requestTimeoutMs), ...(this.signal ? [this.signal] : [])];
    return { abortSignal: AbortSignal.any(signals) };
  }

  private async call<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw wrap(err, operation);
    }
  }

  /**
   * The operator's AWS account ID: STS's GetCallerIdentity (which needs no permission), asked once; a failure is not
   * kept (the next call asks again).
   */
  private accountId(): Promise<string> {
    const known = this.identity.account;
    if (known) return known;
    const asked = this.call('GetCallerIdentity', async () => {
      const res = await this.sts.send(new GetCallerIdentityCommand({}), this.opts());
      if (!/^\d{12}$/.test(res.Account ?? ''))
        throw new AwsError('InvalidResponse', 'GetCallerIdentity answered without an account', 'GetCallerIdentity');
      return res.Account!;
    });
    this.identity.account = asked;
    asked.catch(() => {
      if (this.identity.account === asked) this.identity.account = undefined;
    });
    return asked;
  }

  /** The owner every call about a bucket expects: S3 answers 403 AccessDenied for a bucket of any other account. */
  private async owner(): Promise<{ ExpectedBucketOwner: string }> {
    return { ExpectedBucketOwner: await this.accountId() };
  }

  /** Every page of an IAM list, each asked from the Marker of the one before. */
  private async allPages<P extends { IsTruncated?: boolean | undefined; Marker?: string | undefined }>(
    operation: string,
    page: (marker: string | undefined) => Promise<P>,
  ): Promise<P[]> {
    const pages: P[] = [];
    let marker: string | undefined;
    do {
      if (pages.length === MAX_PAGES) throw new AwsError('ResponseTooLarge', `more than ${MAX_PAGES} pages`, operation);
      const res = await this.call(operation, () => page(marker));
      pages.push(res);
      marker = res.IsTruncated ? res.Marker : undefined;
    } while (marker !== undefined);
    return pages;
  }

  private s3In(region: string): S3Client {
    // Never a signed request to another partition's hosts (a tenant's spec.region, a location AWS named).
    const foreign = foreignRegionProblem('region', region, this.region);
    if (foreign) throw new AwsError('InvalidRegion', foreign, 'S3');
    let client = this.s3Clients.get(region);
    if (client) this.s3Clients.delete(region);
    else {
      if (this.s3Clients.size >= MAX_S3_CLIENTS) this.s3Clients.delete(this.s3Clients.keys().next().value!);
      client = this.record(new S3Client({ ...this.s3Config, region }));
    }
    // Last in the map: the most recently used.
    this.s3Clients.set(region, client);
    return client;
  }

  private remember(bucket: string, region: string): void {
    if (this.bucketRegions.size >= MAX_REMEMBERED && !this.bucketRegions.has(bucket)) {
      this.bucketRegions.delete(this.bucketRegions.keys().next().value!);
    }
    this.bucketRegions.set(bucket, region);
  }

  /** The bucket's region from GetBucketLocation (answered from any region); undefined: no such bucket. */
  private async locate(bucket: string): Promise<string | undefined> {
    try {
      const s3 = this.s3In(this.region);
      const res = await this.expectingOwner(bucket, 'GetBucketLocation', (owner) =>
        s3.send(new GetBucketLocationCommand({ Bucket: bucket, ...owner }), this.opts()),
      );
      const region = normaliseRegion(res.LocationConstraint);
      this.remember(bucket, region);
      return region;
    } catch (err) {
      if (err instanceof AwsError) throw err;
      if (NOT_FOUND.has(errorCode(err))) {
        this.bucketRegions.delete(bucket);
        return undefined;
      }
      throw wrap(err, 'GetBucketLocation');
    }
  }

  /**
   * Runs `fn` against the bucket's region: the remembered one, else the hint, else the one GetBucketLocation
   * names. A redirect (the bucket is elsewhere) re-locates it once. undefined: no such bucket.
   */
  private async inRegion<T>(
    bucket: string,
    hint: string | undefined,
    operation: string,
    fn: (s3: S3Client, region: string) => Promise<T>,
  ): Promise<{ value: T; region: string } | undefined> {
    let region = this.bucketRegions.get(bucket) ?? hint ?? (await this.locate(bucket));
    if (region === undefined) return undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        return { value: await fn(this.s3In(region), region), region };
      } catch (err) {
        if (attempt > 0 || !REDIRECT.has(errorCode(err))) throw wrap(err, operation);
        const located = await this.locate(bucket);
        if (located === undefined) return undefined;
        if (located === region) throw wrap(err, operation);
        region = located;
      }
    }
  }

  async findBucket(bucket: string, regionHint?: string): Promise<BucketFound | undefined> {
    try {
      const found = await this.inRegion(bucket, regionHint, 'GetBucketTagging', async (s3) => {
        try {
          const res = await this.expectingOwner(bucket, 'GetBucketTagging', (owner) =>
            s3.send(new GetBucketTaggingCommand({ Bucket: bucket, ...owner }), this.opts()),
          );
          return tagMap(res.TagSet);
        } catch (err) {
          if (/NoSuchTagSet/.test(errorCode(err))) return new Map<string, string>();
          throw err;
        }
      });
      if (!found) return undefined;
      this.remember(bucket, found.region);
      return { region: found.region, tags: found.value };
    } catch (err) {
      if (err instanceof AwsError && NOT_FOUND.has(err.code)) {
        this.bucketRegions.delete(bucket);
        return undefined;
      }
      if (err instanceof AwsError && err.code === BUCKET_OF_ANOTHER_ACCOUNT) this.bucketRegions.delete(bucket);
      throw err;
    }
  }

  /**
   * Sends a read about `bucket` expecting the operator's account as its owner. A 403 is asked once more without that
   * expectation: answered then (NoSuchTagSet is an answer), the bucket is another account's, open to the operator
   * (BUCKET_OF_ANOTHER_ACCOUNT); refused again, the 403 says nothing of whose it is (another account's bucket closed to
   * the operator, or an operator without the permission) and stands.
   */
  private async expectingOwner<T>(
    bucket: string,
    operation: string,
    send: (owner: { ExpectedBucketOwner?: string }) => Promise<T>,
  ): Promise<T> {
    const owner = await this.owner();
    try {
      return await send(owner);
    } catch (err) {
      if (errorCode(err) !== 'AccessDenied') throw err;
      const answered = await send({}).then(
        () => true,
        (again: unknown) => /NoSuchTagSet/.test(errorCode(again)),
      );
      if (!answered) throw err;
      throw new AwsError(
        BUCKET_OF_ANOTHER_ACCOUNT,
        `bucket ${bucket} is in another AWS account: S3 refuses it to a call that expects the operator's account as its owner, and answers without that expectation`,
        operation,
      );
    }
  }

  async createBucket(bucket: string, region: string): Promise<void> {
    const s3 = this.s3In(region);
    const configuration =
      region === 'us-east-1' ? undefined : { LocationConstraint: region as BucketLocationConstraint };
    try {
      await s3.send(
        new CreateBucketCommand({
          Bucket: bucket,
          ...(configuration ? { CreateBucketConfiguration: configuration } : {}),
        }),
        this.opts(),
      );
    } catch (err) {
      // This account's bucket already (outside us-east-1): what us-east-1 answers with 200. The claim decides.
      if (errorCode(err) !== 'BucketAlreadyOwnedByYou') throw wrap(err, 'CreateBucket');
    }
    this.remember(bucket, region);
  }

  async tagBucket(bucket: string, region: string, tags: Map<string, string>): Promise<void> {
    const owner = await this.owner();
    await this.call('PutBucketTagging', () =>
      this.s3In(region).send(
        new PutBucketTaggingCommand({ Bucket: bucket, Tagging: { TagSet: tagList(tags) }, ...owner }),
        this.opts(),
      ),
    );
  }

  /** Writes each bucket setting that differs from what the bucket has, in the order S3 applies them: what was written. */
  async applyBucketSettings(
    bucket: string,
    region: string,
    settings: BucketSettings,
    currentTags: Map<string, string>,
  ): Promise<string[]> {
    const s3 = this.s3In(region);
    const owner = await this.owner();
    const { pab, enc, ver } = await this.bucketSettingsOf(s3, bucket, owner);
    const written: string[] = [];
    const put = async (setting: string, operation: string, send: () => Promise<unknown>) => {
      await this.call(operation, send);
      written.push(setting);
    };
    if (!sameTags(currentTags, settings.tags))
      await put('tags', 'PutBucketTagging', () =>
        s3.send(
          new PutBucketTaggingCommand({ Bucket: bucket, Tagging: { TagSet: tagList(settings.tags) }, ...owner }),
          this.opts(),
        ),
      );
    const want = settings.publicAccessBlock;
    if (!samePublicAccessBlock(pab, want))
      await put('publicAccessBlock', 'PutPublicAccessBlock', () =>
        s3.send(
          new PutPublicAccessBlockCommand({
            Bucket: bucket,
            ...owner,
            PublicAccessBlockConfiguration: {
              BlockPublicAcls: want.blockPublicAcls,
              IgnorePublicAcls: want.ignorePublicAcls,
              BlockPublicPolicy: want.blockPublicPolicy,
              RestrictPublicBuckets: want.restrictPublicBuckets,
            },
          }),
          this.opts(),
        ),
      );
    const wantEnc = encryptionByDefault(settings.encryption);
    if (!sameEncryption(enc, wantEnc))
      await put('encryption', 'PutBucketEncryption', () =>
        s3.send(
          new PutBucketEncryptionCommand({
            Bucket: bucket,
            ...owner,
            ServerSideEncryptionConfiguration: { Rules: [{ ApplyServerSideEncryptionByDefault: wantEnc }] },
          }),
          this.opts(),
        ),
      );
    // A bucket never goes back to unversioned: off is Suspended, or never enabled.
    if (settings.versioning ? ver !== 'Enabled' : ver === 'Enabled')
      await put('versioning', 'PutBucketVersioning', () =>
        s3.send(
          new PutBucketVersioningCommand({
            Bucket: bucket,
            ...owner,
            VersioningConfiguration: { Status: settings.versioning ? 'Enabled' : 'Suspended' },
          }),
          this.opts(),
        ),
      );
    return written;
  }

  /** The bucket's public access block, default encryption and versioning, read at once (none set: undefined). */
  private async bucketSettingsOf(s3: S3Client, bucket: string, owner: { ExpectedBucketOwner: string }) {
    const missing = (codes: RegExp) => (err: unknown) => {
      if (codes.test(errorCode(err))) return undefined;
      throw err;
    };
    const [pab, enc, ver] = await this.call('GetBucketSettings', () =>
      Promise.all([
        s3
          .send(new GetPublicAccessBlockCommand({ Bucket: bucket, ...owner }), this.opts())
          .then((r) => r.PublicAccessBlockConfiguration, missing(/NoSuchPublicAccessBlockConfiguration/)),
        s3
          .send(new GetBucketEncryptionCommand({ Bucket: bucket, ...owner }), this.opts())
          .then(
            (r) => r.ServerSideEncryptionConfiguration?.Rules?.[0]?.ApplyServerSideEncryptionByDefault,
            missing(/ServerSideEncryptionConfigurationNotFound/),
          ),
        s3.send(new GetBucketVersioningCommand({ Bucket: bucket, ...owner }), this.opts()).then((r) => r.Status),
      ]),
    );
    return { pab, enc, ver };
  }

  async deleteBucket(
    bucket: string,
    force: boolean,
    owned: (tags: Map<string, string>) => boolean,
    regionHint?: string,
  ): Promise<'deleted' | 'absent' | 'notEmpty' | 'notOwned'> {
    // The tags right before anything is emptied or deleted: status says what to delete, the tags whether we may. A
    // bucket of that name in another account is none in the operator's: absent (nothing in it is touched).
    const found = await findOwnBucket(this, bucket, regionHint);
    if (!found) return 'absent';
    if (!owned(found.tags)) return 'notOwned';
    const s3 = this.s3In(found.region);
    const owner = await this.owner();
    const listed = await this.call('ListObjectVersions', () =>
      s3.send(new ListObjectVersionsCommand({ Bucket: bucket, MaxKeys: 1000, ...owner }), this.opts()),
    );
    const objects = [...(listed.Versions ?? []), ...(listed.DeleteMarkers ?? [])];
    if (objects.length > 0 || listed.IsTruncated) {
      if (!force) return 'notEmpty';
      // One page per call: a very large bucket empties over several syncs, each within the deadline.
      if (objects.length > 0) {
        await this.call('DeleteObjects', () =>
          s3.send(
            new DeleteObjectsCommand({
              Bucket: bucket,
              ...owner,
              Delete: {
                Objects: objects
                  .slice(0, 1000)
                  .map((o) => ({ Key: o.Key!, ...(o.VersionId ? { VersionId: o.VersionId } : {}) })),
                Quiet: true,
              },
            }),
            this.opts(),
          ),
        );
      }
      if (listed.IsTruncated) return 'notEmpty';
    }
    try {
      await s3.send(new DeleteBucketCommand({ Bucket: bucket, ...owner }), this.opts());
    } catch (err) {
      if (NOT_FOUND.has(errorCode(err))) return 'absent';
      // Objects written since the listing: try again at the next call.
      if (errorCode(err) === 'BucketNotEmpty') return 'notEmpty';
      throw wrap(err, 'DeleteBucket');
    }
    this.bucketRegions.delete(bucket);
    return 'deleted';
  }

  async getUser(user: string): Promise<IamUser | undefined> {
    try {
      const got = await this.iam.send(new GetUserCommand({ UserName: user }), this.opts());
      if (!got.User?.Arn) throw new AwsError('InvalidResponse', 'GetUser answered without the user', 'GetUser');
      return { arn: got.User.Arn, tags: tagMap(got.User.Tags) };
    } catch (err) {
      if (err instanceof AwsError) throw err;
      if (NOT_FOUND.has(errorCode(err))) return undefined;
      throw wrap(err, 'GetUser');
    }
  }

  async createUser(user: string, tags: Map<string, string>): Promise<IamUser> {
    const created = await this.call('CreateUser', () =>
      this.iam.send(new CreateUserCommand({ UserName: user, Tags: tagList(tags) }), this.opts()),
    );
    if (!created.User?.Arn) throw new AwsError('InvalidResponse', 'CreateUser answered without the user', 'CreateUser');
    return { arn: created.User.Arn, tags };
  }

  async deleteUser(user: string): Promise<void> {
    for (const key of await this.listAccessKeys(user)) await this.deleteAccessKey(user, key.id);
    for (const arn of await this.attachedPolicies(user)) await this.detachPolicy(user, arn);
    try {
      await this.iam.send(new DeleteUserCommand({ UserName: user }), this.opts());
    } catch (err) {
      if (!NOT_FOUND.has(errorCode(err))) throw wrap(err, 'DeleteUser');
    }
  }

  async tagUser(user: string, tags: Map<string, string>): Promise<void> {
    await this.call('TagUser', () =>
      this.iam.send(new TagUserCommand({ UserName: user, Tags: tagList(tags) }), this.opts()),
    );
  }

  async untagUser(user: string, keys: string[]): Promise<void> {
    await this.call('UntagUser', () =>
      this.iam.send(new UntagUserCommand({ UserName: user, TagKeys: keys }), this.opts()),
    );
  }

  async getPolicy(arn: string): Promise<IamPolicy | undefined> {
    try {
      const got = await this.iam.send(new GetPolicyCommand({ PolicyArn: arn }), this.opts());
      if (!got.Policy?.Arn || !got.Policy.DefaultVersionId)
        throw new AwsError('InvalidResponse', 'GetPolicy answered without the policy', 'GetPolicy');
      return {
        arn: got.Policy.Arn,
        defaultVersionId: got.Policy.DefaultVersionId,
        tags: tagMap(got.Policy.Tags),
        created: got.Policy.CreateDate,
      };
    } catch (err) {
      if (err instanceof AwsError) throw err;
      if (NOT_FOUND.has(errorCode(err))) return undefined;
      throw wrap(err, 'GetPolicy');
    }
  }

  async policyDocument(arn: string, versionId: string): Promise<string> {
    const got = await this.call('GetPolicyVersion', () =>
      this.iam.send(new GetPolicyVersionCommand({ PolicyArn: arn, VersionId: versionId }), this.opts()),
    );
    return decodeURIComponent(got.PolicyVersion?.Document ?? '');
  }

  async createPolicy(name: string, document: string, tags: Map<string, string>, path?: string): Promise<string> {
    const created = await this.call('CreatePolicy', () =>
      this.iam.send(
        new CreatePolicyCommand({
          PolicyName: name,
          PolicyDocument: document,
          Tags: tagList(tags),
          ...(path ? { Path: path } : {}),
        }),
        this.opts(),
      ),
    );
    if (!created.Policy?.Arn)
      throw new AwsError('InvalidResponse', 'CreatePolicy answered without the policy', 'CreatePolicy');
    return created.Policy.Arn;
  }

  async listPolicies(pathPrefix: string, max: number): Promise<{ policies: ListedPolicy[]; truncated: boolean }> {
    // IAM may answer fewer than MaxItems with more to come: pages are followed (at most MAX_PAGES) until `max`.
    const policies: ListedPolicy[] = [];
    let marker: string | undefined;
    for (let pages = 0; ; pages++) {
      if (pages === MAX_PAGES) throw new AwsError('ResponseTooLarge', `more than ${MAX_PAGES} pages`, 'ListPolicies');
      const res = await this.call('ListPolicies', () =>
        this.iam.send(
          new ListPoliciesCommand({
            Scope: 'Local',
            PathPrefix: pathPrefix,
            MaxItems: Math.min(Math.max(1, max + 1 - policies.length), 1000),
            ...(marker !== undefined ? { Marker: marker } : {}),
          }),
          this.opts(),
        ),
      );
      for (const p of res.Policies ?? [])
        if (p.PolicyName && p.Arn)
          policies.push({ name: p.PolicyName, arn: p.Arn, created: p.CreateDate ?? new Date(0) });
      marker = res.IsTruncated ? res.Marker : undefined;
      if (marker === undefined || policies.length > max) break;
    }
    // The loop ends at the last page, or with more than `max`: what is left is the one past `max`.
    return { policies: policies.slice(0, max), truncated: policies.length > max };
  }

  async setPolicyDocument(arn: string, document: string): Promise<void> {
    const old = (await this.policyVersions(arn))
      .filter((v) => !v.IsDefaultVersion)
      .sort((a, b) => (a.CreateDate?.getTime() ?? 0) - (b.CreateDate?.getTime() ?? 0));
    if (old.length >= 4) {
      await this.call('DeletePolicyVersion', () =>
        this.iam.send(new DeletePolicyVersionCommand({ PolicyArn: arn, VersionId: old[0]!.VersionId! }), this.opts()),
      );
    }
    await this.call('CreatePolicyVersion', () =>
      this.iam.send(
        new CreatePolicyVersionCommand({ PolicyArn: arn, PolicyDocument: document, SetAsDefault: true }),
        this.opts(),
      ),
    );
  }

  private async policyVersions(arn: string): Promise<PolicyVersion[]> {
    const pages = await this.allPages('ListPolicyVersions', (Marker) =>
      this.iam.send(new ListPolicyVersionsCommand({ PolicyArn: arn, Marker }), this.opts()),
    );
    return pages.flatMap((p) => p.Versions ?? []);
  }

  async deletePolicy(arn: string): Promise<void> {
    for (const v of await this.policyVersions(arn)) {
      if (!v.IsDefaultVersion) {
        await this.call('DeletePolicyVersion', () =>
          this.iam.send(new DeletePolicyVersionCommand({ PolicyArn: arn, VersionId: v.VersionId! }), this.opts()),
        );
      }
    }
    try {
      await this.iam.send(new DeletePolicyCommand({ PolicyArn: arn }), this.opts());
    } catch (err) {
      if (!NOT_FOUND.has(errorCode(err))) throw wrap(err, 'DeletePolicy');
    }
  }

  async attachedPolicies(user: string): Promise<string[]> {
    const pages = await this.allPages('ListAttachedUserPolicies', (Marker) =>
      this.iam.send(new ListAttachedUserPoliciesCommand({ UserName: user, Marker }), this.opts()),
    );
    return pages.flatMap((res) => (res.AttachedPolicies ?? []).flatMap((p) => (p.PolicyArn ? [p.PolicyArn] : [])));
  }

  async attachPolicy(user: string, policyArn: string): Promise<void> {
    await this.call('AttachUserPolicy', () =>
      this.iam.send(new AttachUserPolicyCommand({ UserName: user, PolicyArn: policyArn }), this.opts()),
    );
  }

  async detachPolicy(user: string, policyArn: string): Promise<void> {
    try {
      await this.iam.send(new DetachUserPolicyCommand({ UserName: user, PolicyArn: policyArn }), this.opts());
    } catch (err) {
      // Detached already (a call that did its work and whose answer was lost): what was asked holds.
      if (!NOT_FOUND.has(errorCode(err))) throw wrap(err, 'DetachUserPolicy');
    }
  }

  async listAccessKeys(user: string): Promise<AccessKeyInfo[]> {
    const pages = await this.allPages('ListAccessKeys', (Marker) =>
      this.iam.send(new ListAccessKeysCommand({ UserName: user, Marker }), this.opts()),
    );
    return pages
      .flatMap((res) => res.AccessKeyMetadata ?? [])
      .flatMap((k) => (k.AccessKeyId ? [{ id: k.AccessKeyId, created: k.CreateDate ?? new Date(0) }] : []))
      .sort((a, b) => a.created.getTime() - b.created.getTime() || (a.id < b.id ? -1 : 1));
  }

  async createAccessKey(user: string): Promise<AccessKey> {
    const res = await this.call('CreateAccessKey', () =>
      this.iam.send(new CreateAccessKeyCommand({ UserName: user }), this.opts()),
    );
    if (!res.AccessKey?.AccessKeyId || !res.AccessKey.SecretAccessKey) {
      throw new AwsError('InvalidResponse', 'CreateAccessKey answered without the key', 'CreateAccessKey');
    }
    return { id: res.AccessKey.AccessKeyId, secret: res.AccessKey.SecretAccessKey };
  }

  async deleteAccessKey(user: string, id: string): Promise<void> {
    try {
      await this.iam.send(new DeleteAccessKeyCommand({ UserName: user, AccessKeyId: id }), this.opts());
    } catch (err) {
      if (!NOT_FOUND.has(errorCode(err))) throw wrap(err, 'DeleteAccessKey');
    }
  }
}

function wrap(err: unknown, operation: string): AwsError {
  if (err instanceof AwsError) return err;
  const code = errorCode(err);
  // AWS's own message, cut short: a hostile or broken server does not fill the status with it.
  const message = String((err as Error)?.message || code).slice(0, 200);
  return new AwsError(code, message, operation);
}

function sameTags(a: Map<string, string>, b: Map<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

/** Whether the bucket's public access block (none: every flag off) is the one wanted. */
function samePublicAccessBlock(have: PublicAccessBlockConfiguration | undefined, want: PublicAccessBlock): boolean {
  return (
    Boolean(have?.BlockPublicAcls) === want.blockPublicAcls &&
    Boolean(have?.IgnorePublicAcls) === want.ignorePublicAcls &&
    Boolean(have?.BlockPublicPolicy) === want.blockPublicPolicy &&
    Boolean(have?.RestrictPublicBuckets) === want.restrictPublicBuckets
  );
}

/** The bucket's default encryption as S3 writes it for the spec's: SSE-KMS with its key where named, else AES256. */
function encryptionByDefault(encryption: BucketSettings['encryption']): ServerSideEncryptionByDefault {
  return encryption.type === 'SSE-KMS'
    ? { SSEAlgorithm: 'aws:kms', ...(encryption.kmsKeyId ? { KMSMasterKeyID: encryption.kmsKeyId } : {}) }
    : { SSEAlgorithm: 'AES256' };
}

/** AWS may name the KMS key by ARN when it was given by id: the same key either way. */
function sameEncryption(have: ServerSideEncryptionByDefault | undefined, want: ServerSideEncryptionByDefault): boolean {
  if (!have || have.SSEAlgorithm !== want.SSEAlgorithm) return false;
  const h = have.KMSMasterKeyID ?? '';
  const w = want.KMSMasterKeyID ?? '';
  return h === w || (w !== '' && h.endsWith(`/${w}`));
}
