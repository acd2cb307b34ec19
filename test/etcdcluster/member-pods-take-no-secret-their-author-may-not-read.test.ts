// An EtcdCluster's member pods are made by Metacontroller with its own rights (`*/*/*`), and run the image the spec
// names (`<spec.repository>:v<spec.version>`). The API server does not ask whether whoever creates a pod may read
// the Secrets the pod takes: creating the pod is what is checked. So a tenant who may only create custom resources
// in its namespace (issue 29), and may not `get secrets` there, reads any Secret of the namespace through
// spec.pod.etcdEnv: `valueFrom.secretKeyRef` of a Secret and key it names, handed to a member's etcd container,
// which runs the tenant's own image (`repository: registry.tenant-a.example/exfil`). It is `get secrets` by proxy,
// as a PodBuggerTool was `pods/exec` by proxy (issue 29.5): nothing checks that the EtcdCluster's author may read
// that Secret. Secrets a platform puts into each tenant namespace (a shared registry's pull credentials, which read
// every tenant's images; a token of a deployer ServiceAccount with rights elsewhere) reach another tenant.
//
// Must hold: no member pod metaops answers (bootstrap, a running cluster's members) takes a Secret the spec names in
// spec.pod.etcdEnv (refused as InvalidSpec, or only once the author is shown allowed to read it).
import t from 'tap';
import { etcdValueProblem } from '../../hooks/etcdcluster/index.js';
import { etcdParent } from '../fixtures/etcd.js';
import { running } from '../fixtures/etcd-loop.js';

const SECRET = 'platform-registry-creds';

const stealing = {
  repository: 'registry.tenant-a.example/exfil',
  version: '3.5.0',
  pod: {
    etcdEnv: [{ name: 'STOLEN', valueFrom: { secretKeyRef: { name: SECRET, key: '.dockerconfigjson' } } }],
  },
};

/** The Secrets a pod's containers (and init containers) read through their environment. */
function secretsTaken(pod: any): string[] {
  const out: string[] = [];
  for (const c of [...(pod?.spec?.containers ?? []), ...(pod?.spec?.initContainers ?? [])]) {
    for (const e of c?.env ?? []) if (e?.valueFrom?.secretKeyRef?.name) out.push(String(e.valueFrom.secretKeyRef.name));
    for (const e of c?.envFrom ?? []) if (e?.secretRef?.name) out.push(String(e.secretRef.name));
  }
  for (const v of pod?.spec?.volumes ?? []) if (v?.secret?.secretName) out.push(String(v.secret.secretName));
  return out;
}

t.test(
  "spec.pod.etcdEnv naming a Secret of the namespace: no member pod running the spec's image takes it",
  async (t) => {
    const problem = etcdValueProblem(etcdParent({ size: 3, ...stealing }));
    const loop = await running({ size: 3, ...stealing });
    const pods = loop.children.filter((c) => c.kind === 'Pod');
    t.ok(pods.length > 0, `member pods answered (${pods.map((p) => p.metadata.name).join(', ')})`);
    const taking = pods.filter((p) => secretsTaken(p).includes(SECRET));
    t.same(
      taking.map((p) => `${p.metadata.name} (${(p['spec'] as any).containers[0].image})`),
      [],
      `no member pod takes Secret ${SECRET} (spec check: ${problem ?? 'accepted'})`,
    );
  },
);
