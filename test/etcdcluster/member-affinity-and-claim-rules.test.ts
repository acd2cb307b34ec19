// The API server's rules for a pod's affinity and a claim's spec, as the hook applies them to spec.pod.affinity and
// spec.pod.persistentVolumeClaimSpec before it copies them into member pods and claims: each case of
// affinity-and-claim-cases.ts (what a real kube-apiserver does with it, checked by
// test/real/etcd-member-affinity-and-claim-rules-agree-real.test.ts) is InvalidSpec naming the field exactly when
// the API server refuses it. Beyond the API server: a block volume (a member mounts its claim as a directory), and
// the podAntiAffinity that spec.pod.antiAffinity replaces is not judged.
import t from 'tap';
import { etcdValueProblem } from '../../hooks/etcdcluster/index.js';
import { etcdParent } from '../fixtures/etcd.js';
import { affinityCases, claimCases } from './affinity-and-claim-cases.js';

for (const c of affinityCases)
  t.test(`spec.pod.affinity with ${c.what}: ${c.refused ? 'InvalidSpec' : 'accepted'}`, async (t) => {
    const problem = etcdValueProblem(etcdParent({ size: 3, pod: { affinity: c.value } }));
    if (c.refused) t.match(problem, /^spec\.pod\.affinity\./, JSON.stringify(c.value));
    else t.equal(problem, undefined, JSON.stringify(c.value));
  });

for (const c of claimCases)
  t.test(`spec.pod.persistentVolumeClaimSpec with ${c.what}: ${c.refused ? 'InvalidSpec' : 'accepted'}`, async (t) => {
    const problem = etcdValueProblem(etcdParent({ size: 3, pod: { persistentVolumeClaimSpec: c.value } }));
    if (c.refused) t.match(problem, /^spec\.pod\.persistentVolumeClaimSpec/, JSON.stringify(c.value));
    else t.equal(problem, undefined, JSON.stringify(c.value));
  });

t.test(
  'a block volume, which the API server takes, is InvalidSpec: a member mounts its claim as a directory',
  async (t) => {
    const claim = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Block' };
    t.match(
      etcdValueProblem(etcdParent({ size: 3, pod: { persistentVolumeClaimSpec: claim } })),
      /spec\.pod\.persistentVolumeClaimSpec\.volumeMode "Block"/,
    );
  },
);

t.test(
  'a podAntiAffinity that spec.pod.antiAffinity replaces is not judged; the rest of the affinity is',
  async (t) => {
    const anti = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: '' }] } };
    t.match(etcdValueProblem(etcdParent({ size: 3, pod: { affinity: anti } })), /podAntiAffinity.*topologyKey/);
    t.equal(etcdValueProblem(etcdParent({ size: 3, pod: { affinity: anti, antiAffinity: true } })), undefined);
    const both = { ...anti, nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: {} } };
    t.match(
      etcdValueProblem(etcdParent({ size: 3, pod: { affinity: both, antiAffinity: true } })),
      /nodeAffinity\.requiredDuringSchedulingIgnoredDuringExecution\.nodeSelectorTerms/,
    );
  },
);
