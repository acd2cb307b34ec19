// Who may reach an EtcdCluster's members, and what they may reach: a NetworkPolicy child (networking.k8s.io/v1)
// selecting the member pods. The members run the tenant's image (spec.repository, spec.version) with Metacontroller's
// rights, in a namespace whose administrator may have set no NetworkPolicy because its tenants make no pods: without
// one, every pod of every namespace reads a member's metrics and health (2381, plain HTTP also under TLS: the
// kubelet's probes ask it) and speaks to its peer port (2380), and the tenant's code in a member takes the node's
// credentials from the cloud's instance metadata service. docs/etcdcluster.md "Network policy".
import {
  childLabels,
  type KubeObject,
  METADATA_V4,
  METADATA_V6,
  type ParentObject,
  ruleProblem,
} from '../../lib/index.js';
import type { EtcdSettings } from '../etcdcommon/index.js';
import { ambientAllowed, tenancyOf } from '../etcdcommon/tenancy.js';
import { CLIENT_PORT, METRICS_PORT, PEER_PORT, selector } from './members.js';

/** The server setting that turns the members' NetworkPolicy off (`false`): on by default. */
export const NETWORK_POLICY_SETTING = 'METAOPS_ETCD_NETWORK_POLICY';
/** The server setting naming the namespaces (besides a cluster's own) whose pods may read members' metrics. */
export const METRICS_NAMESPACES_SETTING = 'METAOPS_ETCD_METRICS_NAMESPACES';

/** The NetworkPolicy's name: `<cluster>-members` (a tenant's own policy named as the cluster is not taken). */
export function networkPolicyName(cluster: string): string {
  return `${cluster}-members`;
}

/** The EtcdCluster hook's settings: the etcd family's, and the members' NetworkPolicy. */
export interface EtcdClusterSettings extends EtcdSettings {
  /** Whether the hook answers the members' NetworkPolicy (METAOPS_ETCD_NETWORK_POLICY; absent: yes). */
  memberNetworkPolicy?: boolean;
  /** Namespaces whose pods may read every cluster's metrics port besides its own (METAOPS_ETCD_METRICS_NAMESPACES). */
  metricsNamespaces?: readonly string[];
  /** Whether spec.pod.securityContext may name an SELinux level (METAOPS_POD_ALLOW_SELINUX_LEVEL; absent: no). */
  allowSeLinuxLevel?: boolean;
}

/** METAOPS_ETCD_NETWORK_POLICY: true unless `false` or `0`. */
export function memberNetworkPolicyOf(env: NodeJS.ProcessEnv): boolean {
  const text = (env[NETWORK_POLICY_SETTING] ?? '').trim().toLowerCase();
  return !(text === 'false' || text === '0');
}

/** METAOPS_ETCD_METRICS_NAMESPACES, comma-separated, sorted and without repeats. */
export function metricsNamespacesOf(env: NodeJS.ProcessEnv): string[] {
  const names = (env[METRICS_NAMESPACES_SETTING] ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  return [...new Set(names)].sort();
}

/** What is wrong with the two settings (the server refuses to start). */
export function networkSettingsProblems(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  const raw = env[NETWORK_POLICY_SETTING];
  if (raw !== undefined && raw.trim() !== '' && !['true', 'false', '1', '0'].includes(raw.trim().toLowerCase()))
    problems.push(`${NETWORK_POLICY_SETTING}=${JSON.stringify(raw)}: expected true or false`);
  for (const ns of metricsNamespacesOf(env))
    if (ruleProblem('dns1123Label', ns) !== undefined)
      problems.push(`${METRICS_NAMESPACES_SETTING}: ${JSON.stringify(ns)} is not a namespace`);
  if (metricsNamespacesOf(env).length > 64) problems.push(`${METRICS_NAMESPACES_SETTING}: at most 64 namespaces`);
  return problems;
}

/** The NetworkPolicy's settings (METAOPS_ETCD_NETWORK_POLICY, METAOPS_ETCD_METRICS_NAMESPACES). */
export function networkSettings(
  env: NodeJS.ProcessEnv,
): Pick<EtcdClusterSettings, 'memberNetworkPolicy' | 'metricsNamespaces'> {
  return { memberNetworkPolicy: memberNetworkPolicyOf(env), metricsNamespaces: metricsNamespacesOf(env) };
}

/**
 * The members' NetworkPolicy, or undefined when the server's setting turns it off. It selects the member pods as the
 * Services do (`own`: by INSTANCE_LABEL once every member carries it, sync.ts servicesSelectOwn) and lets in:
 * - the client port 2379 from anywhere, as before (the cluster's clients; TLS protects it when spec.TLS asks);
 * - the peer port 2380 from the cluster's own members only (same selector);
 * - the metrics port 2381 from pods of the cluster's namespace and of the namespaces the server names
 *   (METAOPS_ETCD_METRICS_NAMESPACES: a Prometheus). The kubelet's probes come from the node, which the CNIs that
 *   enforce NetworkPolicy let in whatever the policy says (docs/etcdcluster.md);
 * and lets out everything but the instance metadata service (169.254.169.254, fd00:ec2::254, fd20:ce::254): every address outside
 * those, and every pod of every namespace (a CNI may not match pod addresses by ipBlock). A namespace the server lets
 * use the node's own credentials (METAOPS_BACKUP_AMBIENT_CREDENTIALS: a restored member's fetch step without an
 * awsSecret asks the metadata service for them) keeps the metadata service.
 */
export function memberNetworkPolicy(
  parent: ParentObject,
  settings: Partial<EtcdClusterSettings>,
  own: boolean,
): KubeObject | undefined {
  if (settings.memberNetworkPolicy === false) return undefined;
  const name = parent.metadata.name!;
  const namespace = parent.metadata.namespace ?? 'default';
  const members = { matchLabels: selector(name, own) };
  const metricsFrom: unknown[] = [{ podSelector: {} }];
  const others = (settings.metricsNamespaces ?? []).filter((n) => n !== namespace);
  if (others.length)
    metricsFrom.push({
      namespaceSelector: {
        matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [...others] }],
      },
    });
  const metadata = ambientAllowed(tenancyOf(settings), namespace);
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: networkPolicyName(name),
      namespace: parent.metadata.namespace,
      labels: childLabels('etcd', name, 'network-policy'),
    },
    spec: {
      podSelector: members,
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        { ports: [{ protocol: 'TCP', port: CLIENT_PORT }] },
        { from: [{ podSelector: members }], ports: [{ protocol: 'TCP', port: PEER_PORT }] },
        { from: metricsFrom, ports: [{ protocol: 'TCP', port: METRICS_PORT }] },
      ],
      egress: [
        {
          to: [
            { ipBlock: metadata ? { cidr: '0.0.0.0/0' } : { cidr: '0.0.0.0/0', except: [METADATA_V4] } },
            { ipBlock: metadata ? { cidr: '::/0' } : { cidr: '::/0', except: [...METADATA_V6] } },
            { namespaceSelector: {} },
          ],
        },
      ],
    },
  };
}
