import type { ConditionEventRules } from '../../lib/events.js';
import { defineComposite } from '../../lib/operator.js';
import { resource } from './schema.js';
import { finalize, parser, s3Clients, sync } from './sync.js';

export { HOOK_BUDGET_MS } from './sync.js';

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

export const s3 = defineComposite({
  name: 's3',
  resource,
  spec: parser,
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
