// MajorityLost: a majority of members lost with their data (no storage), etcd answers
// nothing, and Metacontroller then sends the EtcdCluster without its status. Nothing may be bootstrapped beside the
// survivor (an empty cluster that looks healthy over the lost data), and the loss stays told as MajorityLost.
import t from 'tap';
import { running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

for (const how of ['deleted', 'Failed'] as const)
  t.test(`2 of 3 member pods ${how}, status lost: no new member, still MajorityLost`, async (t) => {
    const loop = await running({ size: 3 });
    if (how === 'deleted') loop.lose('e-1', 'e-2');
    else
      for (const p of ['e-1', 'e-2']) {
        loop.etcd.up.delete(p);
        loop.phase.set(p, 'Failed');
      }
    loop.etcd.up.delete('e-0'); // the survivor alone has no quorum and does not answer
    loop.etcd.listError = new Error('etcdserver: request timed out');
    await loop.step();
    t.match(loop.s(), { phase: 'Failed', reason: 'MajorityLost' }, 'told first');
    const podsBefore = loop.pods();
    loop.status = undefined;
    for (let i = 0; i < 3; i++) {
      loop.now = new Date(FIXED_NOW.getTime() + (i + 1) * 60_000);
      await loop.step();
    }
    t.same(loop.pods(), podsBefore, `no member pod made or dropped (${loop.pods().join(',')})`);
    t.same(loop.etcd.calls, [], 'no membership change');
    t.match(
      loop.s(),
      { phase: 'Failed', reason: 'MajorityLost' },
      `after status loss: ${loop.s().phase}/${loop.s().reason}`,
    );
  });
