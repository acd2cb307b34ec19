// Issue 31, "data that vanishes under a running member", on real etcd (3.6.9), run by the test kubelet. A member with
// storage whose pod is lost keeps its claim, and the hook makes its pod again on it with --initial-cluster-state
// existing (plan/answered.ts recreatedPods). If the claim's volume comes back empty (a local volume on a replaced
// disk, a volume restored from the wrong snapshot, a data directory removed by hand), etcd finds no WAL, looks its
// name up among the peers and takes the member's old ID with an empty raft log: a voter that forgot what it
// acknowledged and voted for (etcd's docs: a member whose data directory is lost must be removed and added again).
// What must hold (docs/etcd-failures.md: "never restarted empty under its old ID"): such a member does not serve as
// its old self; it is replaced (remove + add) or held, and the status says why.
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { EtcdKubelet, etcdBin } from '../fixtures/etcd-kubelet.js';
import { condition, status } from '../fixtures/etcd-status.js';

etcdBin();

const PVC = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };
const settled = (size: number) => (res: CompositeSyncResponse) => {
  const s = status(res);
  return (
    s.members.ready.length === size && s.members.unready.length === 0 && condition(res, 'Scaling')?.status === 'False'
  );
};
const idOf = (res: CompositeSyncResponse, name: string) =>
  status(res).memberList.find((m: any) => m.name === name)?.id as string | undefined;

