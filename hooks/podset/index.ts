import { defineComposite } from '../../lib/index.js';
import { resource } from './schema.js';
import { answerBudget, childNames, nameProblem, parser, sync } from './sync.js';

export const podset = defineComposite({
  name: 'podset',
  resource,
  spec: parser,
  answerBudget,
  parentProblem: nameProblem,
  childNames,
  childResources: [
    {
      apiVersion: 'v1',
      resource: 'pods',
      updateStrategy: { method: 'OnDelete' },
      why: 'the hook replaces outdated pods itself, one at a time (hooks/podset/rollout.ts), and Metacontroller only creates and deletes them: its RollingRecreate never finishes on v4 (docs/metacontroller.md)',
    },
  ],
  sync,
});
