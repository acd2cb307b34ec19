// A new cluster's members wait for their own DNS name first (check-dns, spec.pod.DNSTimeoutInSecond: past it the step
// exits 1 "Timed out waiting for DNS entry" and the kubelet runs it again, CrashLoopBackOff). Where the name never
// resolves (a DNS add-on down or refusing the pod's queries, a search path that
// does not reach it) the step fails for ever and etcd never starts. The hook says, for as long as it lasts (10 minutes
// here), "waiting for the first members to answer", asking to be synced every 5 s: nothing names the step that keeps
// failing or its message, where a restore names its pods' waiting reason at its deadline (RestoreFailed), an
// addition is cancelled after PENDING_ADD_SECONDS ("did not start within ..."), and a bootstrap whose etcd keeps
// exiting stops saying how (BootstrapFailed).
//
// Must hold: a bootstrap whose members' init step keeps failing says so within 10 minutes: a condition naming the
// step (check-dns) and what it said. Each answer fed back as the next observed state.
import t from 'tap';
import { FakeEtcd, Loop } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const dnsFails = {
  phase: 'Pending',
  initContainerStatuses: [
    {
      name: 'check-dns',
      restartCount: 6,
      state: {
        waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s restarting failed container=check-dns' },
      },
      lastState: { terminated: { exitCode: 1, reason: 'Error', message: 'Timed out waiting for DNS entry' } },
    },
  ],
  containerStatuses: [{ name: 'etcd', state: { waiting: { reason: 'PodInitializing' } } }],
};

t.test("a bootstrap whose members' DNS check keeps failing says so", async (t) => {
  const loop = new Loop({ size: 3, pod: { DNSTimeoutInSecond: 30 } }, new FakeEtcd());
  for (let s = 0; s <= 600; s += 15) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
    for (const p of loop.pods()) loop.podStatus.set(p, dnsFails);
    await loop.step();
  }
  const conditions = (loop.s().conditions ?? []) as any[];
  const said = conditions.filter(
    (c) => /check-dns/.test(`${c.message}`) && /DNS entry|CrashLoopBackOff/.test(`${c.message}`),
  );
  t.ok(
    said.length > 0,
    `after 10 minutes: ${conditions
      .filter((c) => c.status !== 'True' || c.type === 'Scaling')
      .map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`)
      .join(' | ')}`,
  );
});
