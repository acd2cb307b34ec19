// What the S3 controller needs of AWS (S3 and IAM), as a small interface, and the error its implementations
// throw. No SDK here: the hooks import this, and the SDK (aws.ts) is loaded only when an S3 resource is synced.

export interface BucketSettings {
  region: string;
  versioning: boolean;
  encryption: { type: 'SSE-S3' | 'SSE-KMS'; kmsKeyId?: string | undefined };
  publicAccessBlock: { blockPublicAcls: boolean; ignorePublicAcls: boolean; blockPublicPolicy: boolean; restrictPublicBuckets: boolean };
  tags: Record<string, string>;
}

/** The tag that marks a bucket as managed by one S3 resource: <namespace>/<name>. */
export const OWNER_TAG = 'metaops.dev/owner';

export interface AccessKey {
  id: string;
  secret: string;
}

export interface AwsApi {
  readonly region: string;
  readonly endpoint: string | undefined;
  /** The same API, every call of which is abandoned `ms` from now: one hook call's budget. */
  withDeadline(ms: number): AwsApi;
  /**
   * Creates the bucket if this account does not own it yet, then applies every setting. A bucket this account
   * already has is taken only if its `metaops.dev/owner` tag names `owner` (or `adopt` says it was ours);
   * otherwise BucketAlreadyExists: another resource, or someone by hand, made it.
   */
  ensureBucket(bucket: string, settings: BucketSettings, owner: string, adopt: boolean): Promise<void>;
  bucketExists(bucket: string): Promise<boolean>;
  /** 'notEmpty' when the bucket holds objects and `force` is false. */
  deleteBucket(bucket: string, force: boolean): Promise<'deleted' | 'absent' | 'notEmpty'>;
  ensureUser(user: string, tags: Record<string, string>): Promise<string>;
  userExists(user: string): Promise<boolean>;
  /** Creates the managed policy or makes `document` its default version; returns its ARN. */
  ensurePolicy(name: string, document: string): Promise<string>;
  policyExists(arn: string): Promise<boolean>;
  attachPolicy(user: string, policyArn: string): Promise<void>;
  listAccessKeys(user: string): Promise<string[]>;
  createAccessKey(user: string): Promise<AccessKey>;
  deleteAccessKey(user: string, id: string): Promise<void>;
  /** Detaches every policy, deletes every key, then the user. */
  deleteUser(user: string): Promise<void>;
  deletePolicy(arn: string): Promise<void>;
}

/** An AWS failure, with the service's error code (AccessDenied, BucketAlreadyExists, Throttling, ...). */
export class AwsError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly operation: string,
  ) {
    super(message);
  }
}
