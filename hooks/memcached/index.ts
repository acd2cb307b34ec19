import { namesBytes } from '../../lib/budget.js';
import { serviceRule } from '../../lib/children.js';
import { defineComposite } from '../../lib/operator.js';
import { resource } from './schema.js';
import { customize, nameProblem, parser, sync } from './sync.js';

export const memcached = defineComposite({
  name: 'memcached',
  resource,
  spec: parser,
  parentProblem: nameProblem,
  // A Deployment and a Service: their fixed fields, the image and the names.
  answerBudget: {
    estimate: (spec, parent) => ({
      bytes: 2 * (4096 + namesBytes(parent)) + spec.image.length,
      what: 'a Deployment and a Service',
    }),
    advice: 'shorten spec.image',
  },
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
