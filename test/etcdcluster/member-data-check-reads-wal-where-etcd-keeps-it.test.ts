// Issue 30: with storage, two of three member pods lost come back on their claims as themselves and the quorum
// returns from their data (docs/etcd-failures.md "Two of three pods vanish, with storage"). A member pod made again on
// its claim first runs `check-data`, which proves the claim holds the member's data by finding
// /var/etcd/data/member/snap and /var/etcd/data/member/wal/*.wal. But where etcd keeps its write-ahead log is the
// tenant's to say: spec.pod.etcdEnv ETCD_WAL_DIR (etcd's --wal-dir, which the hook's command does not set, so the
// variable is accepted: a dedicated WAL directory is common etcd tuning) puts the WAL files in that directory,
// e.g. /var/etcd/wal on the same volume, and none under member/wal. The claim holds every byte of the member, the
// check says `etcd member data missing` (exit 66), and the member is taken as one whose data is lost: removed and
// replaced when the quorum holds without it (a full re-sync for nothing), never started when it does not: two of
// three pods lost is then a permanent outage with every member's data on its claim.
//
// Must hold: a spec whose etcdEnv moves the WAL is refused (InvalidSpec naming the variable, no member made), or a
// member whose claim holds its data, as etcd wrote it under the spec's own etcdEnv, comes back as itself.
// The check-data script the hook answers is run here by /bin/sh on a folder standing for each claim (its paths moved
// under that folder), its exit and output given back as the kubelet reports an init step; each answer fed back.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answeredPod, PVC, running, type Loop } from '../fixtures/etcd-loop.js';

/** A claim's volume as etcd 3.5 leaves it with --wal-dir=/var/etcd/wal: the snapshot dir under data, the WAL apart. */
function claimWithDedicatedWal(root: string): void {
  mkdirSync(join(root, 'data/member/snap'), { recursive: true });
  writeFileSync(join(root, 'data/member/snap/db'), 'bbolt');
  mkdirSync(join(root, 'wal'), { recursive: true });
  writeFileSync(join(root, 'wal/0000000000000000-0000000000000000.wal'), 'wal');
}

/** Runs the pod's check-data step (if any) on `volume` standing for /var/etcd: its exit code and output. */
function runCheck(pod: any, volume: string): { exitCode: number; message: string } | undefined {
  const step = (pod.spec.initContainers ?? []).find((c: any) => c.name === 'check-data');
  if (!step) return undefined;
  const script = String(step.command[2]).replaceAll('/var/etcd', volume);
  try {
    const out = execFileSync('/bin/sh', ['-c', script], { encoding: 'utf8' });
    return { exitCode: 0, message: out };
  } catch (err: any) {
    return { exitCode: err.status ?? 1, message: String(err.stdout ?? '') };
  }
}

/** The kubelet: each pod made again runs its check; one that passes starts etcd, which answers (its data is there). */
function kubelet(loop: Loop, volumes: Record<string, string>, results: Record<string, number>): void {
  for (const name of loop.pods()) {
    const pod = answeredPod(loop, name) as any;
    const r = runCheck(pod, volumes[name]!);
    if (!r) continue;
    results[name] = r.exitCode;
    if (r.exitCode === 0) {
      loop.podStatus.delete(name);
      loop.etcd.up.add(name);
      continue;
    }
    loop.podStatus.set(name, {
      phase: 'Pending',
      initContainerStatuses: [
        {
          name: 'check-data',
          restartCount: 2,
          state: { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: { terminated: { exitCode: r.exitCode, reason: 'Error', message: r.message.trim() } },
        },
      ],
      containerStatuses: [
        { name: 'etcd', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } },
      ],
    });
  }
}

for (const lost of [['e-2'], ['e-1', 'e-2']])
  t.test(
    `etcdEnv ETCD_WAL_DIR on the member volume: ${lost.length} of 3 pods lost come back as themselves`,
    async (t) => {
      const root = mkdtempSync(join(tmpdir(), 'a32-wal-'));
      t.teardown(() => rmSync(root, { recursive: true, force: true }));
      const loop = await running({
        size: 3,
        pod: { persistentVolumeClaimSpec: PVC, etcdEnv: [{ name: 'ETCD_WAL_DIR', value: '/var/etcd/wal' }] },
      });
      if (loop.pods().length === 0) {
        const ready = loop.s().conditions.find((c: any) => c.type === 'Ready');
        t.equal(ready?.reason, 'InvalidSpec', 'refused, no member made');
        t.match(ready?.message, /ETCD_WAL_DIR/, 'naming the variable');
        return;
      }
      t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the spec is taken: a running cluster');
      const volumes: Record<string, string> = {};
      for (const m of loop.pods()) {
        volumes[m] = join(root, m);
        claimWithDedicatedWal(volumes[m]!);
      }
      const ids = Object.fromEntries(loop.s().memberList.map((m: any) => [m.name, m.id]));
      loop.lose(...lost);
      if (lost.length > 1) loop.etcd.listError = new Error('etcdserver: no leader');
      const results: Record<string, number> = {};
      for (let i = 0; i < 8; i++) {
        await loop.step();
        kubelet(loop, volumes, results);
        if (lost.every((m) => loop.etcd.up.has(m))) loop.etcd.listError = undefined;
      }
      t.comment(`check-data exits ${JSON.stringify(results)}; calls ${JSON.stringify(loop.etcd.calls)}`);
      t.comment(
        JSON.stringify(loop.s().conditions.map((c: any) => [c.type, c.reason, String(c.message).slice(0, 180)])),
      );
      for (const m of lost) t.equal(results[m], 0, `${m}'s check finds the data its claim holds`);
      t.same(loop.etcd.calls, [], 'no member removed or added');
      t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the same members');
      t.same(Object.fromEntries(loop.s().memberList.map((m: any) => [m.name, m.id])), ids, 'under their member IDs');
    },
  );
