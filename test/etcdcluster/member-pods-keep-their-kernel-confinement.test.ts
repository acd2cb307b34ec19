// An EtcdCluster's member pods run the spec's own image (`<spec.repository>:v<spec.version>`), made by Metacontroller
// with its own rights. Their default security context is what Pod Security `restricted` admits (seccomp
// RuntimeDefault, non-root), but spec.pod.securityContext overrides any field of it, checked only for form
// (lib/values.ts podSecurityContextProblem): `seccompProfile: {type: Unconfined}`, `appArmorProfile: {type:
// Unconfined}`, SELinux type `spc_t` (the unconfined "super privileged container" domain). RuntimeDefault is what keeps
// a container from the kernel calls most node escapes start with (unshare of a user namespace, then nf_tables,
// fsconfig, ...: CVE-2022-0185, CVE-2023-32233); the node is every tenant's. A tenant who may only create custom
// resources in its namespace (issue 29), in a namespace whose administrator set no Pod Security label because the
// tenant creates no pods, so runs its own code unconfined on shared nodes through metaops.
//
// Must hold: no member pod metaops answers runs without the kernel confinement the default gives it (seccomp and
// AppArmor not Unconfined, no unconfined SELinux type), unless the server's settings allow it.
import t from 'tap';
import { etcdValueProblem } from '../../hooks/etcdcluster/index.js';
import { etcdParent } from '../fixtures/etcd.js';
import { running } from '../fixtures/etcd-loop.js';

const cases: Array<[string, Record<string, unknown>]> = [
  ['seccomp Unconfined', { seccompProfile: { type: 'Unconfined' } }],
  ['AppArmor Unconfined', { appArmorProfile: { type: 'Unconfined' } }],
  ['SELinux type spc_t', { seLinuxOptions: { type: 'spc_t' } }],
];

/** What of a pod's (and its containers') security contexts leaves the kernel unconfined. */
function unconfined(pod: any): string[] {
  const out: string[] = [];
  const contexts = [
    ['pod', pod?.spec?.securityContext],
    ...[...(pod?.spec?.initContainers ?? []), ...(pod?.spec?.containers ?? [])].map((c: any) => [
      c?.name,
      c?.securityContext,
    ]),
  ] as Array<[string, any]>;
  for (const [who, s] of contexts) {
    if (s?.seccompProfile?.type === 'Unconfined') out.push(`${who}: seccomp Unconfined`);
    if (s?.appArmorProfile?.type === 'Unconfined') out.push(`${who}: AppArmor Unconfined`);
    if (s?.seLinuxOptions?.type === 'spc_t') out.push(`${who}: SELinux spc_t`);
  }
  // A container's own profile overrides the pod's: the pod's counts for the containers that set none.
  return out;
}

for (const [what, securityContext] of cases) {
  t.test(`spec.pod.securityContext with ${what}: no member pod runs unconfined`, async (t) => {
    const spec = {
      size: 3,
      repository: 'registry.tenant-a.example/exfil',
      version: '3.5.0',
      pod: { securityContext },
    };
    const problem = etcdValueProblem(etcdParent(spec));
    const loop = await running(spec);
    const pods = loop.children.filter((c) => c.kind === 'Pod');
    t.ok(pods.length > 0, `member pods answered (${pods.map((p) => p.metadata.name).join(', ')})`);
    const found = pods.flatMap((p) => unconfined(p).map((u) => `${p.metadata.name} ${u}`));
    t.same(found, [], `no member pod runs unconfined (spec check: ${problem ?? 'accepted'})`);
  });
}
