// Crew, toy.metaops.dev/v1: an operator that exists only for test/lib/pod-names-declared.test.ts, to prove that a
// kind whose parents name pods declares it in its own definition (`podNames`) and is judged by the other kinds that
// declare pod names, without touching lib/. A Crew `web` of size 2 names its pods `web-pod-0` and `web-pod-1`, as
// PodSet `web` does.
import { Type } from '@sinclair/typebox';
import { type ResourceDefinition, ordinalPodNames, defineComposite, specParser } from '../../lib/index.js';

const CrewSpec = Type.Object({ size: Type.Integer({ minimum: 0, maximum: 5, description: 'How many pods.' }) });

export const crewResource: ResourceDefinition = {
  group: 'toy.metaops.dev',
  version: 'v1',
  kind: 'Crew',
  plural: 'crews',
  singular: 'crew',
  scope: 'Namespaced',
  description: 'Pods named <name>-pod-<i>.',
  spec: CrewSpec,
  status: Type.Object({}, { additionalProperties: true }),
  printerColumns: [],
};

export const crew = defineComposite({
  name: 'crew',
  resource: crewResource,
  spec: specParser(CrewSpec),
  podNames: { suffixes: ['-pod'], wants: (holder) => ordinalPodNames(holder, ['-pod'], 5) },
  childResources: [{ apiVersion: 'v1', resource: 'pods', updateStrategy: { method: 'OnDelete' }, why: 'a toy' }],
  sync: () => ({ status: {}, children: [] }),
});
