// Issue 30, "members restart in place ... a majority that crashes and restarts regains quorum by itself", and "the
// same kind": a container that must restart. An etcd process that hangs (frozen: a stalled disk's fsync, a deadlock,
// a cgroup freeze) has not exited, so restartPolicy Always alone never restarts it. coreos's member pods carried a
// livenessProbe (etcdctl get, every 60 s, 3 failures) for exactly this; the pods made here carry a readinessProbe
// only. Without storage, 2 of 3 members hung at once is then a permanent QuorumLost (and the natural way out, deleting
// the hung pods, deletes their data).
// Real etcd run by the test kubelet from the member pods' specs; the kubelet's liveness check is played here as a
// kubelet runs it (what each pod's etcd container asks for: its livenessProbe, its failureThreshold; the periods
// shortened to a second): a container that fails it that many times in a row is killed and restarted in place.
// (Checked by hand: with a local liveness check on the etcd container, httpGet /health?serializable=true, 3 failures,
// this passes in ~16 s; with a quorum check (etcdctl endpoint health, /health) the member that served is restarted
// too while quorum is lost, which the last assertion refuses. Without any, as now: QuorumLost for the whole 90 s.)
import t from 'tap';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { call } from '../../lib/http.js';
import { EtcdKubelet, etcdBin } from '../fixtures/etcd-kubelet.js';
import { allReady, condition, membership, status } from '../fixtures/etcd-status.js';

etcdBin();

/**
 * Where the probe asks: an httpGet's own port (the pod's address: its 0.0.0.0 listeners bind it) and path; an exec of
 * etcdctl `endpoint health` etcd's client port's /health (quorum read), or with `--consistency=s` its local
 * /health?serializable=true; any other exec command (`endpoint status`) the local check.
 */
function probeUrl(k: EtcdKubelet, pod: string, probe: any): string {
  if (probe.httpGet)
    return `${String(probe.httpGet.scheme ?? 'HTTP').toLowerCase()}://${k.members.get(pod)!.ip}:${probe.httpGet.port}${probe.httpGet.path ?? '/'}`;
  const cmd = ((probe.exec?.command ?? []) as string[]).join(' ');
  const path = /endpoint health/.test(cmd) && !/consistency=s/.test(cmd) ? '/health' : '/health?serializable=true';
  return `${k.endpoint(pod)}${path}`;
}

/** Whether the member's etcd answers the probe's URL with 200 within `timeoutMs`. */
async function answers(url: string, timeoutMs: number): Promise<boolean> {
  try {
    const res = await call(new URL(url), {
      method: 'GET',
      timeoutMs,
      timeoutError: () => new Error('timed out'),
    });
    return res.status === 200;
  } catch {
    return false;
  }
}

/** The kubelet's liveness probing of every member pod that asks for it, once a second; returns a stop function. */
function livenessProber(k: EtcdKubelet, killed: string[]): () => void {
  const failures = new Map<string, number>();
  let stopped = false;
  const round = async () => {
    while (!stopped) {
      for (const pod of k.children.filter((c) => c.kind === 'Pod') as KubeObject[]) {
        const probe = (pod['spec'] as any).containers.find((c: any) => c.name === 'etcd')?.livenessProbe;
        const name = pod.metadata.name!;
        // (A container that is not running is not probed: one that exited, or that a test holds down.)
        const proc = k.members.get(name)?.proc;
        if (!probe || !proc || proc.exitCode !== null || proc.signalCode !== null) continue;
        const ok = await answers(probeUrl(k, name, probe), Math.min(2, probe.timeoutSeconds ?? 1) * 1000);
        const n = ok ? 0 : (failures.get(name) ?? 0) + 1;
        failures.set(name, n);
        if (n >= (probe.failureThreshold ?? 3)) {
          failures.set(name, 0);
          killed.push(name);
          await k.crash(name); // the kubelet kills the container; restartPolicy Always starts it again
        }
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  };
  void round();
  return () => {
    stopped = true;
  };
}

t.test('2 of 3 etcd processes hung at once, no storage: restarted in place, every key, the same members', async (t) => {
  const k = new EtcdKubelet('hung', { size: 3, version: '3.6.9' });
  const killed: string[] = [];
  const stopProbes = livenessProber(k, killed);
  t.teardown(async () => {
    stopProbes();
    for (const m of k.members.values()) m.proc?.kill('SIGCONT');
    await k.shutdown();
  });
  await k.converge('size 3', allReady(3));
  for (let i = 0; i < 50; i++) await k.put(`key-${i}`, `value-${i}`);
  const before = await k.step();
  const members = membership(before);
  const last = status(before).lastMemberIndex;
  // Two etcd processes freeze (alive, never answering again by themselves).
  for (const p of ['hung-1', 'hung-2']) k.members.get(p)!.proc!.kill('SIGSTOP');
  const during = await k.step();
  t.match(condition(during, 'Available'), { status: 'False' }, 'quorum lost while they hang');
  let back: CompositeSyncResponse | undefined;
  const start = Date.now();
  const reasons = new Set<string>();
  while (Date.now() - start < 90_000) {
    const res = await k.step();
    reasons.add(`${condition(res, 'Available')?.reason}`);
    if (allReady(3)(res)) {
      back = res;
      break;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  t.comment(
    `Available reasons seen: ${[...reasons].join(', ')}; containers the kubelet restarted: ${killed.join(', ') || 'none'}`,
  );
  t.ok(back, 'quorum back within 90 s, with no one acting (the hung containers restarted in place)');
  if (!back) return;
  t.same(membership(back), members, 'the same members, the same IDs');
  t.equal(status(back).lastMemberIndex, last, 'no member added');
  t.notOk(killed.includes('hung-0'), 'the member that served was never restarted by its probe');
  for (let i = 0; i < 50; i++) t.equal(await k.get(`key-${i}`), `value-${i}`);
});

// The probe asks the member alone: a member that serves while quorum is lost (the other two down for longer than the
// probe's whole failure budget) passes it and is never restarted, on 3.6 (/livez) and 3.5 (/metrics) alike. A check
// that asked for quorum (/health, `etcdctl endpoint health`) would restart it in a loop for as long as quorum is lost.
for (const version of ['3.6.9', '3.5.21']) {
  t.test(`etcd ${version}: the member that serves while quorum is lost passes its probe`, async (t) => {
    const k = new EtcdKubelet(`alone${version.replaceAll('.', '')}`, { size: 3, version });
    const killed: string[] = [];
    const stopProbes = livenessProber(k, killed);
    t.teardown(async () => {
      stopProbes();
      await k.shutdown();
    });
    await k.converge('size 3', allReady(3));
    const [serving, ...others] = k.livePods();
    for (const p of others) await k.stop(p!); // down, and held down: not restarted by the kubelet
    const during = await k.step();
    t.match(condition(during, 'Available'), { status: 'False' }, 'quorum lost');
    const probe = (k.children.find((c) => c.kind === 'Pod' && c.metadata.name === serving)!['spec'] as any)
      .containers[0].livenessProbe;
    // Twice the probe's failure budget at the prober's one-second period.
    await new Promise((r) => setTimeout(r, 2 * (probe.failureThreshold ?? 3) * 1000 + 2000));
    t.ok(await answers(probeUrl(k, serving!, probe), 2000), `${serving} answers its probe while quorum is lost`);
    t.same(killed, [], 'no container restarted by its probe');
    for (const p of others) k.restart(p!);
    const back = await k.converge('quorum back', allReady(3));
    t.ok(back, 'the cluster back as it was');
  });
}
