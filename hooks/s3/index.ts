import type { CompositeHookDefinition } from '../../lib/hook.js';
import { resource } from './schema.js';
import { finalize, sync } from './sync.js';

/** Everything AWS does in one hook call fits in this, below Metacontroller's 10 s webhook timeout. */
export const HOOK_BUDGET_MS = 7000;

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
  sync: async (request, ctx) => sync(request, (await ctx.deps.aws()).withDeadline(HOOK_BUDGET_MS), ctx.deps.now()),
  finalize: async (request, ctx) => finalize(request, (await ctx.deps.aws()).withDeadline(HOOK_BUDGET_MS), ctx.deps.now()),
};
