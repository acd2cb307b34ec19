// What the pods of a workload that runs a tenant's chosen image may reach: a NetworkPolicy child (networking.k8s.io/v1)
// for the kinds whose pods run it (PodSet: the spec's image and command; Memcached: the spec's image). Those pods run
// with Metacontroller's rights, in a namespace whose administrator may have set no NetworkPolicy because its tenants
// make no pods: without one, the tenant's code takes the node's credentials from the cloud's instance metadata service
// (the node's role, which every tenant's pods on that node share). The EtcdCluster members' policy keeps the same
// addresses out (hooks/etcdcluster/network.ts). docs/podset.md, docs/memcached.md "Network policy".
import type { ChildResourceRule } from './hook.js';
import { childLabels } from './labels.js';
import type { KubeObject, ParentObject } from './metacontroller.js';

/** The instance metadata addresses of the clouds (AWS, GCP, Azure, OpenStack: 169.254.169.254; AWS's and GCP's IPv6 ones). */
export const METADATA_V4 = '169.254.169.254/32';
export const METADATA_V6 = ['fd00:ec2::254/128', 'fd20:ce::254/128'];

/**
 * The server setting that turns the workloads' NetworkPolicy off (`false`): on by default. One for every kind whose
 * pods run a tenant's image (PodSet, Memcached): what decides it (a CNI that enforces no NetworkPolicy, admins who write
 * their own egress policies) is the cluster's, not the kind's.
 */
export const WORKLOAD_NETWORK_POLICY_SETTING = 'METAOPS_WORKLOAD_NETWORK_POLICY';

/** The settings of a kind that answers the workload NetworkPolicy. */
export interface WorkloadNetworkSettings {
  /** Whether the hook answers its pods' NetworkPolicy (METAOPS_WORKLOAD_NETWORK_POLICY; absent: yes). */
  workloadNetworkPolicy?: boolean;
}

/** METAOPS_WORKLOAD_NETWORK_POLICY: true unless `false` or `0`. */
export function workloadNetworkSettings({ env }: { env: NodeJS.ProcessEnv }): WorkloadNetworkSettings {
  const text = (env[WORKLOAD_NETWORK_POLICY_SETTING] ?? '').trim().toLowerCase();
  return { workloadNetworkPolicy: !(text === 'false' || text === '0') };
}

/** What is wrong with the setting (the server refuses to start). */
export function workloadNetworkProblems(env: NodeJS.ProcessEnv): string[] {
  const raw = env[WORKLOAD_NETWORK_POLICY_SETTING];
  if (raw === undefined || raw.trim() === '' || ['true', 'false', '1', '0'].includes(raw.trim().toLowerCase()))
    return [];
  return [`${WORKLOAD_NETWORK_POLICY_SETTING}=${JSON.stringify(raw)}: expected true or false`];
}

/** The child rule of the policy (InPlace: a change of who may be reached restarts nothing). */
export const networkPolicyRule: ChildResourceRule = {
  apiVersion: 'networking.k8s.io/v1',
  resource: 'networkpolicies',
  updateStrategy: { method: 'InPlace' },
  why: "what the pods running the spec's image may reach (not the instance metadata service); changing it in place restarts nothing",
};

/**
 * The NetworkPolicy of a workload's pods, named `<parent><suffix>`, or undefined when the server's setting turns it off.
 * It selects `pods` (exactly the parent's pods: the labels only they carry) and says nothing of who may reach them
 * (policyTypes Egress only: ingress stays what the namespace's own policies say, open where they say nothing: these
 * pods serve clients; an Ingress rule here would open pods a namespace's default-deny closes). Their way out: every
 * address but the instance metadata service, and every pod of every namespace (a CNI may not match pod addresses by
 * ipBlock). As the API server stores it (no field it defaults left out), so that at rest the answer is what is stored.
 */
export function workloadNetworkPolicy(
  parent: ParentObject,
  options: { app: string; suffix: string; pods: Record<string, string>; settings: WorkloadNetworkSettings | undefined },
): KubeObject | undefined {
  if (options.settings?.workloadNetworkPolicy === false) return undefined;
  const name = parent.metadata.name!;
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: `${name}${options.suffix}`,
      namespace: parent.metadata.namespace,
      labels: childLabels(options.app, name, 'network-policy'),
    },
    spec: {
      podSelector: { matchLabels: { ...options.pods } },
      policyTypes: ['Egress'],
      egress: [
        {
          to: [
            { ipBlock: { cidr: '0.0.0.0/0', except: [METADATA_V4] } },
            { ipBlock: { cidr: '::/0', except: [...METADATA_V6] } },
            { namespaceSelector: {} },
          ],
        },
      ],
    },
  };
}
