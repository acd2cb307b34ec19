import { recorderOf, withEvents } from '../../lib/events.js';
import type { CompositeHookDefinition } from '../../lib/hook.js';
import { backupWritten, ETCDBACKUP_EVENTS, ETCDRESTORE_EVENTS } from './events.js';
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
  // Pure: the answer is sync's; Events (lib/events.ts) only for an authenticated caller (recorderOf(ctx.deps)).
  sync: (request, ctx) => {
    const now = ctx.deps.now();
    return withEvents(request, recorderOf(ctx.deps), now, ctx.log, ETCDBACKUP_EVENTS, () => sync(request, ctx.deps.image, now), (response) => backupWritten(request, response));
  },
  customize: (request) => customize(request),
};

export const etcdrestore: CompositeHookDefinition = {
  type: 'composite',
  name: 'etcdrestore',
  resource: restoreResource,
  childResources: [],
  sync: (request, ctx) => {
    const now = ctx.deps.now();
    return withEvents(request, recorderOf(ctx.deps), now, ctx.log, ETCDRESTORE_EVENTS, () => syncRestore(request, now));
  },
  customize: (request) => customizeRestore(request),
};
