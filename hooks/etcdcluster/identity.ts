// Whose etcd answered: an EtcdCluster acts on, reads from and reports only the etcd cluster it made. Its hook
// dials only the cluster's own member names (<pod>.<cluster>.<namespace>.svc, looked up in the server's cluster
// domain, METAOPS_ETCD_CLUSTER_DOMAIN), and takes an answer as its cluster's only when the answer's cluster ID is
// one this EtcdCluster made: the ID etcd computes for a bootstrap or a restore of its own members (named
// <name>-<ordinal> in its namespace, started together with its UID as the cluster token), or the one its status
// recorded. A member's own answer (its health) counts only when it carries that cluster ID and the member ID the
// member list gives the pod's peer URL. What another cluster answers is never read into the status or acted on.
import { type KubeObject, type ParentObject, PermanentError } from '../../lib/index.js';
import { createHash, X509Certificate } from 'node:crypto';
import { idOf } from '../etcdcommon/identity.js';
import { plainDomain, CLUSTER_DOMAIN_DEFAULT, type EtcdSettings } from '../etcdcommon/index.js';
import type { DialScope } from '../etcdcommon/etcd.js';
import { PEER_PORT, memberIndex, specClusterDomain, type Cluster } from './members.js';
import { MAX_SIZE, type EtcdClusterSpec } from './schema.js';

/** The server's cluster domain and the domains a spec may name (the server's own first). */
export function domainsOf(settings: Partial<EtcdSettings>): { server: string; allowed: string[] } {
  const server = settings.clusterDomain ? plainDomain(settings.clusterDomain) : CLUSTER_DOMAIN_DEFAULT;
  return { server, allowed: [...new Set([server, ...(settings.allowedDomains ?? []).map(plainDomain)])] };
}

/**
 * A spec's pod.clusterDomain steers the member URLs, so it is taken only when the server allows it (its own
 * domain, or one of METAOPS_ETCD_CLUSTER_DOMAINS); otherwise nothing is dialled or made, and a condition says why.
 */
export function checkClusterDomain(spec: EtcdClusterSpec, settings: Partial<EtcdSettings>): void {
  // (Either spelling, etcd-operator's ClusterDomain too: one rule.)
  const wanted = specClusterDomain(spec);
  if (!wanted) return;
  const { allowed } = domainsOf(settings);
  if (allowed.includes(plainDomain(wanted.domain))) return;
  throw new PermanentError(
    'ClusterDomainNotAllowed',
    `spec.pod.${wanted.field} ${JSON.stringify(wanted.domain)} is not a domain this server dials (${allowed.join(', ')}; ` +
      'an administrator may add one to METAOPS_ETCD_CLUSTER_DOMAINS): nothing is dialled or changed until it is removed or allowed',
    { conditions: ['Synced'] },
  );
}

/** The member pod a host name belongs to, when it is one of this cluster's member names; undefined otherwise. */
export function podOfHost(c: Cluster, host: string, domains: string[]): string | undefined {
  const name = host.toLowerCase();
  for (const suffix of ['', ...domains.map((d) => `.${d}`)]) {
    const tail = `.${c.name}.${c.namespace}.svc${suffix}`;
    if (!name.endsWith(tail)) continue;
    const pod = name.slice(0, -tail.length);
    if (memberIndex(c.name, pod) !== undefined) return pod;
  }
  return undefined;
}

/**
 * What one sync may dial: the cluster's member names only, each looked up as its fully qualified name in the
 * server's cluster domain (a name that already ends in an allowed domain as it is).
 */
export function dialScope(c: Cluster, settings: Partial<EtcdSettings>, signal: AbortSignal): DialScope {
  const { server, allowed } = domainsOf(settings);
  return {
    signal,
    // The namespace's calls share one cap (etcd.ts TENANT_MAX_CALLS): another namespace's are not queued behind them.
    tenant: c.namespace,
    allows: (host) => podOfHost(c, host, allowed) !== undefined,
    lookupName: (host) => (host.toLowerCase().endsWith('.svc') ? `${host}.${server}` : host),
  };
}

/** Where the names a cluster's members were made with are read: its member pods and its status. */
export interface MemberNamesInput {
  pods: readonly KubeObject[];
  status: unknown;
  /** The member certificates (tls.ts TlsState.members): PEM text of peer.crt and server.crt, when TLS is used. */
  certificates?: readonly string[];
}

/**
 * The peer URLs a cluster's members were made with: each member pod's flag; without one, the member list in the
 * status (pods are made with the names the cluster uses; a status may still list a cluster replaced by a restore).
 */
function madePeerURLs(input: MemberNamesInput): string[] {
  const urls: string[] = [];
  for (const pod of input.pods) {
    const containers = ((pod['spec'] as { containers?: unknown } | undefined)?.containers ?? []) as unknown[];
    for (const container of Array.isArray(containers) ? containers : []) {
      const command = (container as { command?: unknown } | undefined)?.command;
      for (const word of Array.isArray(command) ? command : [])
        if (typeof word === 'string' && word.startsWith(PEER_URLS_FLAG)) urls.push(word.slice(PEER_URLS_FLAG.length));
    }
  }
  if (urls.length > 0) return urls;
  const list = (input.status as { memberList?: unknown } | undefined)?.memberList;
  for (const m of Array.isArray(list) ? list : []) {
    const url = (m as { peerURL?: unknown } | undefined)?.peerURL;
    if (typeof url === 'string') urls.push(url);
  }
  return urls;
}
const PEER_URLS_FLAG = '--initial-advertise-peer-urls=';

