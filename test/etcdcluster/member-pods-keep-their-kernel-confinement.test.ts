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
// AppArmor not Unconfined, no unconfined SELinux type, Pod Security `baseline`): such a spec is InvalidSpec naming
// the field, and a running cluster edited to it keeps its members as they are.
import t from 'tap';
import { etcdValueProblem } from '../../hooks/etcdcluster/index.js';
import { etcdParent } from '../fixtures/etcd.js';
import { running } from '../fixtures/etcd-loop.js';

const cases: Array<[string, Record<string, unknown>, RegExp]> = [
  [
    'seccomp Unconfined',
    { seccompProfile: { type: 'Unconfined' } },
    /securityContext\.seccompProfile\.type "Unconfined"/,
  ],
  ['AppArmor Unconfined', { appArmorProfile: { type: 'Unconfined' } }, /securityContext\.appArmorProfile\.type/],
  ['SELinux type spc_t', { seLinuxOptions: { type: 'spc_t' } }, /securityContext\.seLinuxOptions\.type "spc_t"/],
  ['an SELinux user of its own', { seLinuxOptions: { user: 'system_u' } }, /securityContext\.seLinuxOptions\.user/],
  ['a Windows host process', { windowsOptions: { hostProcess: true } }, /windowsOptions\.hostProcess/],
  ['an unsafe sysctl', { sysctls: [{ name: 'kernel.msgmax', value: '1' }] }, /sysctls\[0\] "kernel\.msgmax"/],
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
    if (s?.seLinuxOptions?.user) out.push(`${who}: SELinux user`);
    if (s?.windowsOptions?.hostProcess) out.push(`${who}: host process`);
    if ((s?.sysctls ?? []).length) out.push(`${who}: sysctls`);
  }
  return out;
}

for (const [what, securityContext, field] of cases) {
  t.test(`spec.pod.securityContext with ${what}: InvalidSpec, no member pod runs unconfined`, async (t) => {
    const spec = { size: 3, repository: 'registry.tenant-a.example/exfil', version: '3.5.0', pod: { securityContext } };
    t.match(etcdValueProblem(etcdParent(spec)), field, 'refused naming the field');
    const fresh = await running(spec);
    t.same(fresh.pods(), [], 'a new cluster makes no member');
    // A running cluster edited to it keeps its members, as they are.
    const loop = await running({ size: 3, repository: 'registry.tenant-a.example/exfil', version: '3.5.0' });
    const before = loop.pods();
    loop.spec = { ...loop.spec, pod: { securityContext } };
    loop.lose('e-2');
    for (let i = 0; i < 3; i++) await loop.step();
    const ready = loop.s().conditions.find((c: any) => c.type === 'Ready');
    t.match(ready, { status: 'False', reason: 'InvalidSpec', message: field });
    t.same(
      loop.pods(),
      before.filter((p) => p !== 'e-2'),
      'the members kept, the lost one not made again',
    );
    const pods = loop.children.filter((c) => c.kind === 'Pod');
    t.same(
      pods.flatMap((p) => unconfined(p).map((u) => `${p.metadata.name} ${u}`)),
      [],
      'no member pod runs unconfined',
    );
    t.same(
      loop.etcd.calls.filter((c) => /^add|^remove/.test(c)),
      [],
      'membership unchanged',
    );
  });
}

for (const [what, securityContext] of [
  ['seccomp RuntimeDefault', { seccompProfile: { type: 'RuntimeDefault' } }],
  ['a Localhost AppArmor profile', { appArmorProfile: { type: 'Localhost', localhostProfile: 'etcd' } }],
  ['SELinux type container_t', { seLinuxOptions: { type: 'container_t' } }],
  // A level only where the server allows it (member-pods-carry-no-selinux-level-of-their-choosing.test.ts).
  ['SELinux type container_t with a level', { seLinuxOptions: { type: 'container_t', level: 's0:c1,c2' } }],
  ['a safe sysctl', { sysctls: [{ name: 'net.ipv4.tcp_keepalive_time', value: '60' }] }],
  ['a safe sysctl spelled with slashes', { sysctls: [{ name: 'net/ipv4/tcp_syncookies', value: '1' }] }],
] as Array<[string, Record<string, unknown>]>) {
  t.test(`spec.pod.securityContext with ${what}: accepted, copied into every member`, async (t) => {
    const spec = { size: 3, pod: { securityContext } };
    t.equal(etcdValueProblem(etcdParent(spec)), undefined);
    const levelled = (securityContext['seLinuxOptions'] as { level?: string } | undefined)?.level !== undefined;
    const loop = await running(spec, 'e', levelled ? { allowSeLinuxLevel: true } : undefined);
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2']);
    for (const p of loop.children.filter((c) => c.kind === 'Pod'))
      t.match((p['spec'] as any).securityContext, securityContext, `${p.metadata.name} carries it`);
  });
}