t.test('a member whose volume comes back empty does not rejoin under its old ID with an empty log', async (t) => {
  const k = new EtcdKubelet('wipe', { size: 3, version: '3.6.9', pod: { persistentVolumeClaimSpec: PVC } });
  t.teardown(() => k.shutdown());
  await k.converge('size 3', settled(3));
  for (let i = 0; i < 50; i++) await k.put(`key-${i}`, `value-${i}`);
  const before = await k.step();
  const oldId = idOf(before, 'wipe-2');
  t.ok(oldId, `wipe-2 is a member (ID ${oldId})`);

  // The pod is lost with its node; its claim stays, but the volume behind it comes back empty.
  await k.deletePod('wipe-2');
  const claim = k.claimDir('wipe-2');
  rmSync(claim, { recursive: true, force: true });
  mkdirSync(claim, { recursive: true });
  t.same(readdirSync(claim), [], 'the claim of wipe-2 is empty');

  // Metacontroller and the kubelet carry on for up to a minute.
  // (Until wipe-2 runs again under its old ID, or is replaced: the cluster back at size without it.)
  let last = await k.step();
  const said: string[] = [];
  const start = Date.now();
  while (Date.now() - start < 60_000) {
    last = await k.step();
    const recovering = condition(last, 'Recovering');
    if (recovering?.reason === 'MemberDataLost') said.push(recovering.message);
    if (settled(3)(last) && k.livePods().includes('wipe-2') && idOf(last, 'wipe-2') === oldId) break;
    if (settled(3)(last) && !status(last).memberList.some((m: any) => m.id === oldId)) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const wal = join(claim, 'data', 'member', 'wal');
  const pod = (last.children.find((c) => c.kind === 'Pod' && c.metadata.name === 'wipe-2')?.['spec'] as any)
    ?.containers?.[0]?.command as string[] | undefined;
  t.comment(`wipe-2 answered with ${pod?.find((a) => a.startsWith('--initial-cluster-state'))}`);
  t.comment(
    `after ${((Date.now() - start) / 1000).toFixed(1)} s: memberList ${JSON.stringify(status(last).memberList)}`,
  );
  t.comment(`wipe-2 WAL made again on the empty volume: ${existsSync(wal)}`);
  t.comment(`Recovering: ${JSON.stringify(condition(last, 'Recovering'))}`);
  t.comment(`restarts of wipe-2: ${k.restartCount('wipe-2')}`);
  t.comment(k.logs().split('--- wipe-2')[1]?.slice(-3000) ?? '');
  const servingEmptyUnderOldId = k.livePods().includes('wipe-2') && idOf(last, 'wipe-2') === oldId && existsSync(wal);
  t.notOk(
    servingEmptyUnderOldId,
    `wipe-2 does not run again as member ${oldId} on its emptied volume (live ${k.livePods().join(', ')}, ` +
      `ready ${status(last).members.ready.join(', ')})`,
  );
  t.match(
    said[0],
    /member wipe-2 came back on a claim holding none of its data/,
    'the status said why (MemberDataLost)',
  );
  t.notOk(
    status(last).memberList.some((m: any) => m.id === oldId),
    `member ${oldId} is removed from the cluster`,
  );
  t.ok(settled(3)(last), 'a new member under a new name took its place: 3 members, all ready');
  t.notOk(
    status(last).memberList.some((m: any) => m.name === 'wipe-2'),
    'none under the name wipe-2',
  );
  for (let i = 0; i < 50; i += 10) t.equal(await k.get(`key-${i}`), `value-${i}`, `key-${i} kept`);
});

// The harm, measured: the emptied member votes with an empty log. Key `acked` is written while member Z is down, so
// only X and Y hold it (a majority: committed, acknowledged to the client). Then X goes down and Y's volume comes
// back empty; Z (without `acked`) comes back. The hook makes Y's pod again on its emptied claim, under its old ID:
// Y votes for Z (an empty log is never more up to date), Z leads with Y as its majority, and the committed key is
// gone. A member made again on a claim must not vote as its old self without its data.
t.test('a write acknowledged by a majority is not lost through a member that came back empty', async (t) => {
  const k = new EtcdKubelet('lose', { size: 3, version: '3.6.9', pod: { persistentVolumeClaimSpec: PVC } });
  t.teardown(() => k.shutdown());
  await k.converge('size 3', settled(3));
  await k.put('before', 'kept');
  const [X, Y, Z] = ['lose-0', 'lose-1', 'lose-2'];

  await k.stop(Z);
  let acked = false;
  for (let i = 0; i < 20 && !acked; i++) {
    try {
      await k.put('acked', 'committed by X and Y');
      acked = true;
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  t.ok(acked, 'key acked written and acknowledged with Z down (X and Y: a majority)');

  await k.stop(X);
  await k.deletePod(Y);
  const claim = k.claimDir(Y);
  rmSync(claim, { recursive: true, force: true });
  mkdirSync(claim, { recursive: true });
  k.restart(Z);

  // Metacontroller and the kubelet carry on: the hook makes Y's pod again on its (now empty) claim.
  let value: string | undefined | 'unanswered' = 'unanswered';
  const start = Date.now();
  while (Date.now() - start < 60_000) {
    await k.step();
    try {
      value = await k.get('acked');
      if (value === undefined) break;
    } catch {
      value = 'unanswered';
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  t.comment(
    `after ${((Date.now() - start) / 1000).toFixed(1)} s, with X down: acked read back as ${JSON.stringify(value)}`,
  );
  t.comment(
    `Y's pod answered: ${k.livePods().includes(Y)}; its WAL made again: ${existsSync(join(claim, 'data', 'member', 'wal'))}`,
  );
  if (value === undefined) {
    // The read above is linearizable (etcd's default): a majority (Y and Z) answered it. So does this one.
    t.equal(await k.get('before'), 'kept', 'the cluster serves (a key written before Z went down is read back)');
  }
  t.not(value, undefined, 'the cluster never serves without the acknowledged write (it answers it, or nothing)');
  const held = await k.step();
  t.match(
    condition(held, 'Recovering'),
    { reason: 'MemberDataLost', message: /lose-1 came back on a claim holding none of its data/ },
    "while quorum is lost the status says Y's data is gone",
  );
  t.ok(
    status(held).memberList.some((m: any) => m.name === Y),
    'and no member is removed while quorum is lost',
  );

  // X comes back: X and Z hold a quorum without Y, and Y is replaced under a new name; the write is there.
  k.restart(X);
  await k.converge(
    'Y replaced',
    (res) => settled(3)(res) && !status(res).memberList.some((m: any) => m.name === Y),
    90_000,
  );
  t.equal(await k.get('acked'), 'committed by X and Y', 'the acknowledged write is read back');
  t.equal(await k.get('before'), 'kept', 'and the one before');
});
