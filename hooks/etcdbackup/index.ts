import { jsonBytes, namesBytes } from '../../lib/budget.js';
import { defineComposite } from '../../lib/operator.js';
import { etcdSettings } from '../etcdcommon/index.js';
import { tenancyProblems } from '../etcdcommon/tenancy.js';
import { backupWritten, ETCDBACKUP_EVENTS, ETCDRESTORE_EVENTS } from './events.js';
import { customize as customizeRestore, parser as restoreParser, sync as syncRestore } from './restore.js';
import { backupResource, restoreResource } from './schema.js';
import { customize, parser, sync } from './sync.js';

export const etcdbackup = defineComposite({
  name: 'etcdbackup',
  resource: backupResource,
  spec: parser,
  // The image of the backup Job (the backup itself runs there, not in the hook), and where backups may reach.
  settings: etcdSettings,
  configProblems: tenancyProblems,
  // One Job or CronJob: its fixed fields, the spec (endpoints, S3 location, Secret names) twice, the names.
  answerBudget: {
    estimate: (spec, parent) => ({
      bytes: 8192 + namesBytes(parent) + 2 * jsonBytes(spec),
      what: 'a backup Job or CronJob',
    }),
    advice: 'shorten spec.etcdEndpoints or spec.s3',
  },
  childResources: [
    {
      apiVersion: 'batch/v1',
      resource: 'jobs',
      updateStrategy: { method: 'OnDelete' },
      why: 'a one-off backup Job runs once as created; a Job template cannot change anyway',
    },
    {
      apiVersion: 'batch/v1',
      resource: 'cronjobs',
      updateStrategy: { method: 'InPlace' },
      why: 'a periodic backup schedule or target changes in place, without losing the CronJob history',
    },
  ],
  // Pure: the answer is sync's; Events (lib/events.ts) only for an authenticated caller.
  events: ETCDBACKUP_EVENTS,
  eventsOf: (request) => (response) => backupWritten(request, response),
  sync,
  customize,
});

export const etcdrestore = defineComposite({
  name: 'etcdrestore',
  resource: restoreResource,
  spec: restoreParser,
  // Where a restore may come from (hooks/etcdcommon/tenancy.ts).
  settings: etcdSettings,
  // No children: the restore is carried out by the EtcdCluster's hook.
  answerBudget: { estimate: () => ({ bytes: 0, what: 'no children' }), advice: '' },
  childResources: [],
  events: ETCDRESTORE_EVENTS,
  sync: syncRestore,
  customize: customizeRestore,
});
