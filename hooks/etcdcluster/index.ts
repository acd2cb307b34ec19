import { jsonBytes, kib, namesBytes } from '../../lib/budget.js';
import { serviceRule } from '../../lib/children.js';
import type { RelatedResourceRule } from '../../lib/metacontroller.js';
import { defineComposite } from '../../lib/operator.js';
import { etcdClients, etcdSettings, etcdSettingsProblems } from '../etcdcommon/index.js';
import { tlsSecretNames } from './tls.js';
import { ETCDCLUSTER_EVENTS, upgradeEvents } from './events.js';
import { MAX_SIZE, resource } from './schema.js';
import { finalize, parser, sync } from './sync.js';

export const etcdcluster = defineComposite({
  name: 'etcdcluster',
  resource,
  spec: parser,
  clients: etcdClients,
  settings: etcdSettings,
  // Up to one pod (and claim) more than the most members a cluster may have, each repeating spec.pod, the image and
  // the names; two Services and a PodDisruptionBudget.
  answerBudget: {
    estimate: (spec, parent) => {
      // A pod repeats spec.pod (its claim spec goes to the claim instead), the image twice, the TLS Secrets' names.
      const perMember =
        8192 +
        namesBytes(parent) +
        jsonBytes(spec.pod) +
        jsonBytes(spec.pod?.persistentVolumeClaimSpec) +
        2 * (jsonBytes(spec.repository) + jsonBytes(spec.version)) +
        2 * jsonBytes(spec.TLS);
      return {
        bytes: (MAX_SIZE + 1) * perMember + 3 * (2048 + namesBytes(parent)),
        what: `${MAX_SIZE + 1} members of ~${kib(perMember)} each (spec.pod)`,
      };
    },
    advice: 'make spec.pod smaller',
  },
  configProblems: etcdSettingsProblems,
  childResources: [
    {
      apiVersion: 'v1',
      resource: 'pods',
      updateStrategy: { method: 'InPlace' },
      why: 'the hook rolls members itself, one at a time; in place changes only the image of the member it chose (a pod image is mutable), every other field stays as the pod was created',
    },
    serviceRule,
    {
      apiVersion: 'policy/v1',
      resource: 'poddisruptionbudgets',
      updateStrategy: { method: 'InPlace' },
      why: 'the budget follows the size (a quorum of it stays through node drains); changing it in place never evicts anything',
    },
    {
      apiVersion: 'v1',
      resource: 'persistentvolumeclaims',
      updateStrategy: { method: 'OnDelete' },
      why: 'a member data volume is never replaced or changed under a running member',
    },
  ],
  resyncPeriodSeconds: 30,
  effects: true,
  // Events (lib/events.ts): the membership changes made, the upgrade steps answered, the conditions changed.
  events: ETCDCLUSTER_EVENTS,
  eventsOf: upgradeEvents,
  sync,
  finalize: ({ request }) => finalize(request),
  customize: (request) => {
    // The EtcdRestores of the namespace (a restore naming this cluster replaces it), and the TLS Secrets (checked
    // before any pod that mounts them is made, and the operator's client certificate).
    const names = [...new Set(Object.values(tlsSecretNames(request.parent?.['spec'])))].sort();
    // Confined to the cluster's namespace: a rule without one lists every namespace in v4.17
    // (pkg/controller/common/customize/manager.go L665-683), with names or without.
    const namespace = request.parent?.metadata.namespace ?? '';
    const rules: RelatedResourceRule[] = [
      { apiVersion: 'etcd.database.coreos.com/v1beta2', resource: 'etcdrestores', namespace },
    ];
    if (names.length) rules.push({ apiVersion: 'v1', resource: 'secrets', namespace, names });
    return { relatedResources: rules };
  },
});
