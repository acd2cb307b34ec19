import { recorderOf, withEvents, type ConditionEventRules } from '../../lib/events.js';
import type { CompositeHookDefinition } from '../../lib/hook.js';
import { resource } from './schema.js';
import { finalize, sync } from './sync.js';

/** Everything AWS does in one hook call fits in this, below Metacontroller's 10 s webhook timeout. */
export const HOOK_BUDGET_MS = 7000;

/** S3 condition reasons told as Events: every AWS failure (Ready, Synced, Finalized), and a bucket kept at deletion. */
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
  ]),
  normals: new Set(['BucketRetained']),
};

export const s3: CompositeHookDefinition = {
  type: 'composite',
  name: 's3',
  resource,
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
  sync: async (request, ctx) => {
    const aws = (await ctx.deps.aws()).withDeadline(HOOK_BUDGET_MS);
    const now = ctx.deps.now();
    return withEvents(request, recorderOf(ctx.deps), now, ctx.log, S3_EVENTS, (note) => sync(request, aws, now, note));
  },
  finalize: async (request, ctx) => {
    const aws = (await ctx.deps.aws()).withDeadline(HOOK_BUDGET_MS);
    const now = ctx.deps.now();
    return withEvents(request, recorderOf(ctx.deps), now, ctx.log, S3_EVENTS, () => finalize(request, aws, now));
  },
};
