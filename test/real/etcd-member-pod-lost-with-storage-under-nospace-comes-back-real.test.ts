// Real etcd 3.6.9 (the test kubelet): under a NOSPACE alarm (etcd refuses writes; every member serves reads and
// counts for quorum), a member pod deleted with its claim kept (a node drained or replaced) comes back as itself on
// its claim, as docs/etcdcluster.md promises ("with storage its claim is kept and it comes back as itself") and as it
// does without the alarm. Before, the alarm plans answered the pods kept, not those to make again: it stayed gone for
// as long as the alarm lasted, the cluster on 2 of 3 without fault tolerance. Making a member's pod again is no
// membership change: the member list stays as it was, and the alarm is said all along. (Found by the issue 30
// attack; hook level: test/etcdcluster/member-pods-made-again-on-their-claims-under-an-alarm.test.ts.)
import t from 'tap';
import { call } from '../../lib/http.js';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { EtcdKubelet, etcdBin, maintenance, memberAlarm } from '../fixtures/etcd-kubelet.js';
import { allReady } from '../fixtures/etcd-status.js';

etcdBin();
const PVC = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };

/** The member IDs etcd lists, through the member at `ep`, sorted. */
async function memberIds(ep: string): Promise<string[]> {
  const res = await call(new URL(`${ep}/v3/cluster/member/list`), {
    method: 'POST',
    body: '{}',
    timeoutMs: 3000,
    timeoutError: () => new Error('timed out'),
  });
  const body = JSON.parse(res.body) as { members?: Array<{ ID: string }> };
  return (body.members ?? []).map((m) => String(m.ID)).sort();
}

/** The ID of the member serving at `ep`, or undefined while none answers there. */
async function servedId(ep: string): Promise<string | undefined> {
  try {
    return String((await maintenance(ep, 'status', {})).header.member_id);
  } catch {
    return undefined;
  }
}

/** The Available condition's status and reason an answer gives. */
function availableOf(res: CompositeSyncResponse): string {
  const available = ((res.status as any)?.conditions ?? []).find((c: any) => c.type === 'Available');
  return `${available?.status} ${available?.reason}`;
}

t.test('under NOSPACE a member pod deleted with its claim kept comes back as itself', async (t) => {
  const k = new EtcdKubelet('nsp', { size: 3, version: '3.6.9', pod: { persistentVolumeClaimSpec: PVC } });
  t.teardown(() => k.shutdown());
  await k.converge('size 3', allReady(3));
  await k.put('k', 'v');
  const ep = k.endpoint('nsp-0');
  const ids = await memberIds(ep);
  t.equal(ids.length, 3);
  const lostId = await servedId(k.endpoint('nsp-2'));
  await memberAlarm(ep, 'NOSPACE');
  for (let i = 0; i < 2; i++) await k.step();
  await k.deletePod('nsp-2');
  let served: string | undefined;
  const reasons = new Set<string>();
  const start = Date.now();
  while (Date.now() - start < 45_000 && !served) {
    reasons.add(availableOf(await k.step()));
    await new Promise((r) => setTimeout(r, 1000));
    if (k.livePods().includes('nsp-2')) served = await servedId(k.endpoint('nsp-2'));
  }
  t.comment(`pods: ${k.livePods().join(', ')}; Available: ${[...reasons].join(', ')}`);
  t.ok(k.livePods().includes('nsp-2'), 'nsp-2 made again on its claim while the alarm holds');
  t.equal(served, lostId, 'nsp-2 serves as the member it was (its etcd started on its data)');
  t.same(await memberIds(ep), ids, 'no membership change');
  t.equal(availableOf(await k.step()), 'False NoSpace', 'the alarm said');
  t.match(await maintenance(ep, 'alarm', { action: 'GET' }), { alarms: [{ alarm: 'NOSPACE' }] }, 'the alarm held');
  t.equal(await k.get('k'), 'v', 'every key kept');
});
