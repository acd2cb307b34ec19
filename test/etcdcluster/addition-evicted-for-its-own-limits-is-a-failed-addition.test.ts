// A new member (a scale-up, a replacement) whose pod the kubelet evicts for the pod's own limits (its container over
// its ephemeral-storage limit, an emptyDir over its sizeLimit: what its image does, pods.ts evictedForOwnLimits) failed
// by itself, as one whose etcd exits: a failed addition, MAX_FAILED_ADDITIONS of which stop additions
// (ScaleUpFailed naming the eviction). It is not the node's doing, which only backs off and stops after
// MAX_ENDED_ADDITIONS in a row. An eviction for node pressure stays the node's (addition-whose-pod-its-node-rejected-is-
// not-a-failed-addition.test.ts). Each answer is fed back as the next observed state.
import t from 'tap';
import { running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { MAX_FAILED_ADDITIONS } from '../../hooks/etcdcluster/additions.js';

const HEALTHY = ['e-0', 'e-1', 'e-2'];

const OWN_LIMITS = [
  'Container etcd exceeded its local ephemeral storage limit "1Gi". ',
  'Pod ephemeral local storage usage exceeds the total limit of containers 1Gi. ',
  'Usage of EmptyDir volume "data" exceeds the limit "1Gi". ',
];

for (const message of OWN_LIMITS)
  t.test(`new members evicted for their own limits are failed additions: ${message.trim()}`, async (t) => {
    const loop = await running({ size: 3, pod: { resources: { limits: { 'ephemeral-storage': '1Gi' } } } });
    loop.spec = { ...loop.spec, size: 4 };
    const made = new Set<string>();
    for (let s = 0; s <= 1200; s += 5) {
      loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
      for (const p of loop.pods())
        if (!HEALTHY.includes(p)) {
          made.add(p);
          loop.podStatus.set(p, {
            phase: 'Failed',
            reason: 'Evicted',
            message,
            containerStatuses: [
              { name: 'etcd', restartCount: 0, state: { terminated: { exitCode: 137, reason: 'Error' } } },
            ],
          });
        }
      await loop.step();
    }
    t.equal(made.size, MAX_FAILED_ADDITIONS, `members added: ${[...made].join(', ')}`);
    const scaling = (loop.s().conditions as any[]).find((c) => c.type === 'Scaling');
    t.match(scaling, {
      status: 'False',
      reason: 'ScaleUpFailed',
      message: /adding a member failed 3 times .*evicted for its own limits/,
    });
    t.equal(loop.s().additionsFailed?.ended, undefined, 'not counted as the nodes ending pods');
    t.equal(loop.etcd.members.length, 3, 'the running members kept');
  });

t.test('the replacement of a lost member evicted for its own limits counts as a failed addition', async (t) => {
  const loop = await running({ size: 3 });
  loop.lose('e-2');
  const made = new Set<string>();
  for (let s = 0; s <= 1200; s += 5) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
    for (const p of loop.pods())
      if (!['e-0', 'e-1'].includes(p)) {
        made.add(p);
        loop.podStatus.set(p, { phase: 'Failed', reason: 'Evicted', message: OWN_LIMITS[0] });
      }
    await loop.step();
  }
  t.equal(made.size, MAX_FAILED_ADDITIONS, `replacements made: ${[...made].join(', ')}`);
  t.match(loop.s().additionsFailed, { members: [String, String, String] });
});
