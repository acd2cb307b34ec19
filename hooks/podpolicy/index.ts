import {
  defineDecorator,
  PODS_POLICY_LABELS,
  podsPolicyCustomize,
  podsPolicyFinalize,
  podsPolicyFinalizeOversized,
  podsPolicySync,
} from '../../lib/index.js';

/**
 * The pods' NetworkPolicies kept while their pods stop (`/hooks/pod-network-policy/...`): a DecoratorController on the
 * NetworkPolicies metaops makes for pods that run a tenant's image (EtcdCluster's members and restore check, PodSet,
 * Memcached; selected by the labels they all carry), with a finalize hook. Metacontroller puts its finalizer on each
 * and removes it once no pod the policy selects is observed (at most 120 s after the policy's deletion), so that a
 * parent deleted with `--cascade=foreground`, whose children the garbage collector deletes at once, does not take the
 * policy from pods in their grace period (lib/policy-finalizer.ts, docs/operating.md "Tenants"). A finalize request too
 * large to read (the pods it selects more than the body limit) is answered from the policy's deletionTimestamp.
 */
export const podNetworkPolicy = defineDecorator({
  name: 'pod-network-policy',
  resources: [
    {
      apiVersion: 'networking.k8s.io/v1',
      resource: 'networkpolicies',
      labelSelector: { matchLabels: { ...PODS_POLICY_LABELS } },
    },
  ],
  attachments: [],
  // No attachments, labels, annotations or status: only whether the policy may go.
  answerBudget: { estimate: () => ({ bytes: 0, what: 'no attachments' }), advice: '' },
  sync: () => podsPolicySync(),
  finalize: (hook) => podsPolicyFinalize(hook.request, hook.now),
  // A finalize request over the body limit (more pods than a request may carry) is answered from the policy's
  // deletionTimestamp alone, so that the 120 s bound holds however many pods it selects (lib/hook-routes.ts).
  finalizeOversized: podsPolicyFinalizeOversized,
  customize: podsPolicyCustomize,
});
