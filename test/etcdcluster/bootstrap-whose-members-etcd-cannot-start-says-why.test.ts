// Issue 30: a fault must not end in a silent wait. A member whose init step keeps failing is named while the bootstrap
// waits (Scaling=True MemberInitFailing, plan/silent.ts initFailingOf); an addition or an upgrade whose image is
// refused fails once that lasted 20 s, naming it (docs/etcdcluster.md). But a bootstrap whose members' etcd container
// itself can never start (its image cannot be pulled: the mistyped version the docs name, `3.6.99`; a Secret or
// ConfigMap spec.pod.etcdEnv references that is missing: CreateContainerConfigError; CreateContainerError) says, for as
// long as it lasts (measured: 1,000 s), only "waiting for the first members to answer" (Available=False /
// Scaling=True Bootstrapping), never what the pods wait on, and asks to be synced every 5 s for ever.
//
// Must hold: such a bootstrap's status names the pod and why its etcd waits (the kubelet's waiting reason) within
// 10 minutes. Each answer fed back as the next observed state.
import t from 'tap';
import { FakeEtcd, Loop } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const cases: Array<[string, string]> = [
  ['ImagePullBackOff', 'Back-off pulling image "quay.io/coreos/etcd:v3.6.99"'],
  ['CreateContainerConfigError', 'secret "etcd-conf" not found'],
  ['CreateContainerError', 'context deadline exceeded'],
];

for (const [reason, message] of cases)
  t.test(`a bootstrap whose members' etcd waits on ${reason} says so`, async (t) => {
    const loop = new Loop({ size: 3, version: '3.6.9' }, new FakeEtcd());
    let s = 0;
    const tick = async () => {
      s += 5;
      loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
      await loop.step();
    };
    for (let k = 0; k < 4 && loop.pods().length === 0; k++) await tick();
    t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the bootstrap starts');
    for (const p of loop.pods())
      loop.podStatus.set(p, {
        phase: 'Pending',
        containerStatuses: [{ name: 'etcd', restartCount: 0, state: { waiting: { reason, message } } }],
      });
    while (s < 600) await tick();
    const said = (loop.s().conditions as any[])
      .filter((c) => c.type === 'Available' || c.type === 'Scaling')
      .map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`)
      .join(' | ');
    t.match(said, new RegExp(reason), `after 10 minutes the status names why the members' etcd waits: ${said}`);
  });
