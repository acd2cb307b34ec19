import { defineComposite } from '../../lib/operator.js';
import { resource } from './schema.js';
import { answerBudget, parser, sync } from './sync.js';

export const podset = defineComposite({
  name: 'podset',
  resource,
  spec: parser,
  answerBudget,
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
  sync,
});
