// Memcached, cache.example.com/v1alpha1: the Operator SDK tutorial's resource.
import { Type, type Static } from '@sinclair/typebox';
import {
  commonPrinterColumns,
  heldBySchema,
  imageField,
  progressDeadlineField,
  replicatedStatus,
  type ResourceDefinition,
  sizeField,
} from '../../lib/index.js';

export const MEMCACHED_IMAGE = 'memcached:1.6-alpine';
export const DEFAULT_PORT = 11211;
/** The most pods a Memcached may have: a Deployment's replicas; the status names each pod. */
export const MAX_SIZE = 1000;

export const MemcachedSpec = Type.Object(
  {
    size: sizeField('Size is the size of the memcached deployment: the number of memcached pods.', MAX_SIZE),
    image: imageField('The memcached container image.', MEMCACHED_IMAGE),
    port: Type.Integer({
      minimum: 1,
      maximum: 65535,
      default: DEFAULT_PORT,
      description: 'The port memcached listens on.',
    }),
    progressDeadlineSeconds: progressDeadlineField('pods'),
  },
  { description: 'MemcachedSpec defines the desired state of Memcached.' },
);
export type MemcachedSpec = Static<typeof MemcachedSpec>;

export const MemcachedStatus = replicatedStatus({
  serviceName: Type.Optional(
    Type.String({
      description:
        'The Service in front of the pods: <name>-memcached (<name> for a Memcached made before the suffix, which keeps it).',
    }),
  ),
  podsLabel: Type.Optional(
    Type.String({
      maxLength: 63,
      description:
        'The value of the label memcached.metaops.io/parent-id every pod of the Deployment carries, by which its pods are asked for (docs/memcached.md).',
    }),
  ),
  heldBy: Type.Optional(heldBySchema()),
});

export const resource: ResourceDefinition = {
  group: 'cache.example.com',
  version: 'v1alpha1',
  kind: 'Memcached',
  plural: 'memcacheds',
  singular: 'memcached',
  shortNames: ['mc'],
  scope: 'Namespaced',
  categories: ['metaops'],
  description: 'Memcached is a memcached Deployment and Service of a given size (the Operator SDK tutorial).',
  spec: MemcachedSpec,
  status: MemcachedStatus,
  scale: true,
  printerColumns: [
    commonPrinterColumns.size('pods'),
    commonPrinterColumns.ready,
    commonPrinterColumns.status,
    commonPrinterColumns.age,
  ],
};
