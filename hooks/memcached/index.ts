import { serviceRule } from '../../lib/children.js';
import { defineComposite } from '../../lib/operator.js';
import { resource } from './schema.js';
import { customize, nameProblem, parser, sync } from './sync.js';

export const memcached = defineComposite({
  name: 'memcached',
  resource,
  spec: parser,
  parentProblem: nameProblem,
  childResources: [
    {
      apiVersion: 'apps/v1',
      resource: 'deployments',
      updateStrategy: { method: 'InPlace' },
      why: 'the Deployment rolls its own pods; updating it in place keeps the cache up during a change',
    },
    serviceRule,
  ],
  sync,
  customize,
});
