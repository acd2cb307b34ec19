// Greeting, toy.metaops.dev/v1: an operator that exists only for test/lib/toy-operator.test.ts, to prove that an
// operator is one folder and one line in a list. It owns a ConfigMap holding its message, translated by a client.
import { Type, type Static } from '@sinclair/typebox';
import type { ResourceDefinition } from '../../lib/index.js';

export const GreetingSpec = Type.Object({
  message: Type.String({ minLength: 1, maxLength: 200, description: 'What to say.' }),
  shout: Type.Boolean({ default: false, description: 'Say it in capitals.' }),
});
export type GreetingSpec = Static<typeof GreetingSpec>;

export const resource: ResourceDefinition = {
  group: 'toy.metaops.dev',
  version: 'v1',
  kind: 'Greeting',
  plural: 'greetings',
  singular: 'greeting',
  scope: 'Namespaced',
  description: 'A greeting kept in a ConfigMap.',
  spec: GreetingSpec,
  status: Type.Object({ said: Type.Optional(Type.String()) }, { additionalProperties: true }),
  printerColumns: [{ name: 'Said', type: 'string', jsonPath: '.status.said' }],
};
