// The documented 10-minute rule (docs/etcdcluster.md, "DNS before start"), contested by the issue 30 attack and kept.
// A member with storage whose pod is made again on its claim (a node drained or rebooted) runs its first init step,
// check-dns, until its own DNS name resolves (spec.pod.DNSTimeoutInSecond 0, the default: no bound). While the
// cluster's DNS is out, that step waits and etcd never runs in the pod. The hook cannot tell a DNS outage that ends
// from a name or a node that never comes back (a local volume on a node gone, a pod that never schedules, an image
// that never pulls): waiting on every cause outside the member would let one member hold the cluster short of its
// fault tolerance for ever. So after UNHEALTHY_REPLACE_SECONDS unhealthy the member is replaced (removed, its claim
// deleted, a new member added), and only while the others keep a quorum without it: every write etcd acknowledged is
// on that quorum, so the claim deleted held a copy, never the only one. Its replacement that waits on the same cause
// is an addition, cancelled and retried within the bounds of failed additions (additions.ts), never in a loop. While
// the others do not keep a quorum without it, it is kept, its claim too, however long it waits.
import t from 'tap';
import { UNHEALTHY_REPLACE_SECONDS } from '../../hooks/etcdcluster/plan.js';
import { PVC, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const WAITING_FOR_DNS = {
  phase: 'Pending',
  initContainerStatuses: [
    {
      name: 'check-dns',
      ready: false,
      restartCount: 0,
      state: { running: { startedAt: '2026-01-02T03:04:05Z' } },
    },
  ],
  containerStatuses: [
    { name: 'etcd', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } },
  ],
};

/** A cluster of 3 with storage whose e-2 was made again on its claim and waits in check-dns: the loop. */
async function waitingForDns() {
  const loop = await running({ size: 3, pod: { persistentVolumeClaimSpec: PVC } });
  loop.lose('e-2');
  await loop.step();
  loop.etcd.up.delete('e-2');
  loop.phase.set('e-2', 'Pending');
  loop.podStatus.set('e-2', WAITING_FOR_DNS);
  return loop;
}

t.test('a member waiting for its DNS name past the limit, the others a quorum: replaced, said why', async (t) => {
  const loop = await waitingForDns();
  const id = loop.etcd.members.find((m) => m.name === 'e-2')!.id;
  let removedAt: number | undefined;
  let said: any;
  for (let i = 0; i <= 15 && removedAt === undefined; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
    await loop.step();
    if (loop.etcd.calls.includes(`remove ${id}`)) {
      removedAt = i * 60;
      said = (loop.s().conditions as any[]).find((c) => c.type === 'Recovering');
    }
  }
  t.ok(
    removedAt !== undefined && removedAt >= UNHEALTHY_REPLACE_SECONDS,
    `removed once the limit passed, not before (at ${removedAt} s)`,
  );
  t.match(said, {
    reason: 'ReplacingUnhealthyMember',
    message: /member e-2 has been unhealthy since .*over 10 minutes/,
  });
  await loop.step();
  t.notOk(loop.claims().includes('e-2'), 'its claim deleted with it: a copy of what the quorum holds');
  t.ok(
    loop.etcd.calls.some((c) => c.startsWith('add ')),
    `a new member added: ${loop.etcd.calls.join(', ')}`,
  );
});

t.test(
  'a member waiting for its DNS name while the others keep no quorum without it: kept, its claim too',
  async (t) => {
    const loop = await waitingForDns();
    // e-1 is down too (not Ready): without e-2, the others are 1 of 3.
    loop.etcd.up.delete('e-1');
    loop.phase.set('e-1', 'Running');
    for (let i = 0; i < 30; i++) {
      loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
      await loop.step();
    }
    t.same(loop.etcd.calls, [], 'no membership change');
    t.same(loop.claims(), ['e-0', 'e-1', 'e-2'], 'every claim kept');
    // DNS back: the step passes, etcd starts on its data, the same member.
    loop.phase.delete('e-2');
    loop.podStatus.delete('e-2');
    loop.etcd.up.add('e-2');
    loop.etcd.up.add('e-1');
    await loop.step();
    t.ok(loop.pods().includes('e-2'), 'e-2 serves again as itself');
    t.same(loop.etcd.calls, [], 'still no membership change');
  },
);
