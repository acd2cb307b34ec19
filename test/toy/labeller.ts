// A toy decorator, defined only here: it labels the pods of its namespace with the size of a related ConfigMap's
// data, through defineDecorator (lib/operator.ts), the same front door as the toy composite. Nothing in lib/ knows it.
import { PermanentError, TemporaryError, observed, defineDecorator } from '../../lib/index.js';

export const labeller = defineDecorator({
  name: 'labeller',
  resources: [
    {
      apiVersion: 'v1',
      resource: 'pods',
      labelSelector: { matchLabels: { labelled: 'yes' } },
      ignoreStatusChanges: true,
    },
  ],
  attachments: [
    { apiVersion: 'v1', resource: 'configmaps', updateStrategy: { method: 'InPlace' }, why: 'a note per pod' },
  ],
  settings: ({ env }) => ({ prefix: env['TOY_PREFIX'] ?? 'toy' }),
  clients: () => ({ counter: () => ({ count: async (n: number) => n }) }),
  resyncPeriodSeconds: 30,
  sync: async ({ object, related, attachments, settings, clients, signal }) => {
    if (object.metadata.labels?.['broken'] === 'temporary')
      throw new TemporaryError('NotYet', 'the pod is not ready to be labelled', { retryAfterSeconds: 4 });
    if (object.metadata.labels?.['broken'] === 'permanent')
      throw new PermanentError('Never', 'this pod is never labelled');
    if (object.metadata.labels?.['broken'] === 'bug') throw new Error('a bug');
    if (signal.aborted) throw new TemporaryError('Late', 'the deadline passed');
    const maps = observed(related, 'ConfigMap', 'v1');
    const size = await clients.counter().count(maps.length);
    return {
      labels: { [`${settings.prefix}/maps`]: String(size) },
      attachments: observed(attachments, 'ConfigMap', 'v1').map((c) => ({ ...c, data: { seen: 'yes' } })),
    };
  },
  finalize: ({ object }) => ({ labels: { [`gone`]: object.metadata.name ?? '' }, attachments: [], finalized: true }),
  customize: (request) => ({
    relatedResources: [
      { apiVersion: 'v1', resource: 'configmaps', namespace: request.object?.metadata?.namespace ?? '' },
    ],
  }),
  manifests: () => [
    {
      file: 'toy/labeller.yaml',
      comment: 'A note\nover two lines',
      objects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }],
    },
  ],
});
