import {
  type ConditionEventRules,
  defineComposite,
  namesBytes,
  parentLabelSettings,
  parentLabelWarnings,
  networkPolicyRule,
  serviceRule,
  workloadNetworkProblems,
  workloadNetworkSettings,
} from '../../lib/index.js';
import { resource } from './schema.js';
import {
  childNames,
  currentNames,
  customize,
  finalize,
  kept,
  type MemcachedSettings,
  memcachedEvents,
  nameProblem,
  parser,
  relatedAtDeletion,
  served,
  sync,
} from './sync.js';

/** Memcached condition reasons told as Warning events (lib/events.ts); created, scaled and failing pods: sync.ts. */
export const MEMCACHED_EVENTS: ConditionEventRules = {
  action: 'Reconcile',
  warnings: new Set([
    'InvalidSpec',
    'ServiceNameTaken',
    'DeploymentNameTaken',
    'NetworkPolicyNameTaken',
    'FailedCreate',
    'ProgressDeadlineExceeded',
    // Its pods run without their NetworkPolicy a minute after it was asked for (lib/network-policy.ts).
    'NetworkPolicyNotCreated',
    // Its pods not asked for: they could not be sent within the body limit (sync.ts podsListed).
    'RequestTooLarge',
  ]),
  // Deleted: its pods' NetworkPolicy kept while they stop (lib/policy-at-deletion.ts).
  normals: new Set(['KeepingNetworkPolicy']),
};

export const memcached = defineComposite({
  name: 'memcached',
  resource,
  spec: parser,
  parentProblem: nameProblem,
  // The key of the label by which its pods are asked for (lib/parent-label.ts), and the line said without one.
  // Whether its pods get a NetworkPolicy (METAOPS_WORKLOAD_NETWORK_POLICY, lib/network-policy.ts).
  settings: (environment): MemcachedSettings => ({
    ...parentLabelSettings(environment),
    ...workloadNetworkSettings(environment),
  }),
  configProblems: workloadNetworkProblems,
  configWarnings: parentLabelWarnings,
  // A Deployment, a Service and a NetworkPolicy: their fixed fields, the image and the names.
  answerBudget: {
    estimate: (spec, parent) => ({
      bytes: 3 * (4096 + namesBytes(parent)) + spec.image.length,
      what: 'a Deployment, a Service and a NetworkPolicy',
    }),
    advice: 'shorten spec.image',
  },
  childNames,
  // One of the two Service names, by its status (a parent of another kind judges it by what it makes now).
  currentNames,
  // The Deployment `<name>`, the Service `<name>-memcached` (`<name>` before the suffix), the NetworkPolicy
  // `<name>-memcached`, lib/holders.ts: a parent of another kind held for one of them judges this Memcached.
  nameShapes: [
    { apiVersion: 'apps/v1', kind: 'Deployment' },
    { apiVersion: 'v1', kind: 'Service', suffix: '-memcached' },
    { apiVersion: 'v1', kind: 'Service' },
    { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', suffix: '-memcached' },
  ],
  childResources: [
    {
      apiVersion: 'apps/v1',
      resource: 'deployments',
      updateStrategy: { method: 'InPlace' },
      why: 'the Deployment rolls its own pods; updating it in place keeps the cache up during a change',
    },
    serviceRule,
    networkPolicyRule,
  ],
  events: MEMCACHED_EVENTS,
  // A Memcached being deleted tells only its finalize's Events (no Deployment "scaled" to none).
  eventsOf: (request) => (request.parent.metadata.deletionTimestamp ? () => [] : memcachedEvents(request)),
  sync,
  // Made together with a parent made before it that wants its Service name (EtcdCluster `<name>-memcached`), it yields
  // when none of its pods was ever Ready (served): it releases the Service, keeps its Deployment, and says why.
  served,
  // Deleted: the Deployment and Service go, the pods' NetworkPolicy stays while a pod it selects is observed, at
  // most 120 s (sync.ts finalize); customize still asks for the pods then.
  finalize,
  relatedAtDeletion,
  // A refused or held answer keeps the Deployment: its pods keep (or get) their NetworkPolicy (sync.ts kept).
  kept,
  customize,
});
