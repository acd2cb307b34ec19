import { jsonBytes, namesBytes } from '../../lib/budget.js';
import { serviceRule } from '../../lib/children.js';
import { defineComposite } from '../../lib/operator.js';
import { resource } from './schema.js';
import { customize, invalid, nameProblem, parser, sync, versionTypeProblem } from './sync.js';

export const mysqlcluster = defineComposite({
  name: 'mysqlcluster',
  resource,
  spec: parser,
  specProblem: versionTypeProblem,
  parentProblem: nameProblem,
  invalidSpec: invalid,
  // A StatefulSet (with its scripts), three Services and a Secret: their fixed fields, the spec's strings, the names.
  answerBudget: {
    estimate: (spec, parent) => ({
      bytes: 32 * 1024 + 5 * namesBytes(parent) + 4 * jsonBytes(spec.version) + jsonBytes(spec.storage),
      what: 'a StatefulSet, its Services and Secret',
    }),
    advice: 'shorten spec.version or spec.storage',
  },
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
  sync,
  customize,
});
