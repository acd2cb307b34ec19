// PodSet, apps.jicki.cn/v1alpha1: a set of `size` pods owned directly, named by ordinal.
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

export const PODSET_IMAGE = 'busybox';
export const DEFAULT_COMMAND = ['sleep', '3600'];
export const MAX_ARGUMENTS = 64;
/** The most pods a PodSet may have: pods owned one by one; an answer of 1000 pods is ~1.5 MB, and the status names each. */
export const MAX_SIZE = 1000;

export const MAX_ARGUMENT_LENGTH = 4096;
/** A rollout's pod proves its template by staying Ready this long (spec.minReadySeconds' default, and its bound). */
export const DEFAULT_MIN_READY_SECONDS = 10;
export const MAX_MIN_READY_SECONDS = 3600;
/**
 * The most a PodSet's answer may weigh: every pod repeats the image and the command, so `size` times their
 * length is bounded too (a 1000-pod PodSet with a 100 KB image once made a 100 MB answer and 385 MB of RSS).
 */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export const PodSetSpec = Type.Object(
  {
    size: sizeField('Size is the size of the PodSet deployment: the number of pods.', MAX_SIZE),
    image: imageField('The container image of every pod.', PODSET_IMAGE),
    command: Type.Array(Type.String({ maxLength: MAX_ARGUMENT_LENGTH }), {
      minItems: 1,
      maxItems: MAX_ARGUMENTS,
      default: DEFAULT_COMMAND,
      description: `The command every pod runs (at most ${MAX_ARGUMENTS} arguments of ${MAX_ARGUMENT_LENGTH} characters).`,
    }),
    minReadySeconds: Type.Integer({
      minimum: 0,
      maximum: MAX_MIN_READY_SECONDS,
      default: DEFAULT_MIN_READY_SECONDS,
      description:
        "How long a pod made from a changed template must stay Ready before the rollout replaces the next pod (as a Deployment's minReadySeconds): a command that crashes sooner after it starts stops the rollout at that pod. 0: Ready is enough.",
    }),
    progressDeadlineSeconds: progressDeadlineField('pods'),
  },
  { description: 'PodSetSpec defines the desired state of PodSet.' },
);
export type PodSetSpec = Static<typeof PodSetSpec>;

export const PodSetStatus = replicatedStatus({
  heldBy: Type.Optional(heldBySchema()),
  updatedReplicas: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: 'Pods made from the current template (the rest are replaced one at a time).',
    }),
  ),
  templateHash: Type.Optional(
    Type.String({
      maxLength: 63,
      description: 'The current template: the value of the metaops.dev/template-hash label its pods carry.',
    }),
  ),
});

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
    {
      name: 'UP-TO-DATE',
      type: 'integer',
      jsonPath: '.status.updatedReplicas',
      description: 'Pods made from the current template.',
    },
    commonPrinterColumns.status,
    commonPrinterColumns.age,
  ],
};
