import { serviceRule } from '../../lib/children.js';
import type { CompositeHookDefinition } from '../../lib/hook.js';
import { resource } from './schema.js';
import { customize, sync } from './sync.js';

export const mysqlcluster: CompositeHookDefinition = {
  type: 'composite',
  name: 'mysqlcluster',
  resource,
  childResources: [
    {
      apiVersion: 'apps/v1',
      resource: 'statefulsets',
      updateStrategy: { method: 'InPlace' },
      why: 'the StatefulSet rolls its members one at a time itself and keeps their volumes; it must never be recreated',
    },
    serviceRule,
    {
      apiVersion: 'v1',
      resource: 'secrets',
      updateStrategy: { method: 'InPlace' },
      why: 'the hook re-emits the observed password; in place keeps labels current without replacing the Secret',
    },
  ],
  sync: (request, ctx) => sync(request, ctx.deps.now(), () => ctx.deps.randomSecret(24)),
  customize: (request) => customize(request),
};
