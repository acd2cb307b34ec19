// Every pod metaops makes runs with its namespace's `default` ServiceAccount, and none says
// `automountServiceAccountToken: false`: the kubelet mounts that account's token into each container at
// /var/run/secrets/kubernetes.io/serviceaccount. Most of these pods run an image and a command the custom resource
// names (PodSet `image` and `command`, Memcached `image`, EtcdCluster `<repository>:v<version>`), and none of them
// calls the Kubernetes API. So a tenant who may only create custom resources in its namespace (issue 29), and holds
// no credential of the cluster, gets one through metaops: the token of `system:serviceaccount:<ns>:default`, a member
// of `system:serviceaccounts` and `system:serviceaccounts:<ns>`, with whatever any binding grants those (a platform's
// rights for the namespace's workloads, a ClusterRoleBinding to every service account). Metacontroller creates the
// pods with its own rights; the API server checks nothing of the account's token for whoever wrote the custom
// resource.
//
// Must hold: a pod (or pod template) metaops answers for a custom resource, running an image the resource names,
// carries no ServiceAccount token (automountServiceAccountToken: false).
import t from 'tap';
import { memcachedSync, podsetSync } from '../fixtures/hooks.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';
import { running } from '../fixtures/etcd-loop.js';

const IMAGE = 'registry.tenant-a.example/exfil:1';

/** The pod specs of an answer's children: pods, and the templates of Deployments and StatefulSets. */
function podSpecs(children: any[]): Array<[string, any]> {
  const out: Array<[string, any]> = [];
  for (const c of children) {
    if (c.kind === 'Pod') out.push([`Pod ${c.metadata.name}`, c.spec]);
    else if (c.spec?.template?.spec) out.push([`${c.kind} ${c.metadata.name}`, c.spec.template.spec]);
  }
  return out;
}

function check(
  t: { ok(v: unknown, m: string): void; same(a: unknown, b: unknown, m: string): void },
  kind: string,
  children: any[],
) {
  const specs = podSpecs(children);
  t.ok(specs.length > 0, `${kind} answers pods (${specs.map(([n]) => n).join(', ')})`);
  const mounting = specs
    .filter(([, s]) => s?.automountServiceAccountToken !== false)
    .map(([n, s]) => {
      const images = (s?.containers ?? []).map((c: any) => c.image).join(', ');
      return `${n} (${images}, account ${s?.serviceAccountName ?? 'default'})`;
    });
  t.same(mounting, [], `no ${kind} pod running the resource's image carries a ServiceAccount token`);
}

t.test('PodSet: its pods run the spec image and command without a token', async (t) => {
  const r = podsetSync(
    request('podset', {
      size: 1,
      image: IMAGE,
      command: ['sh', '-c', 'cat /var/run/secrets/kubernetes.io/serviceaccount/token'],
    }),
    FIXED_NOW,
  );
  check(t, 'PodSet', r.children as any[]);
});

t.test("Memcached: its Deployment's pods run the spec image without a token", async (t) => {
  const r = memcachedSync(request('memcached', { size: 1, image: IMAGE }), FIXED_NOW);
  check(t, 'Memcached', r.children as any[]);
});

t.test("EtcdCluster: its members run the spec's image without a token", async (t) => {
  const loop = await running({ size: 3, repository: 'registry.tenant-a.example/exfil', version: '3.5.0' });
  check(t, 'EtcdCluster', loop.children as any[]);
});
