// spec.pod.persistentVolumeClaimSpec is copied into each member's claim as it is written (hooks/etcdcluster/members.ts
// memberClaim). The hook refuses a claim that picks its volume and a storage request that is no quantity
// (hooks/etcdcluster/index.ts claimProblem), but not a claim spec the API server refuses for another reason: no
// accessModes ("at least 1 access mode is required"), an access mode it does not know, no storage request
// ("spec.resources[storage]: Required value"). Such a claim is never created, and the member pod that mounts it stays
// Pending for good. Issue 31: every value copied into a child is checked and answered InvalidSpec naming the field,
// before anything running is replaced; a member lost meanwhile is not replaced by one whose claim cannot be made.
import t from 'tap';
import { etcdValueProblem } from '../../hooks/etcdcluster/index.js';
import { etcdParent } from '../fixtures/etcd.js';
import { podEditedThenLost } from '../fixtures/etcd-loop.js';

const noAccessModes = { resources: { requests: { storage: '1Gi' } } };
const cases: Array<[string, Record<string, unknown>]> = [
  ['no accessModes', noAccessModes],
  [
    'an access mode the API server does not know',
    { accessModes: ['ReadWriteSometimes'], resources: { requests: { storage: '1Gi' } } },
  ],
  ['no storage request', { accessModes: ['ReadWriteOnce'] }],
];

for (const [what, claim] of cases) {
  t.test(`spec.pod.persistentVolumeClaimSpec with ${what}: InvalidSpec naming the field`, async (t) => {
    t.match(
      etcdValueProblem(etcdParent({ size: 3, pod: { persistentVolumeClaimSpec: claim } })),
      /spec\.pod\.persistentVolumeClaimSpec/,
    );
  });
}

t.test(
  'a member lost while the claim spec is one the API server refuses: nothing removed from or added to etcd',
  async (t) => {
    const { loop, res } = await podEditedThenLost({ persistentVolumeClaimSpec: noAccessModes }, 'e-2');
    const ready = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
    t.match(
      ready,
      { status: 'False', reason: 'InvalidSpec', message: /spec\.pod\.persistentVolumeClaimSpec/ },
      JSON.stringify(ready),
    );
    t.same(
      loop.etcd.calls.filter((c) => /^add|^remove/.test(c)),
      [],
      'no member removed or added for a claim the API server refuses',
    );
  },
);
