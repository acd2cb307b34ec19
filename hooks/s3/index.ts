import {
  type ClientEnvironment,
  type ConditionEventRules,
  defineComposite,
  jsonBytes,
  type ParentObject,
} from '../../lib/index.js';
import { bucketsPerNamespaceFromEnv, bucketsPerNamespaceProblems } from './ledger.js';
import { kmsAllowlistFromEnv, kmsAllowlistProblems, kmsKeyIdProblem, tagsProblem } from './policy.js';
import { resource } from './schema.js';
import { foreignRegionProblem, operatorRegionOf } from './api.js';
import {
  childNames,
  customize,
  finalize,
  nameProblem,
  parser,
  refused,
  s3Clients,
  secretName,
  sync,
  type S3Settings,
} from './sync.js';

export { HOOK_BUDGET_MS } from './sync.js';

/**
 * S3 condition reasons told as Events: every AWS failure (Ready, Synced, Finalized), a refusal the user must act on
 * (too many buckets kept by renames, a claim IAM will not show), and a bucket kept at deletion.
 */
export const S3_EVENTS: ConditionEventRules = {
  action: 'Reconcile',
  warnings: new Set([
    'AccessDenied',
    'Throttled',
    'Unreachable',
    'AWSError',
    'BucketAlreadyExists',
    'IAMNameTaken',
    'RegionMismatch',
    'ResponseTooLarge',
    'BucketNotEmpty',
    'InvalidSpec',
    'SecretNameTaken',
    'TooManyBuckets',
    'OwnershipUnconfirmed',
  ]),
  normals: new Set(['BucketRetained']),
};

export type { S3Settings } from './sync.js';

export const s3 = defineComposite({
  name: 's3',
  resource,
  spec: parser,
  // Read from the raw spec before the schema: a key ARN said plainly, and a tag set AWS would refuse (InvalidTag).
  specProblem: (spec) => kmsKeyIdProblem(spec) ?? tagsProblem(spec),
  // A spec refused by any check before the sync keeps no grant the rules would not give now (sync.ts refused): a
  // KMS key the raw spec does not name exactly, or the server no longer allows, is withdrawn from the policy.
  refused,
  settings: ({ env }: ClientEnvironment): S3Settings => ({
    kms: kmsAllowlistFromEnv(env),
    bucketsPerNamespace: bucketsPerNamespaceFromEnv(env),
    operatorRegion: operatorRegionOf(env),
  }),
  // A bucket region of another AWS partition than the operator's: refused before any call (api.ts).
  settingsProblem: (spec, settings: S3Settings) =>
    foreignRegionProblem('spec.region', spec.region, settings.operatorRegion ?? 'us-east-1'),
  configProblems: (env) => [...kmsAllowlistProblems(env), ...bucketsPerNamespaceProblems(env)],
  // A customer managed key only where the server allows it: checked by the sync before anything is made, which
  // then also withdraws a grant of the key made while it was allowed (sync.ts refusedKmsKey).
  // One Secret: the keys, region, bucket, endpoint, names and labels fit in 4 KiB besides its name.
  answerBudget: {
    estimate: (spec, parent) => ({
      bytes: 4096 + 2 * jsonBytes(secretName(parent, spec)),
      what: 'the credentials Secret',
    }),
    advice: 'shorten spec.secretName',
  },
  parentProblem: nameProblem,
  childNames,
  // A name refused for its children (InvalidSpec for good: a name cannot change) makes nothing: it holds no name from
  // a parent of another kind (lib/holders.ts holderWants).
  nameRefused: (holder) => nameProblem(holder as ParentObject) !== undefined,
  // The Secret `<name>-credentials` (its default: a parent that wants a Secret of that shape asks customize for S3
  // `<name>` by name, so an S3 resource made before it keeps its default name until it makes it: lib/ownership.ts
  // keptByEarlier), or any name spec.secretName chooses (lib/holders.ts: asked for only as status.heldBy records it,
  // never every S3 resource of the namespace).
  nameShapes: [
    { apiVersion: 'v1', kind: 'Secret', suffix: '-credentials' },
    { apiVersion: 'v1', kind: 'Secret', chosen: true },
  ],
  // A recorded holder its customize answer has not sent yet is judged by its IAM user (sync.ts unjudgedHolders).
  judgesUnseenHolders: true,
  customize,
  clients: s3Clients,
  childResources: [
    {
      apiVersion: 'v1',
      resource: 'secrets',
      updateStrategy: { method: 'InPlace' },
      why: 'the credentials Secret is updated in place (a rotated key, a renamed bucket) so that it never disappears under its readers',
    },
  ],
  // AWS state can drift outside Kubernetes (a bucket deleted by hand): look again every five minutes.
  resyncPeriodSeconds: 300,
  effects: true,
  events: S3_EVENTS,
  sync,
  finalize,
});
