// etcd's identities, computed as etcd computes them, so that the hooks can tell a cluster they made from any other
// that answers at an address: a member started with `--initial-cluster-state=new` (a bootstrap) or restored from
// a snapshot gets the ID sha1(sorted peer URLs + cluster token)[0:8], and the cluster's ID is
// sha1(the sorted IDs of its initial members, 8 bytes each, big-endian)[0:8]
// (go.etcd.io/etcd/server/v3/etcdserver/api/membership member.go computeMemberID, cluster.go genID; the same from
// 3.1 to 3.6). The token is the EtcdCluster's UID, which no other cluster has; the peer URLs name its namespace.
// IDs are uint64 and travel as decimal strings, as etcd's JSON gateway sends them.
import { createHash } from 'node:crypto';

/** What etcd's gateway sends for an ID: a uint64 as a decimal string (a number in some old gateways). */
export const ID_PATTERN = /^[0-9]{1,20}$/;

function first8(data: Buffer): bigint {
  return createHash('sha1').update(data).digest().readBigUInt64BE(0);
}

/** The ID etcd gives a member of an initial cluster (bootstrap or restore): no time is mixed in. */
export function initialMemberId(peerURLs: string[], token: string): string {
  const joined = [...peerURLs].sort().join('');
  return first8(Buffer.from(joined + token)).toString();
}

/** The ID of a cluster whose initial members have these IDs. */
export function clusterIdOf(memberIds: string[]): string {
  // Each ID as 8 bytes big-endian, whose byte order is their numeric order.
  const ids = memberIds.map((id) => {
    const bytes = Buffer.alloc(8);
    bytes.writeBigUInt64BE(BigInt(id));
    return bytes;
  });
  return first8(Buffer.concat(ids.sort(Buffer.compare))).toString();
}

/** An ID as etcd's gateway sent it (a decimal string, or a number), normalised; undefined if it is none. */
export function idOf(value: unknown): string | undefined {
  const text = Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !ID_PATTERN.test(text)) return undefined;
  const id = BigInt(text);
  return id > 0n && id < 2n ** 64n ? id.toString() : undefined;
}
