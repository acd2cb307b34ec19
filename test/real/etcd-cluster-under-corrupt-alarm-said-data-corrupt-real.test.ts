// Real etcd 3.6.9: etcd raises a CORRUPT alarm (its corruption check found members that disagree): every member
// refuses writes, /health fails ("ALARM CORRUPT"), reads and the maintenance API answer, the leader and the quorum
// are there. Before, the hook read every member as down: `Available=False` `QuorumLost` "0 of 3 members healthy",
// never naming the alarm. Now the alarm is read as NOSPACE is: `DataCorrupt`, naming the member the alarm names and
// etcd's way out, the members counted for quorum, no membership change. (Found by the issue 30 attack.)
import t from 'tap';
import { EtcdKubelet, etcdBin, memberAlarm } from '../fixtures/etcd-kubelet.js';
import { allReady, condition } from '../fixtures/etcd-status.js';

etcdBin();

t.test('a cluster under a CORRUPT alarm is said to be so, not QuorumLost', async (t) => {
  const k = new EtcdKubelet('crq', { size: 3, version: '3.6.9' });
  t.teardown(() => k.shutdown());
  await k.converge('size 3', allReady(3));
  await k.put('k', 'v');
  const member = await memberAlarm(k.endpoint('crq-2'));
  t.equal(await k.get('k'), 'v', 'reads are served: the quorum is there');
  let res;
  for (let i = 0; i < 4; i++) {
    res = await k.step();
    await new Promise((r) => setTimeout(r, 500));
  }
  const available = condition(res!, 'Available');
  t.comment(JSON.stringify(available));
  t.not(available?.reason, 'QuorumLost', 'not said to have lost its quorum');
  t.match(JSON.stringify(res!.status), /CORRUPT/, 'the status names the CORRUPT alarm');
  t.match(available, { status: 'False', reason: 'DataCorrupt' }, 'said DataCorrupt');
  t.match(available?.message, new RegExp(`found member crq-2 \\(ID ${member}\\)`), 'naming the member');
  t.match((res!.status as any).quorum, { ok: true }, 'the quorum is there');
  t.equal(await k.get('k'), 'v', 'every key kept');
});
