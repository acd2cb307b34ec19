// The members' NetworkPolicy (hooks/etcdcluster/network.ts) lets a member's egress out "to everything but the cloud's
// instance metadata service" and names the clouds it covers: AWS, GCP, Azure, OpenStack at 169.254.169.254, and
// AWS's IPv6 address fd00:ec2::254. GCP's metadata server has an IPv6 address too, fd20:ce::254 (IPv6 and dual-stack
// instances; GKE dual-stack clusters): `::/0` excepting only AWS's lets tenant A's image in its member ask it for the
// node's service account token, which reaches every tenant.
//
// Must hold: a namespace without ambient credentials gets no egress rule that lets fd20:ce::254 out.
import t from 'tap';
import { memberNetworkPolicy } from '../../hooks/etcdcluster/network.js';

const parent: any = {
  apiVersion: 'etcd.database.coreos.com/v1beta2',
  kind: 'EtcdCluster',
  metadata: { name: 'a', namespace: 'tenant-a', uid: 'u-a' },
  spec: { size: 3 },
};

/** Whether an address is in an ipBlock (CIDR with excepts), IPv6 only, as a CNI reads it. */
function v6ToBig(ip: string): bigint {
  const [head, tail] = ip.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const tl = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const parts = [...h, ...Array(8 - h.length - tl.length).fill('0'), ...tl];
  return parts.reduce((acc, p) => (acc << 16n) + BigInt(parseInt(p || '0', 16)), 0n);
}
function inCidr(ip: string, cidr: string): boolean {
  const [base, len] = cidr.split('/') as [string, string];
  if (!base.includes(':')) return false;
  const bits = BigInt(Number(len));
  const mask = bits === 0n ? 0n : ((1n << bits) - 1n) << (128n - bits);
  return (v6ToBig(ip) & mask) === (v6ToBig(base) & mask);
}
function egressAllows(policy: any, ip: string): boolean {
  return (policy.spec.egress as any[]).some((rule) =>
    (rule.to ?? []).some(
      (peer: any) =>
        peer.ipBlock &&
        inCidr(ip, peer.ipBlock.cidr) &&
        !((peer.ipBlock.except ?? []) as string[]).some((e) => inCidr(ip, e)),
    ),
  );
}

t.test('AWS IPv6 metadata is kept out (as documented)', async (t) => {
  const policy = memberNetworkPolicy(parent, {}, true)!;
  t.notOk(egressAllows(policy, 'fd00:ec2::254'));
});

t.test("GCP's IPv6 metadata server fd20:ce::254 is kept out as its IPv4 one is", async (t) => {
  const policy = memberNetworkPolicy(parent, {}, true)!;
  t.notOk(egressAllows(policy, 'fd20:ce::254'), 'a member may not reach fd20:ce::254');
});