/** Whether a URL's host is a relative member name (`<pod>.<cluster>.<namespace>.svc`, no domain after it). */
function relativeHost(url: string): boolean {
  try {
    return new URL(url).hostname.toLowerCase().endsWith('.svc');
  } catch {
    return false;
  }
}

/**
 * The spec the members are named with. A spec that names its cluster domain (pod.clusterDomain or ClusterDomain,
 * checked by checkClusterDomain) is taken as it is. Without one, members are named in the server's cluster domain,
 * `<pod>.<cluster>.<namespace>.svc.<domain>`: the relative `<pod>.<cluster>.<namespace>.svc` is looked up under the
 * pod's search domains first (ndots 5), as `<pod>.<cluster>.<namespace>.svc.svc.<domain>`, which CoreDNS answers from
 * namespace `svc`, a namespace a tenant may own. A cluster keeps the names it was made with (a member pod's flag
 * or the status' member list says which): etcd registered those URLs, peers dial what is registered, and a member
 * joining lists them (--initial-cluster). So two kinds of cluster keep relative names:
 *   - one whose members were made with them (made by an earlier metaops, or by etcd-operator);
 *   - a new one with TLS whose member certificates do not carry the qualified names (etcd-operator's guide issues
 *     `*.<cluster>.<namespace>.svc`): peers and the hook check a member's certificate against the name they dial.
 *     Mutual TLS then keeps a namespace `svc` from reading or writing the cluster's traffic.
 */
export function namedSpec(
  spec: EtcdClusterSpec,
  parent: ParentObject,
  settings: Partial<EtcdSettings>,
  input: MemberNamesInput,
): EtcdClusterSpec {
  if (specClusterDomain(spec)) return spec;
  const { server } = domainsOf(settings);
  const qualified = { ...spec, pod: { ...(spec.pod ?? {}), clusterDomain: server } } as EtcdClusterSpec;
  const made = madePeerURLs(input);
  if (made.some(relativeHost)) return spec;
  // Made with qualified names: kept, whatever certificates come later (members keep their registered URLs).
  if (made.length > 0) return qualified;
  const name = parent.metadata.name;
  const sample = `${name}-0.${name}.${parent.metadata.namespace ?? 'default'}.svc.${server}`;
  for (const pem of input.certificates ?? []) {
    let carries = false;
    try {
      carries = new X509Certificate(pem).checkHost(sample) !== undefined;
    } catch {
      // (a certificate that does not parse was reported by tls.ts; the names stay as they were)
    }
    if (!carries) return spec;
  }
  return qualified;
}

/**
 * How many ordinals the search for a bootstrap or restore goes back: a cluster's ordinals only grow, one per
 * member ever added, so this covers any cluster that has not replaced hundreds of members; past it, the ID the
 * status recorded is what counts.
 */
export const IDENTITY_SEARCH_ORDINALS = 256;

export interface IdentityInput {
  cluster: Cluster;
  /** The cluster token its members started with: the EtcdCluster's UID. */
  token: string;
  /** The highest ordinal this cluster used (status, and pods seen). */
  lastMemberIndex: number;
  /** The cluster ID the status recorded, if any. */
  recorded?: string | undefined;
  /** The domains its peer URLs may have been advertised in (besides none). */
  domains: string[];
}

/**
 * Whether a cluster ID is this EtcdCluster's: the one recorded, or the ID of a set of its members started
 * together (a bootstrap or a restore: consecutive ordinals, at most MAX_SIZE of them) with its token. The IDs it
 * could have made are computed once, on the first ID that is not the recorded one.
 */
export function clusterIdentity(input: IdentityInput): (clusterId: string | undefined) => boolean {
  const recorded = idOf(input.recorded);
  let made: Set<string> | undefined;
  return (clusterId) => {
    const id = idOf(clusterId);
    if (!id) return false;
    if (id === recorded) return true;
    made ??= madeHere(input);
    return made.has(id);
  };
}

/** The first 8 bytes of a sha1, as etcd takes an ID from one. */
const sha8 = (data: Buffer) => createHash('sha1').update(data).digest().subarray(0, 8);

/**
 * Every cluster ID a bootstrap or restore of this EtcdCluster's members could have: etcd's genID of each window.
 * A window starts at or below the highest ordinal seen (every member alive was made by it or after it) but may end
 * past it: a cluster bootstrapped with e-0..e-4 and scaled down to e-0..e-2 keeps that bootstrap's ID, and once its
 * status is lost e-2 is the highest ordinal seen.
 */
function madeHere(input: IdentityInput): Set<string> {
  const c = input.cluster;
  const scheme = c.peerTLS ? 'https' : 'http';
  const last = Math.min(Math.max(input.lastMemberIndex, -1), IDENTITY_SEARCH_ORDINALS);
  const out = new Set<string>();
  if (last < 0) return out;
  const end = last + MAX_SIZE - 1;
  for (const suffix of [...new Set(['', c.domain, ...input.domains.map((d) => `.${d}`)])]) {
    // Each member's ID as etcd's computeMemberID makes it (one peer URL, the token, no time), 8 bytes big-endian.
    const ids = Array.from({ length: end + 1 }, (_, i) =>
      sha8(Buffer.from(`${scheme}://${c.name}-${i}.${c.name}.${c.namespace}.svc${suffix}:${PEER_PORT}${input.token}`)),
    );
    for (let from = 0; from <= last; from++) {
      for (let n = 1; n <= MAX_SIZE; n++) {
        // genID: the sorted IDs (byte order of big-endian uint64s is their numeric order), hashed.
        const window = ids.slice(from, from + n).sort(Buffer.compare);
        out.add(sha8(Buffer.concat(window)).readBigUInt64BE(0).toString());
      }
    }
  }
  return out;
}
