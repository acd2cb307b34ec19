// The AWS SDK v3 implementation of the S3 controller's AwsApi (api.ts). Credentials come from the SDK's
// standard chain (environment, web identity, ...); AWS_ENDPOINT_URL points it at MinIO, LocalStack or moto.
// Every call has a deadline well below the webhook timeout. Loaded on first use (lib/deps.ts), never at startup.
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
} from '@aws-sdk/client-iam';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  GetBucketTaggingCommand,
  HeadBucketCommand,
  ListObjectVersionsCommand,
  PutBucketEncryptionCommand,
  PutBucketTaggingCommand,
  PutBucketVersioningCommand,
  PutPublicAccessBlockCommand,
  S3Client,
  type BucketLocationConstraint,
} from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { AwsError, OWNER_TAG, type AccessKey, type AwsApi, type BucketSettings } from './api.js';

export interface SdkAwsOptions {
  region?: string;
  endpoint?: string;
  /** Per-request deadline; the whole sync stays below the 10 s webhook timeout. */
  requestTimeoutMs?: number;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

function errorCode(err: unknown): string {
  const e = err as { name?: string; Code?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  const code = e.Code ?? e.name ?? e.code ?? 'Unknown';
  if (!/^Unknown/.test(code)) return code;
  // Bodiless answers (HEAD) carry only their HTTP status.
  switch (e.$metadata?.httpStatusCode) {
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

export class SdkAwsApi implements AwsApi {
  readonly region: string;
  readonly endpoint: string | undefined;
  private readonly s3: S3Client;
  private readonly iam: IAMClient;
  private readonly requestTimeoutMs: number;

  constructor(options: SdkAwsOptions = {}) {
    this.region = options.region ?? process.env['AWS_REGION'] ?? process.env['AWS_DEFAULT_REGION'] ?? 'us-east-1';
    this.endpoint = options.endpoint ?? process.env['AWS_ENDPOINT_URL'] ?? undefined;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 4000;
    const requestHandler = new NodeHttpHandler({ connectionTimeout: 2000, requestTimeout: this.requestTimeoutMs });
    const common = {
      region: this.region,
      requestHandler,
      maxAttempts: 2,
      ...(this.endpoint ? { endpoint: this.endpoint } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
    };
    this.s3 = new S3Client({ ...common, forcePathStyle: Boolean(this.endpoint) });
    this.iam = new IAMClient(common);
  }

  /** The same API, every call of which is abandoned once `ms` have passed from now (one hook call's budget). */
  withDeadline(ms: number): SdkAwsApi {
    const scoped = Object.create(this) as SdkAwsApi;
    scoped.signal = AbortSignal.timeout(ms);
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
      throw new AwsError(errorCode(err), (err as Error).message || errorCode(err), operation);
    }
  }

  private s3For(region: string): S3Client {
    return region === this.region ? this.s3 : new S3Client({ ...this.s3.config, region } as never);
  }

  async ensureBucket(bucket: string, settings: BucketSettings, owner: string, adopt: boolean): Promise<void> {
    const s3 = this.s3For(settings.region);
    const exists = await this.bucketExists(bucket);
    if (exists) {
      const tags = await s3.send(new GetBucketTaggingCommand({ Bucket: bucket }), this.opts()).then(
        (r) => r.TagSet ?? [],
        (err) => {
          if (/NoSuchTagSet/.test(errorCode(err))) return [];
          throw new AwsError(errorCode(err), (err as Error).message, 'GetBucketTagging');
        },
      );
      const tagged = tags.find((t) => t.Key === OWNER_TAG)?.Value;
      if (tagged ? tagged !== owner : !adopt) {
        throw new AwsError(
          'BucketAlreadyExists',
          tagged ? `bucket ${bucket} belongs to S3 resource ${tagged}` : `bucket ${bucket} already exists and is not managed by metaops`,
          'CreateBucket',
        );
      }
    } else {
      const configuration =
        settings.region === 'us-east-1' ? undefined : { LocationConstraint: settings.region as BucketLocationConstraint };
      await this.call('CreateBucket', () =>
        s3.send(new CreateBucketCommand({ Bucket: bucket, ...(configuration ? { CreateBucketConfiguration: configuration } : {}) }), this.opts()),
      );
    }
    // The owner tag first, so that a bucket this call created is recognised as ours from now on.
    const tags = Object.entries({ ...settings.tags, [OWNER_TAG]: owner }).map(([Key, Value]) => ({ Key, Value }));
    await this.call('PutBucketTagging', () => s3.send(new PutBucketTaggingCommand({ Bucket: bucket, Tagging: { TagSet: tags } }), this.opts()));
    await this.call('PutPublicAccessBlock', () =>
      s3.send(
        new PutPublicAccessBlockCommand({
          Bucket: bucket,
          PublicAccessBlockConfiguration: {
            BlockPublicAcls: settings.publicAccessBlock.blockPublicAcls,
            IgnorePublicAcls: settings.publicAccessBlock.ignorePublicAcls,
            BlockPublicPolicy: settings.publicAccessBlock.blockPublicPolicy,
            RestrictPublicBuckets: settings.publicAccessBlock.restrictPublicBuckets,
          },
        }),
      this.opts(),
      ),
    );
    await this.call('PutBucketEncryption', () =>
      s3.send(
        new PutBucketEncryptionCommand({
          Bucket: bucket,
          ServerSideEncryptionConfiguration: {
            Rules: [
              {
                ApplyServerSideEncryptionByDefault:
                  settings.encryption.type === 'SSE-KMS'
                    ? { SSEAlgorithm: 'aws:kms', ...(settings.encryption.kmsKeyId ? { KMSMasterKeyID: settings.encryption.kmsKeyId } : {}) }
                    : { SSEAlgorithm: 'AES256' },
              },
            ],
          },
        }),
      this.opts(),
      ),
    );
    await this.call('PutBucketVersioning', () =>
      s3.send(
        new PutBucketVersioningCommand({
          Bucket: bucket,
          VersioningConfiguration: { Status: settings.versioning ? 'Enabled' : 'Suspended' },
        }),
      this.opts(),
      ),
    );
  }

  async bucketExists(bucket: string): Promise<boolean> {
    try {
      await this.s3.send(new HeadBucketCommand({ Bucket: bucket }), this.opts());
      return true;
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404 || NOT_FOUND.has(errorCode(err))) return false;
      throw new AwsError(errorCode(err), (err as Error).message, 'HeadBucket');
    }
  }

  async deleteBucket(bucket: string, force: boolean): Promise<'deleted' | 'absent' | 'notEmpty'> {
    if (!(await this.bucketExists(bucket))) return 'absent';
    const listed = await this.call('ListObjectVersions', () => this.s3.send(new ListObjectVersionsCommand({ Bucket: bucket, MaxKeys: 1000 }), this.opts()));
    const objects = [...(listed.Versions ?? []), ...(listed.DeleteMarkers ?? [])];
    if (objects.length > 0) {
      if (!force) return 'notEmpty';
      // One page per sync: a very large bucket empties over several syncs, each within the deadline.
      await this.call('DeleteObjects', () =>
        this.s3.send(
          new DeleteObjectsCommand({
            Bucket: bucket,
            Delete: { Objects: objects.map((o) => ({ Key: o.Key!, ...(o.VersionId ? { VersionId: o.VersionId } : {}) })), Quiet: true },
          }),
        this.opts(),
        ),
      );
      if (listed.IsTruncated) return 'notEmpty';
    }
    await this.call('DeleteBucket', () => this.s3.send(new DeleteBucketCommand({ Bucket: bucket }), this.opts()));
    return 'deleted';
  }

  async ensureUser(user: string, tags: Record<string, string>): Promise<string> {
    try {
      const got = await this.iam.send(new GetUserCommand({ UserName: user }), this.opts());
      return got.User!.Arn!;
    } catch (err) {
      if (!NOT_FOUND.has(errorCode(err))) throw new AwsError(errorCode(err), (err as Error).message, 'GetUser');
    }
    const created = await this.call('CreateUser', () =>
      this.iam.send(new CreateUserCommand({ UserName: user, Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) }), this.opts()),
    );
    return created.User!.Arn!;
  }

  async userExists(user: string): Promise<boolean> {
    try {
      await this.iam.send(new GetUserCommand({ UserName: user }), this.opts());
      return true;
    } catch (err) {
      if (NOT_FOUND.has(errorCode(err))) return false;
      throw new AwsError(errorCode(err), (err as Error).message, 'GetUser');
    }
  }

  /** The ARN of this account's managed policy with that name (works for users and roles alike). */
  private async findPolicyArn(name: string): Promise<string> {
    let marker: string | undefined;
    do {
      const page = await this.call('ListPolicies', () =>
        this.iam.send(new ListPoliciesCommand({ Scope: 'Local', MaxItems: 1000, ...(marker ? { Marker: marker } : {}) }), this.opts()),
      );
      const found = page.Policies?.find((p) => p.PolicyName === name);
      if (found?.Arn) return found.Arn;
      marker = page.IsTruncated ? page.Marker : undefined;
    } while (marker);
    throw new AwsError('NoSuchEntity', `policy ${name} exists but could not be listed`, 'ListPolicies');
  }

  async ensurePolicy(name: string, document: string): Promise<string> {
    try {
      const created = await this.iam.send(new CreatePolicyCommand({ PolicyName: name, PolicyDocument: document }), this.opts());
      return created.Policy!.Arn!;
    } catch (err) {
      if (errorCode(err) !== 'EntityAlreadyExists' && errorCode(err) !== 'EntityAlreadyExistsException') {
        throw new AwsError(errorCode(err), (err as Error).message, 'CreatePolicy');
      }
    }
    const arn = await this.findPolicyArn(name);
    const policy = await this.call('GetPolicy', () => this.iam.send(new GetPolicyCommand({ PolicyArn: arn }), this.opts()));
    const current = await this.call('GetPolicyVersion', () =>
      this.iam.send(new GetPolicyVersionCommand({ PolicyArn: arn, VersionId: policy.Policy!.DefaultVersionId! }), this.opts()),
    );
    const have = decodeURIComponent(current.PolicyVersion?.Document ?? '');
    if (sameJson(have, document)) return arn;
    // IAM keeps at most five versions: drop the oldest non-default one first.
    const versions = await this.call('ListPolicyVersions', () => this.iam.send(new ListPolicyVersionsCommand({ PolicyArn: arn }), this.opts()));
    const old = (versions.Versions ?? []).filter((v) => !v.IsDefaultVersion);
    if (old.length >= 4) {
      await this.call('DeletePolicyVersion', () =>
        this.iam.send(new DeletePolicyVersionCommand({ PolicyArn: arn, VersionId: old[old.length - 1]!.VersionId! }), this.opts()),
      );
    }
    await this.call('CreatePolicyVersion', () =>
      this.iam.send(new CreatePolicyVersionCommand({ PolicyArn: arn, PolicyDocument: document, SetAsDefault: true }), this.opts()),
    );
    return arn;
  }

  async policyExists(arn: string): Promise<boolean> {
    try {
      await this.iam.send(new GetPolicyCommand({ PolicyArn: arn }), this.opts());
      return true;
    } catch (err) {
      if (NOT_FOUND.has(errorCode(err))) return false;
      throw new AwsError(errorCode(err), (err as Error).message, 'GetPolicy');
    }
  }

  async attachPolicy(user: string, policyArn: string): Promise<void> {
    await this.call('AttachUserPolicy', () => this.iam.send(new AttachUserPolicyCommand({ UserName: user, PolicyArn: policyArn }), this.opts()));
  }

  async listAccessKeys(user: string): Promise<string[]> {
    const res = await this.call('ListAccessKeys', () => this.iam.send(new ListAccessKeysCommand({ UserName: user }), this.opts()));
    return (res.AccessKeyMetadata ?? [])
      .sort((a, b) => (a.CreateDate?.getTime() ?? 0) - (b.CreateDate?.getTime() ?? 0))
      .map((k) => k.AccessKeyId!);
  }

  async createAccessKey(user: string): Promise<AccessKey> {
    const res = await this.call('CreateAccessKey', () => this.iam.send(new CreateAccessKeyCommand({ UserName: user }), this.opts()));
    return { id: res.AccessKey!.AccessKeyId!, secret: res.AccessKey!.SecretAccessKey! };
  }

  async deleteAccessKey(user: string, id: string): Promise<void> {
    try {
      await this.iam.send(new DeleteAccessKeyCommand({ UserName: user, AccessKeyId: id }), this.opts());
    } catch (err) {
      if (!NOT_FOUND.has(errorCode(err))) throw new AwsError(errorCode(err), (err as Error).message, 'DeleteAccessKey');
    }
  }

  async deleteUser(user: string): Promise<void> {
    if (!(await this.userExists(user))) return;
    for (const id of await this.listAccessKeys(user)) await this.deleteAccessKey(user, id);
    const attached = await this.call('ListAttachedUserPolicies', () =>
      this.iam.send(new ListAttachedUserPoliciesCommand({ UserName: user }), this.opts()),
    );
    for (const p of attached.AttachedPolicies ?? []) {
      await this.call('DetachUserPolicy', () => this.iam.send(new DetachUserPolicyCommand({ UserName: user, PolicyArn: p.PolicyArn! }), this.opts()));
    }
    await this.call('DeleteUser', () => this.iam.send(new DeleteUserCommand({ UserName: user }), this.opts()));
  }

  async deletePolicy(arn: string): Promise<void> {
    if (!(await this.policyExists(arn))) return;
    const versions = await this.call('ListPolicyVersions', () => this.iam.send(new ListPolicyVersionsCommand({ PolicyArn: arn }), this.opts()));
    for (const v of versions.Versions ?? []) {
      if (!v.IsDefaultVersion) {
        await this.call('DeletePolicyVersion', () => this.iam.send(new DeletePolicyVersionCommand({ PolicyArn: arn, VersionId: v.VersionId! }), this.opts()));
      }
    }
    await this.call('DeletePolicy', () => this.iam.send(new DeletePolicyCommand({ PolicyArn: arn }), this.opts()));
  }
}

function sameJson(a: string, b: string): boolean {
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  } catch {
    return false;
  }
}
