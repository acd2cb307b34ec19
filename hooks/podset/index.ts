import type { CompositeHookDefinition } from '../../lib/hook.js';
import { resource } from './schema.js';
import { sync } from './sync.js';

export const podset: CompositeHookDefinition = {
  type: 'composite',
  name: 'podset',
  resource,
  childResources: [
    {
      apiVersion: 'v1',
      resource: 'pods',
      updateStrategy: {
        method: 'RollingRecreate',
        statusChecks: { conditions: [{ type: 'Ready', status: 'True' }] },
      },
      why: "a pod's containers cannot be changed in place; a new image or command replaces pods one at a time, each after the previous one is Ready",
    },
  ],
  sync: (request, ctx) => sync(request, ctx.deps.now()),
};
