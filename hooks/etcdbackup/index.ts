import type { CompositeHookDefinition } from '../../lib/hook.js';
import { customize as customizeRestore, sync as syncRestore } from './restore.js';
import { backupResource, restoreResource } from './schema.js';
import { customize, sync } from './sync.js';

export const etcdbackup: CompositeHookDefinition = {
  type: 'composite',
  name: 'etcdbackup',
  resource: backupResource,
  childResources: [
    {
      apiVersion: 'batch/v1',
      resource: 'jobs',
      updateStrategy: { method: 'OnDelete' },
      why: 'a one-off backup Job runs once as created; a Job template cannot change anyway',
    },
    {
      apiVersion: 'batch/v1',
      resource: 'cronjobs',
      updateStrategy: { method: 'InPlace' },
      why: 'a periodic backup schedule or target changes in place, without losing the CronJob history',
    },
  ],
  sync: (request, ctx) => sync(request, ctx.deps.image, ctx.deps.now()),
  customize: (request) => customize(request),
};

export const etcdrestore: CompositeHookDefinition = {
  type: 'composite',
  name: 'etcdrestore',
  resource: restoreResource,
  childResources: [],
  sync: (request, ctx) => syncRestore(request, ctx.deps.now()),
  customize: (request) => customizeRestore(request),
};
