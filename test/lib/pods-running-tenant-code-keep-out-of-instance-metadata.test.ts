// The EtcdCluster members got a NetworkPolicy (hooks/etcdcluster/network.ts) because "the members run the tenant's
// image with Metacontroller's rights, in a namespace whose administrator may have set no NetworkPolicy because its
// tenants make no pods: ... the tenant's code in a member takes the node's credentials from the cloud's instance
// metadata service". A PodSet runs the tenant's image AND command (spec.image, spec.command) in pods metaops makes,
// and a Memcached the tenant's image (spec.image), with no such policy: tenant A, allowed only to create custom
// resources, writes a PodSet `image: curlimages/curl, command: [sh, -c, "curl
// 169.254.169.254/latest/meta-data/iam/security-credentials/..."]` and takes the node's role, which every tenant's
// pods on that node share; from the same pod it reaches every pod of tenant B (B's Memcached has no authentication).
//
// Must hold: a kind whose pods run a tenant's chosen image answers, like EtcdCluster, a NetworkPolicy selecting those
// pods whose egress keeps the instance metadata service out (169.254.169.254).
import t from 'tap';
import { memcachedSync, podsetSync } from '../fixtures/hooks.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';

/** Whether a NetworkPolicy among `children` selects pods with `labels` and keeps 169.254.169.254 out of their egress. */
function metadataKeptOut(children: any[], labels: Record<string, string>): boolean {
  return children.some((c) => {
    if (c.kind !== 'NetworkPolicy') return false;
    const sel = c.spec?.podSelector?.matchLabels ?? {};
    if (!Object.entries(sel).every(([k, v]) => labels[k] === v)) return false;
    if (!(c.spec.policyTypes ?? []).includes('Egress')) return false;
    return !((c.spec.egress ?? []) as any[]).some((rule) =>
      (rule.to ?? [{ ipBlock: { cidr: '0.0.0.0/0' } }]).some(
        (peer: any) =>
          peer.ipBlock?.cidr === '0.0.0.0/0' &&
          !((peer.ipBlock.except ?? []) as string[]).includes('169.254.169.254/32'),
      ),
    );
  });
}

t.test("a PodSet's pods (tenant image and command) cannot ask the instance metadata service", async (t) => {
  const res: any = podsetSync(
    request('podset', {
      size: 1,
      image: 'curlimages/curl:8.10.1',
      command: ['sh', '-c', 'curl -s http://169.254.169.254/latest/meta-data/iam/security-credentials/; sleep 3600'],
    }),
    FIXED_NOW,
  );
  const pods = (res.children as any[]).filter((c) => c.kind === 'Pod');
  t.ok(pods.length > 0, 'the PodSet makes its pod with the tenant command');
  t.ok(
    metadataKeptOut(res.children, pods[0].metadata.labels ?? {}),
    `a NetworkPolicy keeps its pods from 169.254.169.254 (children: ${(res.children as any[]).map((c) => c.kind).join(', ')})`,
  );
});

t.test("a Memcached's pods (tenant image) cannot ask the instance metadata service", async (t) => {
  const res: any = memcachedSync(request('memcached', { size: 1, image: 'attacker.example/any:1' }), FIXED_NOW);
  const dep = (res.children as any[]).find((c) => c.kind === 'Deployment');
  t.ok(dep, 'the Memcached makes its Deployment with the tenant image');
  t.ok(
    metadataKeptOut(res.children, dep.spec.template.metadata.labels ?? {}),
    `a NetworkPolicy keeps its pods from 169.254.169.254 (children: ${(res.children as any[]).map((c) => c.kind).join(', ')})`,
  );
});
