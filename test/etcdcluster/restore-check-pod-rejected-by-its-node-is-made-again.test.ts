// A restore's check pod that its node's kubelet rejected at admission (the scheduler and the kubelet disagreeing on
// the node's room just after a node restart: `OutOfcpu`, `OutOfmemory`, `OutOfpods`; a device plugin not yet
// registered: `UnexpectedAdmissionError`; labels changed under it: `NodeAffinity`) is ended for good before any of
// its containers ran: phase Failed, its status.reason saying why, no container status. That says nothing of the
// snapshot, of its credentials or of the restored members' images, as an eviction does not: the pod is dropped and a
// new one checks (within the check's deadline), rather than the restore waiting on a pod that will never run until
// its 10 minutes refuse it. Each answer is fed back as the next observed state.
import t from 'tap';
import { restoreObject, running } from '../fixtures/etcd-loop.js';

const CHECK = 'e-restore-check';

for (const reason of ['OutOfcpu', 'UnexpectedAdmissionError', 'NodeAffinity'])
  t.test(`a check pod rejected by its node (${reason}) is dropped and made again`, async (t) => {
    const loop = await running({ size: 3 });
    loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
    await loop.step();
    t.match(loop.s().restore, { phase: 'Checking' });
    loop.podStatus.set(CHECK, {
      phase: 'Failed',
      reason,
      message: `Pod was rejected: ${reason}`,
    });
    await loop.step();
    t.match(loop.s().restore, { phase: 'Checking' }, 'still checking');
    t.notOk(loop.checkPod(), 'the rejected check pod is dropped (a new one checks)');
    loop.podStatus.delete(CHECK);
    for (let i = 0; i < 3 && loop.s().restore?.phase === 'Checking'; i++) await loop.step();
    t.match(loop.s().restore, { phase: 'Replacing' }, 'the check made again passed: the restore goes on');
  });
