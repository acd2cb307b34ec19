// PodSet, apps.jicki.cn/v1alpha1: a set of `size` pods owned directly, named by ordinal.
import { Type, type Static } from '@sinclair/typebox';
import type { ResourceDefinition } from '../../lib/hook.js';
import { commonPrinterColumns, MAX_SIZE, replicatedStatus, sizeField } from '../../lib/schemas.js';

export const DEFAULT_IMAGE = 'busybox';
export const DEFAULT_COMMAND = ['sleep', '3600'];

export const PodSetSpec = Type.Object(
  {
    size: sizeField('Size is the size of the PodSet deployment: the number of pods.', MAX_SIZE.podset),
    image: Type.String({ minLength: 1, default: DEFAULT_IMAGE, description: 'The container image of every pod.' }),
    command: Type.Array(Type.String(), {
      minItems: 1,
      default: DEFAULT_COMMAND,
      description: 'The command every pod runs.',
    }),
  },
  { description: 'PodSetSpec defines the desired state of PodSet.' },
);
export type PodSetSpec = Static<typeof PodSetSpec>;

export const PodSetStatus = replicatedStatus({});

export const resource: ResourceDefinition = {
  group: 'apps.jicki.cn',
  version: 'v1alpha1',
  kind: 'PodSet',
  plural: 'podsets',
  singular: 'podset',
  shortNames: ['ps'],
  scope: 'Namespaced',
  categories: ['metaops'],
  description: 'PodSet is the Schema for the podsets API: a set of pods of a given size.',
  spec: PodSetSpec,
  status: PodSetStatus,
  scale: true,
  printerColumns: [
    commonPrinterColumns.size('pods'),
    commonPrinterColumns.ready,
    commonPrinterColumns.status,
    commonPrinterColumns.age,
  ],
};
