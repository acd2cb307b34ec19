import {
  type ChildName,
  defineComposite,
  type DerivedName,
  jsonBytes,
  namesBytes,
  parentLabelWarnings,
  parentNameProblem,
  type ParentObject,
} from '../../lib/index.js';
import { etcdSettings } from '../etcdcommon/index.js';
import { tenancyProblems } from '../etcdcommon/tenancy.js';
import { backupWritten, ETCDBACKUP_EVENTS, ETCDRESTORE_EVENTS } from './events.js';
import { invalidBackup } from './refused.js';
import { customize as customizeRestore, parser as restoreParser, sync as syncRestore } from './restore.js';
import { backupResource, restoreResource } from './schema.js';
import { customize, MAX_SPARED, parser, sync } from './sync.js';

/**
 * The names an EtcdBackup's name makes: its Job or CronJob `<name>-backup` (the Job's pods carry its name in a label;
 * the CronJob controller adds 11 characters to the Jobs it makes) and the label of its instance.
 */
export function backupNameProblem(parent: ParentObject): string | undefined {
  const interval = (parent.spec as { backupPolicy?: { backupIntervalInSecond?: unknown } } | undefined)?.backupPolicy
    ?.backupIntervalInSecond;
  const names: DerivedName[] = [
    { what: 'label app.kubernetes.io/instance', rule: 'labelValue' },
    { what: 'label job-name', rule: 'labelValue', suffix: '-backup' },
  ];
  if (typeof interval === 'number' && interval > 0)
    names.push({
      what: 'CronJob',
      rule: 'dns1123Subdomain',
      suffix: '-backup',
      max: 52,
      why: 'the CronJob controller names its Jobs after it with 11 more characters',
    });
  return parentNameProblem(parent.metadata.name ?? '', names);
}

/** The names an EtcdBackup's children may take, asked for by name (lib/ownership.ts). */
export function backupChildNames(parent: ParentObject): ChildName[] {
  const name = `${parent.metadata.name ?? ''}-backup`;
  return [
    { apiVersion: 'batch/v1', kind: 'Job', name },
    { apiVersion: 'batch/v1', kind: 'CronJob', name },
  ];
}

export const etcdbackup = defineComposite({
  name: 'etcdbackup',
  resource: backupResource,
  spec: parser,
  parentProblem: backupNameProblem,
  childNames: backupChildNames,
  // A name refused for its children (InvalidSpec for good: a name cannot change) makes nothing: it holds no name from
  // a parent of another kind (lib/holders.ts holderWants).
  nameRefused: (holder) => backupNameProblem(holder as ParentObject) !== undefined,
  // The Job or CronJob `<name>-backup` (lib/holders.ts).
  nameShapes: [
    { apiVersion: 'batch/v1', kind: 'Job', suffix: '-backup' },
    { apiVersion: 'batch/v1', kind: 'CronJob', suffix: '-backup' },
  ],
  // The image of the backup Job (the backup itself runs there, not in the hook), and where backups may reach.
  settings: etcdSettings,
  configProblems: tenancyProblems,
  // Without a key, the label by which its pods are asked for can be computed (lib/parent-label.ts).
  configWarnings: parentLabelWarnings,
  // A spec refused before the sync keeps only the Job or CronJob today's tenancy rules allow (refused.ts).
  invalidSpec: invalidBackup,
  // One Job or CronJob: its fixed fields, the spec (endpoints, S3 location, Secret names) twice, the names, and the
  // snapshots its prune spares (at most MAX_SPARED keys of an S3 path's length).
  answerBudget: {
    estimate: (spec, parent) => ({
      bytes: 8192 + namesBytes(parent) + 2 * jsonBytes(spec) + MAX_SPARED * (1088 + 16),
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
