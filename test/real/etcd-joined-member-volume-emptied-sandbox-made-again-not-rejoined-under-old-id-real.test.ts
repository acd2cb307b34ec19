// Issue 30 ("pods and volumes lost or emptied", "containers that restart") on real etcd 3.6.9, run by the test
// kubelet. docs/etcdcluster.md says of a volume emptied under a running member: "a member that joined later or was
// made again (`existing`) ... takes its old ID empty as a pod made again did before this check (a pod made again
// later, or its sandbox made again, runs the check)". But a member that joined (a scale-up's addition, a
// replacement) has a pod made fresh, and a fresh pod carries no `check-data` step (members.ts memberPod: requireData
// only for a pod made again on its claim). When such a member's volume comes back empty and its pod's sandbox is made
// again (a node rebooted with a local volume on a wiped instance disk: the pod is still bound to the node, so it is
// not made again; the kubelet makes its sandbox again and runs its init steps), nothing checks: etcd starts with
// `--initial-cluster-state=existing` on an empty data directory, takes the member's old ID from its peers with an
// empty raft log, and serves: the voter that forgot what it acknowledged (the harm measured in
// etcd-member-volume-emptied-not-rejoined-under-old-id-real.test.ts, test 2).
//
// Must hold: a member that joined, whose volume comes back empty when its sandbox is made again, does not serve as its
// old self (same member ID, a WAL made again on the emptied volume); it is replaced or held, as a pod made again on
// an emptied claim is.
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { EtcdKubelet, etcdBin } from '../fixtures/etcd-kubelet.js';
import { status } from '../fixtures/etcd-status.js';

etcdBin();

const PVC = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };
const settled = (size: number) => (res: CompositeSyncResponse) => {
  const s = status(res);
  return s.members.ready.length === size && s.members.unready.length === 0;
};
const idOf = (res: CompositeSyncResponse, name: string) =>
  status(res).memberList.find((m: any) => m.name === name)?.id as string | undefined;

t.test('a joined member whose volume is emptied under its pod does not rejoin under its old ID', async (t) => {
  const k = new EtcdKubelet('join', { size: 1, version: '3.6.9', pod: { persistentVolumeClaimSpec: PVC } });
  t.teardown(() => k.shutdown());
  await k.converge('size 1', settled(1));
  k.setSpec({ ...k.spec, size: 3 });
  await k.converge('size 3', settled(3), 120_000);
  for (let i = 0; i < 30; i++) await k.put(`key-${i}`, `value-${i}`);
  const before = await k.step();
  const joined = 'join-2';
  const oldId = idOf(before, joined);
  t.ok(oldId, `${joined} joined the cluster (ID ${oldId})`);
  const made = (before.children.find((c) => c.kind === 'Pod' && c.metadata.name === joined)?.['spec'] as any) ?? {};
  t.comment(
    `${joined}'s pod: init ${made.initContainers?.map((c: any) => c.name).join(',')}, ` +
      `${made.containers?.[0]?.command?.find((a: string) => a.startsWith('--initial-cluster-state'))}`,
  );

  // Its volume comes back empty under its pod, and the kubelet makes the pod's sandbox again (a node reboot).
  const claim = k.claimDir(joined);
  rmSync(claim, { recursive: true, force: true });
  mkdirSync(claim, { recursive: true });
  t.same(readdirSync(claim), [], `the claim of ${joined} is empty`);
  await k.recreateSandbox(joined);

  let last = await k.step();
  const start = Date.now();
  const wal = join(claim, 'data', 'member', 'wal');
  while (Date.now() - start < 45_000) {
    last = await k.step();
    // (Seen for a while: at least 8 s after its sandbox was made again.)
    if (Date.now() - start > 8_000 && settled(3)(last) && idOf(last, joined) === oldId && existsSync(wal)) break;
    if (!status(last).memberList.some((m: any) => m.id === oldId)) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  t.comment(
    `after ${((Date.now() - start) / 1000).toFixed(1)} s: memberList ${JSON.stringify(status(last).memberList)}`,
  );
  t.comment(`ready ${status(last).members.ready.join(', ')}; ${joined} WAL made again: ${existsSync(wal)}`);
  const servingEmptyUnderOldId =
    k.livePods().includes(joined) &&
    status(last).members.ready.includes(joined) &&
    idOf(last, joined) === oldId &&
    existsSync(wal);
  t.notOk(
    servingEmptyUnderOldId,
    `${joined} does not serve again as member ${oldId} on its emptied volume (live ${k.livePods().join(', ')})`,
  );
  for (let i = 0; i < 30; i += 10) t.equal(await k.get(`key-${i}`), `value-${i}`, `key-${i} kept`);
});
