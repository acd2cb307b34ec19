// A cluster without storage loses quorum with a minority of its members gone for good: one member's pod deleted
// (its emptyDir, its data, with it) while another's etcd crash-loops (restarted in place by the kubelet). Quorum is
// lost for the moment, not for good (2 of 3 voters still hold their data), so the answer is QuorumLost, not
// MajorityLost. But the status says of both members "No membership change until they return": the deleted member
// never returns (it is replaced once the crash-looping one is back: remove + add), and a user reading the status is
// told to wait for a pod that no longer exists. The status must tell the member lost for good from the one that may
// come back. Each answer fed back as the next observed state.
import t from 'tap';
import { CRASHING, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test('quorum lost with a no-storage member deleted: the status does not wait for the deleted one', async (t) => {
  const loop = await running({ size: 3 });
  loop.etcd.up.delete('e-1');
  loop.podStatus.set('e-1', CRASHING);
  loop.lose('e-2');
  for (let i = 0; i < 3; i++) {
    loop.now = new Date(FIXED_NOW.getTime() + (i + 1) * 60_000);
    await loop.step();
    t.equal(loop.s().reason, 'QuorumLost', `sync ${i + 1}: quorum lost for the moment (2 of 3 voters keep their data)`);
    const available = loop.s().conditions.find((c: any) => c.type === 'Available');
    t.notMatch(
      available.message,
      /down: [^.]*e-2[^.]*\. No membership change until they return/,
      `sync ${i + 1}: e-2 (pod deleted, no storage) is not said to return: ${available.message}`,
    );
    t.match(available.message, /e-2[^;.]*(deleted|lost|gone|never)/i, 'e-2 is named as lost for good');
  }
  t.same(loop.etcd.calls, [], 'no membership change while quorum is lost');
});
