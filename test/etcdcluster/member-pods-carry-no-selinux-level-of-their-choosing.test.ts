// Where the container runtime gives each namespace its own SELinux MCS categories (`s0:c26,c5`, as OpenShift-like
// setups do) and labels its volumes with them, the level is what keeps tenant A's pods from tenant B's volumes on a
// node. Pod Security `baseline` lets a pod name `seLinuxOptions.level`, and an EtcdCluster's spec.pod.securityContext
// was copied into every member pod, which Metacontroller makes with its own rights: A's members (A's image) could
// carry B's level and read B's volumes.
//
// Must hold: spec.pod.securityContext.seLinuxOptions.level is InvalidSpec naming the field (as user and role, and a
// type other than a container's), a running cluster edited to it keeps its members as they are, unless the server's
// administrator allows levels (METAOPS_POD_ALLOW_SELINUX_LEVEL=true).
import t from 'tap';
import { etcdcluster } from '../../hooks/etcdcluster/index.js';
import { etcdFirstSync } from '../fixtures/etcd.js';
import { podEditedThenLost } from '../fixtures/etcd-loop.js';

const ready = (res: { status?: unknown }) =>
  ((res.status as any)?.conditions ?? []).find((c: any) => c.type === 'Ready') as Record<string, unknown> | undefined;
const levels = (children: Array<{ kind: string; [k: string]: unknown }>) =>
  children
    .filter((c) => c.kind === 'Pod')
    .map((p) => (p['spec'] as any)?.securityContext?.seLinuxOptions?.level)
    .filter((l) => l !== undefined);

const teamB = { securityContext: { seLinuxOptions: { level: 's0:c26,c5' } } };

t.test(
  "spec.pod.securityContext.seLinuxOptions.level of another namespace's: InvalidSpec, no pod carries it",
  async (t) => {
    const res = await etcdFirstSync({ size: 1, pod: teamB });
    t.match(ready(res), {
      reason: 'InvalidSpec',
      message: /spec\.pod\.securityContext\.seLinuxOptions\.level is not allowed.*METAOPS_POD_ALLOW_SELINUX_LEVEL=true/,
    });
    t.same(levels(res.children), [], 'no member pod answered with the level');
    const { loop } = await podEditedThenLost(teamB, 'e-1');
    t.match(
      loop.s().conditions.find((c: any) => c.type === 'Ready'),
      { reason: 'InvalidSpec' },
    );
    t.same(loop.pods(), ['e-0', 'e-2'], 'a running cluster keeps its members, the lost one not made again');
    t.same(levels(loop.children), [], 'none carries the level');
  },
);

t.test('user and role stay refused whatever the setting; a type of a container is allowed', async (t) => {
  for (const part of ['user', 'role']) {
    const res = await etcdFirstSync(
      { size: 1, pod: { securityContext: { seLinuxOptions: { [part]: 'system_u' } } } },
      { allowSeLinuxLevel: true },
    );
    t.match(ready(res), { reason: 'InvalidSpec', message: new RegExp(`seLinuxOptions\\.${part} is not allowed`) });
  }
  const typed = await etcdFirstSync({ size: 1, pod: { securityContext: { seLinuxOptions: { type: 'container_t' } } } });
  t.notMatch(ready(typed), { reason: 'InvalidSpec' });
});

t.test('the administrator allows levels with METAOPS_POD_ALLOW_SELINUX_LEVEL=true', async (t) => {
  const settingsOf = (env: NodeJS.ProcessEnv) => etcdcluster.settings!({ env } as never) as any;
  t.equal(settingsOf({}).allowSeLinuxLevel, false, 'refused by default');
  const allowed = await etcdFirstSync({ size: 1, pod: teamB }, settingsOf({ METAOPS_POD_ALLOW_SELINUX_LEVEL: 'true' }));
  t.notMatch(ready(allowed), { reason: 'InvalidSpec' });
  t.same(levels(allowed.children), ['s0:c26,c5'], 'the member carries the level');
  t.match(etcdcluster.configProblems!({ METAOPS_POD_ALLOW_SELINUX_LEVEL: 'yes' }), [
    /METAOPS_POD_ALLOW_SELINUX_LEVEL="yes": expected true or false/,
  ]);
});
