// spec.pod.securityContext may no longer take away the members' kernel confinement (lib/pod-policy.ts
// confinementProblem: no `appArmorProfile: {type: Unconfined}`, ...). But spec.pod.annotations, copied onto every
// member pod, are checked only for form and for Multus networks, and Kubernetes still reads the AppArmor profile from
// an annotation: `container.apparmor.security.beta.kubernetes.io/<container>: unconfined` (deprecated since 1.30, not
// removed: on create the API server copies it into the container's securityContext.appArmorProfile when the field is
// unset, and the kubelet applies it; Pod Security `baseline` refuses the annotation's `unconfined` as it refuses the
// field's). The member's container is named `etcd`, so tenant A, who may only create custom resources (issue 29),
// runs its own image (`spec.repository`; `check-dns` is its init container) without AppArmor on shared nodes through metaops, the very thing the field
// check refuses.
//
// Must hold: no member pod metaops answers asks for an unconfined AppArmor profile, by field or by annotation: such a
// spec is InvalidSpec naming the field, and a running cluster edited to it keeps its members as they are.
import t from 'tap';
import { etcdValueProblem } from '../../hooks/etcdcluster/index.js';
import { etcdParent } from '../fixtures/etcd.js';
import { podEditedThenLost, running } from '../fixtures/etcd-loop.js';

const APPARMOR = 'container.apparmor.security.beta.kubernetes.io/';

/** The containers of a pod whose AppArmor profile an annotation sets to unconfined (as the API server reads it). */
function unconfinedByAnnotation(pod: any): string[] {
  return Object.entries((pod?.metadata?.annotations ?? {}) as Record<string, string>)
    .filter(([k, v]) => k.startsWith(APPARMOR) && v === 'unconfined')
    .map(([k]) => k.slice(APPARMOR.length));
}

for (const container of ['etcd', 'check-dns']) {
  t.test(
    `spec.pod.annotations ${APPARMOR}${container}: unconfined: InvalidSpec, no member runs unconfined`,
    async (t) => {
      const pod = { annotations: { [`${APPARMOR}${container}`]: 'unconfined' } };
      const spec = { size: 3, repository: 'registry.tenant-a.example/exfil', version: '3.5.0', pod };
      const field = /spec\.pod\.annotations/;
      t.match(etcdValueProblem(etcdParent(spec)), field, 'refused naming the field');
      const fresh = await running(spec);
      const made = fresh.children.filter((c) => c.kind === 'Pod' && unconfinedByAnnotation(c).length > 0);
      t.same(
        made.map((p) => p.metadata.name),
        [],
        'a new cluster makes no member whose annotation unconfines AppArmor',
      );
      const { loop } = await podEditedThenLost(pod, 'e-1', {
        size: 3,
        repository: 'registry.tenant-a.example/exfil',
        version: '3.5.0',
      });
      t.match(
        loop.s().conditions.find((c: any) => c.type === 'Ready'),
        { reason: 'InvalidSpec', message: field },
      );
      t.same(
        loop.children
          .filter((c) => c.kind === 'Pod' && unconfinedByAnnotation(c).length > 0)
          .map((p) => p.metadata.name),
        [],
        'no member pod carries the annotation',
      );
    },
  );
}

t.test('the same profile by field is refused today (the rule the annotation goes around)', async (t) => {
  const spec = { size: 3, pod: { securityContext: { appArmorProfile: { type: 'Unconfined' } } } };
  t.match(etcdValueProblem(etcdParent(spec)), /appArmorProfile/);
});
