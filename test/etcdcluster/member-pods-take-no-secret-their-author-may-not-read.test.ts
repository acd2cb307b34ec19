// An EtcdCluster's member pods are made by Metacontroller with its own rights (`*/*/*`), and run the image the spec
// names (`<spec.repository>:v<spec.version>`). The API server does not ask whether whoever creates a pod may read
// the Secrets the pod takes: creating the pod is what is checked. So a tenant who may only create custom resources
// in its namespace (issue 29), and may not `get secrets` there, would read any Secret (or ConfigMap) of the namespace
// through spec.pod.etcdEnv: `valueFrom.secretKeyRef` of a Secret and key it names, handed to a member's etcd
// container, which runs the tenant's own image (`repository: registry.tenant-a.example/exfil`). It would be
// `get secrets` by proxy, as a PodBuggerTool was `pods/exec` by proxy (issue 29.5). Secrets a platform puts into each
// tenant namespace (a shared registry's pull credentials, a deployer's token) would reach another tenant.
//
// Must hold: no member pod metaops answers (bootstrap, a running cluster's members) takes a Secret or ConfigMap the
// spec names in spec.pod.etcdEnv: refused as InvalidSpec naming the field, a running cluster's members kept as they
// are; only a server that allows references (METAOPS_ETCD_ALLOW_REFERENCES=true) hands them on.
import t from 'tap';
import { Loop, FakeEtcd, running } from '../fixtures/etcd-loop.js';

const SECRET = 'platform-registry-creds';
const CONFIGMAP = 'platform-settings';

const image = { repository: 'registry.tenant-a.example/exfil', version: '3.5.0' };
const secretEnv = [{ name: 'STOLEN', valueFrom: { secretKeyRef: { name: SECRET, key: '.dockerconfigjson' } } }];
const configMapEnv = [{ name: 'STOLEN', valueFrom: { configMapKeyRef: { name: CONFIGMAP, key: 'token' } } }];

/** The Secrets and ConfigMaps a pod's containers (and init containers) read through their environment or volumes. */
function taken(pod: any): string[] {
  const out: string[] = [];
  for (const c of [...(pod?.spec?.containers ?? []), ...(pod?.spec?.initContainers ?? [])]) {
    for (const e of c?.env ?? []) {
      if (e?.valueFrom?.secretKeyRef?.name) out.push(String(e.valueFrom.secretKeyRef.name));
      if (e?.valueFrom?.configMapKeyRef?.name) out.push(String(e.valueFrom.configMapKeyRef.name));
    }
    for (const e of c?.envFrom ?? []) {
      if (e?.secretRef?.name) out.push(String(e.secretRef.name));
      if (e?.configMapRef?.name) out.push(String(e.configMapRef.name));
    }
  }
  for (const v of pod?.spec?.volumes ?? []) {
    if (v?.secret?.secretName) out.push(String(v.secret.secretName));
    if (v?.configMap?.name) out.push(String(v.configMap.name));
  }
  return out;
}

const takingPods = (loop: Loop, named: string) =>
  loop.children
    .filter((c) => c.kind === 'Pod' && taken(c).includes(named))
    .map((p) => `${p.metadata.name} (${(p['spec'] as any).containers[0].image})`);

const ready = (loop: Loop) => (loop.s()?.conditions ?? []).find((c: any) => c.type === 'Ready');

for (const [what, env, named, field] of [
  ['a Secret', secretEnv, SECRET, 'spec.pod.etcdEnv[0].valueFrom.secretKeyRef'],
  ['a ConfigMap', configMapEnv, CONFIGMAP, 'spec.pod.etcdEnv[0].valueFrom.configMapKeyRef'],
] as const) {
  t.test(`spec.pod.etcdEnv naming ${what} of the namespace: a new cluster is refused, no pod takes it`, async (t) => {
    const loop = new Loop({ size: 3, ...image, pod: { etcdEnv: env } }, new FakeEtcd());
    for (let i = 0; i < 3; i++) await loop.step();
    t.same(takingPods(loop, named), [], `no member pod takes ${named}`);
    t.equal(ready(loop)?.reason, 'InvalidSpec');
    t.match(ready(loop)?.message, field, 'the refusal names the field');
    t.match(ready(loop)?.message, 'METAOPS_ETCD_ALLOW_REFERENCES', 'and the setting that allows it');
  });

  t.test(
    `spec.pod.etcdEnv naming ${what} added to a running cluster: its members stay, none running the spec's image takes it`,
    async (t) => {
      const loop = await running({ size: 3, ...image });
      const before = loop.pods();
      t.equal(before.length, 3, 'three members run');
      loop.spec = { ...loop.spec, pod: { etcdEnv: env } };
      for (let i = 0; i < 3; i++) await loop.step();
      t.same(loop.pods(), before, 'every member pod kept');
      t.same(loop.etcd.calls, [], 'no membership change');
      t.same(takingPods(loop, named), [], `no member pod takes ${named}`);
      t.equal(ready(loop)?.reason, 'InvalidSpec');
      t.match(ready(loop)?.message, field);
    },
  );

  t.test(`spec.pod.etcdEnv naming ${what}: handed on where the server allows references`, async (t) => {
    const loop = await running({ size: 3, ...image, pod: { etcdEnv: env } }, 'e', { allowReferences: true });
    t.equal(loop.pods().length, 3, 'three members run');
    t.equal(takingPods(loop, named).length, 3, `every member takes ${named}`);
  });
}
