// A member added (a scale-up) whose pod its node's kubelet rejected at admission (`Failed` with a `status.reason`:
// OutOfcpu, UnexpectedAdmissionError after a node restart, a device plugin not yet registered; no container of it
// ran) or evicted before its etcd ran, was ended by its node, not by anything in the spec: as for an upgraded member
// (an eviction is no failed upgrade), it does not count as a failed addition, and additions never stop for it. Once
// the nodes take the pod again, the cluster grows to its size. Each answer is fed back as the next observed state.
import t from 'tap';
import { running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const HEALTHY = ['e-0', 'e-1', 'e-2'];

for (const reason of ['OutOfcpu', 'UnexpectedAdmissionError', 'Evicted'])
  t.test(
    `a new member's pod its node ended (${reason}) is no failed addition: the cluster grows once it runs`,
    async (t) => {
      const loop = await running({ size: 3 });
      loop.spec = { ...loop.spec, size: 4 };
      // Ten minutes in which every new member's pod is ended by its node as it comes (no container of it ran).
      const ended = new Set<string>();
      for (let s = 0; s <= 600; s += 5) {
        loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
        for (const p of loop.pods())
          if (!HEALTHY.includes(p)) {
            ended.add(p);
            loop.podStatus.set(p, { phase: 'Failed', reason, message: `Pod was rejected: ${reason}` });
          }
        await loop.step();
      }
      const scaling = (loop.s().conditions as any[]).find((c) => c.type === 'Scaling');
      t.notMatch(
        scaling,
        { reason: 'ScaleUpFailed' },
        `additions not stopped by the node's doing: ${scaling?.message}`,
      );
      // The nodes take pods again: a new member's pod made from now on runs, and its etcd serves.
      for (let s = 605; s <= 1200 && loop.etcd.members.filter((m) => !m.isLearner).length < 4; s += 5) {
        loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
        for (const p of loop.pods()) if (!HEALTHY.includes(p) && !ended.has(p)) loop.etcd.up.add(p);
        await loop.step();
      }
      t.equal(loop.etcd.members.filter((m) => !m.isLearner).length, 4, 'the cluster reaches its size');
    },
  );

t.test(
  'the replacement of a lost member whose pods its node rejects for a while leaves the cluster at its size',
  async (t) => {
    const loop = await running({ size: 3 });
    loop.lose('e-2');
    // A node restarted: for a minute the kubelet rejects the new pods at admission (no container of them ran).
    const ended = new Set<string>();
    for (let s = 0; s <= 60; s += 5) {
      loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
      for (const p of loop.pods())
        if (!['e-0', 'e-1'].includes(p)) {
          ended.add(p);
          loop.podStatus.set(p, { phase: 'Failed', reason: 'UnexpectedAdmissionError' });
        }
      await loop.step();
    }
    for (let s = 65; s <= 1200 && loop.etcd.members.filter((m) => !m.isLearner).length < 3; s += 5) {
      loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
      for (const p of loop.pods()) if (!['e-0', 'e-1'].includes(p) && !ended.has(p)) loop.etcd.up.add(p);
      await loop.step();
    }
    const scaling = (loop.s().conditions as any[]).find((c) => c.type === 'Scaling');
    t.notMatch(scaling, { reason: 'ScaleUpFailed' }, `not stopped: ${scaling?.message}`);
    t.equal(loop.etcd.members.filter((m) => !m.isLearner).length, 3, 'three voting members again');
  },
);
