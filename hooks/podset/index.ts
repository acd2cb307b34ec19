import {
  defineComposite,
  degradedEvent,
  namespacePolicyRules,
  networkPolicyRule,
  ordinalPodNames,
  workloadNetworkProblems,
  workloadNetworkSettings,
} from '../../lib/index.js';
import { MAX_SIZE, resource } from './schema.js';
import {
  answerBudget,
  childNames,
  finalize,
  kept,
  namingsByStatus,
  nameProblem,
  parser,
  served,
  sync,
} from './sync.js';

export const podset = defineComposite({
  name: 'podset',
  resource,
  spec: parser,
  answerBudget,
  parentProblem: nameProblem,
  childNames,
  // A pod name an EtcdCluster, a MySQLCluster or another PodSet holds stays held while its holder exists and wants
  // it, even while its pod is gone for a moment (lib/podholders.ts): customize asks for those parents by name
  // (lib/holders.ts holderRules, added by defineComposite). Its children besides its pods: the NetworkPolicy
  // `<name>-podset` (a parent of another kind held for that name judges this PodSet).
  nameShapes: [{ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', suffix: '-podset' }],
  // Whether its pods get a NetworkPolicy (METAOPS_WORKLOAD_NETWORK_POLICY, lib/network-policy.ts).
  settings: workloadNetworkSettings,
  configProblems: workloadNetworkProblems,
  // Its pods do not depend on one another: a pod name another owner holds is the one pod not made; every other pod
  // is answered as the sync made it (a lost one made again under its free name).
  independentChildren: true,
  // Made together with a parent made before it that wants its pod names (EtcdCluster `<name>-pod`), it yields when
  // none of its pods ever ran (served): it releases those pods and makes the others.
  served,
  // Pods are `<name>-pod-<i>` (`<name>-<i>` before the `-pod-`), the ordinals below spec.size; a PodSet wants them
  // under the namings it may use (its status.nodes says which; both when its status is lost; none its name cannot
  // make).
  podNames: {
    suffixes: ['-pod', ''],
    wants: (holder) =>
      ordinalPodNames(
        holder,
        namingsByStatus(holder).map((legacy) => (legacy ? '' : '-pod')),
        MAX_SIZE,
      ),
  },
  // Events (lib/events.ts): a pod name held by another owner, a spec refused, pods missing past the progress deadline
  // (refused by a quota or an admission webhook), pods not made because their syncs would be past the body limit
  // (RequestTooLarge: sync.ts podsThatFit), and pods that start failing (Degraded: named with their reason).
  events: {
    action: 'Reconcile',
    warnings: new Set([
      'PodNameTaken',
      'NetworkPolicyNameTaken',
      'InvalidSpec',
      'ProgressDeadlineExceeded',
      'RequestTooLarge',
      // Its pods run without their NetworkPolicy a minute after it was asked for (lib/network-policy.ts).
      'NetworkPolicyNotCreated',
    ]),
    // Deleted: its NetworkPolicy kept while its pods stop (lib/policy-at-deletion.ts).
    normals: new Set(['KeepingNetworkPolicy']),
  },
  eventsOf: (request) => (response) => {
    const failing = degradedEvent(request.parent, response.status);
    return failing ? [failing] : [];
  },
  // Its sync requests carry every pod as stored: pods that grew after they were made (all crashing with long
  // termination messages, a sidecar added since) can take them past the body limit (docs/podset.md, Bounds).
  tooLarge:
    'its pods as the API server stores them are more than a sync request may carry (pods that grew after they were made: containers that crash with long termination messages, up to 4 KiB each in state and again in lastState, a sidecar added since); the pods are kept, none is made again, replaced or deleted until they are lighter or fewer: fix what makes them crash, or lower spec.size (docs/podset.md, Bounds)',
  childResources: [
    {
      apiVersion: 'v1',
      resource: 'pods',
      updateStrategy: { method: 'OnDelete' },
      why: 'the hook replaces outdated pods itself, one at a time (hooks/podset/rollout.ts), and Metacontroller only creates and deletes them: its RollingRecreate never finishes on v4 (docs/metacontroller.md)',
    },
    networkPolicyRule,
  ],
  sync,
  // Deleted: its pods go, their NetworkPolicy stays while any of them is observed, at most 120 s (sync.ts finalize).
  finalize,
  // A refused answer keeps the pods: they keep (or get) their NetworkPolicy (sync.ts kept).
  kept,
  // The NetworkPolicies of its namespace: where they govern its pods' egress it answers none (sync.ts governanceOf).
  customize: (request) => ({ relatedResources: namespacePolicyRules(request.parent) }),
});
