// spec.pod.affinity is copied into every member pod as it is written (hooks/etcdcluster/members.ts), but unlike the
// other fields of spec.pod (test/etcdcluster/member-pod-fields-the-api-server-refuses.test.ts) it is not checked
// against what the API server accepts (hooks/etcdcluster/index.ts etcdValueProblem lists no affinity; the CRD takes
// any object of at most 16 KiB). The API server refuses, for example, a required node affinity without any term
// ("must have at least one node selector term"), a pod anti-affinity term with an empty topologyKey ("can not be
// empty"), a match expression with an operator it does not know, or an affinity that is not an object of the
// Affinity type. Issue 31: every value copied into a child is checked and answered InvalidSpec naming the field before
// anything running is replaced; a member lost meanwhile must not be replaced (removed from etcd, another added) by a
// pod the API server will refuse.
import t from 'tap';
import { etcdValueProblem } from '../../hooks/etcdcluster/index.js';
import { etcdParent } from '../fixtures/etcd.js';
import { podEditedThenLost } from '../fixtures/etcd-loop.js';

const required = (terms: unknown[]) => ({
  nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } },
});
const cases: Array<[string, unknown]> = [
  ['a required node affinity without any node selector term', required([])],
  [
    'a node selector requirement with an operator the API server does not know',
    required([{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'Among', values: ['a'] }] }]),
  ],
  [
    'a pod anti-affinity term with an empty topologyKey',
    {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { labelSelector: { matchLabels: { app: 'etcd' } }, topologyKey: '' },
        ],
      },
    },
  ],
  ['a nodeAffinity that is not an object', { nodeAffinity: 'everywhere' }],
];

for (const [what, affinity] of cases) {
  t.test(`spec.pod.affinity with ${what}: InvalidSpec naming the field`, async (t) => {
    t.match(etcdValueProblem(etcdParent({ size: 3, pod: { affinity } })), /spec\.pod\.affinity/);
  });
}

t.test(
  'a member lost while spec.pod.affinity is one the API server refuses: nothing removed from or added to etcd',
  async (t) => {
    const { loop, res } = await podEditedThenLost({ affinity: required([]) }, 'e-2');
    const ready = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
    t.match(ready, { status: 'False', reason: 'InvalidSpec', message: /spec\.pod\.affinity/ }, JSON.stringify(ready));
    t.same(
      loop.etcd.calls.filter((c) => /^add|^remove/.test(c)),
      [],
      'no member removed or added for a pod the API server refuses',
    );
  },
);
