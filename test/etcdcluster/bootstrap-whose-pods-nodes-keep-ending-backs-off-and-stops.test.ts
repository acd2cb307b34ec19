// A bootstrap that keeps failing stops after 3 starts (bootstraps.ts: "without a bound that is pods and claims made
// and deleted for ever, and nothing says why"), and a start whose pod its node ended (evicted, rejected at admission:
// OutOfcpu, NodeAffinity; pods.ts endedByNode) is not counted, since the spec did not fail. Additions have the same
// split and a bound for the second kind (additions.ts: a back-off of 10 s doubling to 5 minutes, and no addition
// after MAX_ENDED_ADDITIONS ended pods in a row: additions-whose-pods-nodes-keep-ending-back-off-and-stop.test.ts).
// A bootstrap has neither: nodes that reject every member pod for ever (a node whose kubelet refuses the pods the
// scheduler sends it: OutOfcpu after a device-plugin or resource mismatch, a node-affinity predicate the kubelet
// sees otherwise) have the whole bootstrap deleted and made again at every other sync, pods and claims, for ever.
//
// Must hold: a bootstrap whose member pods their nodes keep ending is made again at a bounded rate (a back-off, as
// for additions), and stops after a bounded number of starts, saying why. Each answer fed back as the next observed
// state.
import t from 'tap';
import { FakeEtcd, Loop, PVC } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test('nodes that reject every bootstrap pod for ever: starts back off, then stop', async (t) => {
  const loop = new Loop({ size: 3, pod: { persistentVolumeClaimSpec: PVC } }, new FakeEtcd());
  const made = new Set<string>();
  const claims = new Set<string>();
  const endAll = () => {
    for (const p of loop.pods()) {
      made.add(p);
      loop.podStatus.set(p, { phase: 'Failed', reason: 'OutOfcpu', message: 'Pod was rejected: OutOfcpu' });
    }
    for (const c of loop.claims()) claims.add(c);
  };
  let s = 0;
  for (; s <= 600; s += 5) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
    endAll();
    await loop.step();
  }
  // Additions under the same nodes: at most 7 made in ten minutes.
  t.ok(made.size <= 3 * 7, `bootstrap member pods made in ten minutes: ${made.size}, claims ${claims.size}`);
  for (; s <= 7200; s += 5) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
    endAll();
    await loop.step();
  }
  t.ok(made.size <= 3 * 8, `bootstrap member pods made in two hours: ${made.size}, claims ${claims.size}`);
  const scaling = (loop.s().conditions as any[]).find((c) => c.type === 'Scaling');
  t.match(scaling, { status: 'False' }, `stopped, saying why: ${JSON.stringify(scaling)}`);
  t.match(scaling?.message ?? '', /OutOfcpu/);
});
