// Every field of spec.pod that an EtcdCluster copies into its member pods is checked against what the API server
// accepts, before any member is made, added or replaced (issue 31: "every value copied into a child is checked ...
// answered InvalidSpec naming the field, for every kind, before anything running is replaced"). The image, labels,
// annotations, node selector and resources are; these are not:
// - spec.pod.busyboxImage, the init step's image: `"busybox:1.28.0-glibc "` (a trailing space, the issue's own PodSet
//   case) is refused by the API server ("must not have leading or trailing whitespace");
// - spec.pod.tolerations: `operator: Exists` with a value, or an unknown effect, is refused;
// - spec.pod.etcdEnv: a variable with both value and valueFrom, or an empty valueFrom, is refused;
// - spec.pod.securityContext: a negative runAsUser is refused.
// A member lost meanwhile must not be replaced (a member added to etcd) by a pod the API server will refuse.
import t from 'tap';
import type { CompositeSyncResponse } from '../../lib/index.js';
import { etcdValueProblem } from '../../hooks/etcdcluster/index.js';
import { etcdParent } from '../fixtures/etcd.js';
import { running } from '../fixtures/etcd-loop.js';

const cases: Array<[string, Record<string, unknown>, RegExp]> = [
  ['a busybox image with a trailing space', { busyboxImage: 'busybox:1.28.0-glibc ' }, /spec\.pod\.busyboxImage/],
  ['a busybox image that is no reference', { busyboxImage: 'Busy Box' }, /spec\.pod\.busyboxImage/],
  [
    'a toleration with operator Exists and a value',
    { tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }] },
    /spec\.pod\.tolerations/,
  ],
  [
    'a toleration with an unknown effect',
    { tolerations: [{ key: 'k', effect: 'Sometimes' }] },
    /spec\.pod\.tolerations/,
  ],
  [
    'an environment variable with both value and valueFrom',
    { etcdEnv: [{ name: 'X', value: 'v', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] },
    /spec\.pod\.etcdEnv/,
  ],
  ['an environment variable without a name', { etcdEnv: [{ value: 'v' }] }, /spec\.pod\.etcdEnv/],
  ['a negative runAsUser', { securityContext: { runAsUser: -1 } }, /spec\.pod\.securityContext/],
];

for (const [what, pod, field] of cases) {
  t.test(`${what}: InvalidSpec naming the field`, async (t) => {
    t.match(etcdValueProblem(etcdParent({ size: 3, pod })), field);
  });
}

t.test('a member lost while spec.pod.busyboxImage has a trailing space: nothing added to etcd', async (t) => {
  const loop = await running({ size: 3 });
  loop.spec = { ...loop.spec, pod: { busyboxImage: 'busybox:1.28.0-glibc ' } };
  loop.lose('e-2');
  let res: CompositeSyncResponse | undefined;
  for (let i = 0; i < 3; i++) res = await loop.step();
  const ready = (res!.status as any).conditions.find((c: any) => c.type === 'Ready');
  t.match(ready, { status: 'False', reason: 'InvalidSpec', message: /spec\.pod\.busyboxImage/ });
  t.same(
    loop.etcd.calls.filter((c) => /^add|^remove/.test(c)),
    [],
    'no member removed or added for a pod the API server refuses',
  );
});
