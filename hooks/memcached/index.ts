import { serviceRule } from '../../lib/children.js';
import type { CompositeHookDefinition } from '../../lib/hook.js';
import { resource } from './schema.js';
import { customize, sync } from './sync.js';

export const memcached: CompositeHookDefinition = {
  type: 'composite',
  name: 'memcached',
  resource,
  childResources: [
    {
      apiVersion: 'apps/v1',
      resource: 'deployments',
      updateStrategy: { method: 'InPlace' },
      why: 'the Deployment rolls its own pods; updating it in place keeps the cache up during a change',
    },
    serviceRule,
  ],
  sync: (request, ctx) => sync(request, ctx.deps.now()),
  customize: (request) => customize(request),
};
