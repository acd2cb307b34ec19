// Real etcd 3.6.9 and 3.5.21 serving clients over TLS (TLS.static.member), the member pod's own probes run as the
// kubelet runs them: the readiness, startup and liveness probes the hook puts in the pod spec (members.ts memberPod),
// each command exactly as the pod carries it. Unit tests only see the spec; here the probe meets real etcd: the
// scheme and port it dials (`https://localhost:2379`, the metrics listener's plain `:2381`), the certificate files
// it presents (the server Secret's, at the path the pod mounts them), etcdctl's verdict.
//
// How: the member runs in a network namespace of its own (as a pod has), so that its listeners are the pod's ports
// on its own localhost; its etcd is started from the pod's command line, rewritten only where a node provides (the
// image's /usr/local/bin/etcd, a data directory, the Secret volumes' files where the pod mounts them, and the peer
// URLs on loopback, where two more members of its cluster run). An exec probe runs in that namespace with the same
// rewrites (/usr/local/bin/etcdctl: e2e/tools/etcdctl, a stand-in for the commands the probes use, on etcd's client
// library, since etcdctl's own module is not served here), killed at the probe's timeoutSeconds; an httpGet probe is
// a GET of the pod's port from inside, 200-399 passing, within the timeout.
//
// Must hold, on each version: every probe passes on a member that serves; without quorum (the two other members
// stopped) readiness fails and liveness passes (the kubelet must not restart a member for its peers' outage); the
// quorum back, readiness passes again; the member itself hung (SIGSTOP) fails both.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { clusterOf, livenessProbe as livenessOf, memberPod, peerURL } from '../../hooks/etcdcluster/members.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { etcdParent, etcdSpec } from '../fixtures/etcd.js';
import { etcdBin } from '../fixtures/etcd-kubelet.js';
import { Pki } from '../fixtures/pki.js';
import { root } from '../fixtures/requests.js';

const run = promisify(execFile);
const bin = etcdBin();
const etcdctl = join(
  execFileSync('bash', [join(root, 'e2e', 'build.sh'), 'etcdctl'], { stdio: ['ignore', 'pipe', 'inherit'] })
    .toString()
    .trim()
    .split('\n')
    .pop()!,
  'etcdctl-probes',
);

const NAME = 'p';
const NS = 'ns';
const pki = new Pki('etcd-probe-ca');
const ca = pki.read('ca.crt');
// As docs/etcdcluster.md asks: the members' names, the client Service, and localhost (the probe dials it); 127.0.0.1
// for the peers on loopback.
const server = pki.issue('server', 'etcd-server', {
  san: `DNS:*.${NAME}.${NS}.svc,DNS:*.${NAME}.${NS}.svc.cluster.local,DNS:${NAME}-client.${NS}.svc,DNS:localhost,IP:127.0.0.1`,
});
const peer = pki.issue('peer', 'etcd-peer', { san: `DNS:*.${NAME}.${NS}.svc,IP:127.0.0.1` });
const SECRETS: Record<string, Record<string, Buffer>> = {
  'member-server-tls': { 'server-ca.crt': ca, 'server.crt': server.cert, 'server.key': server.key },
  'member-peer-tls': { 'peer-ca.crt': ca, 'peer.crt': peer.cert, 'peer.key': peer.key },
};

const TLS = { static: { member: { peerSecret: 'peer', serverSecret: 'server' }, operatorSecret: 'op' } };

/** A network namespace of its own, with its loopback up, held by a process of ours (killed at teardown). */
async function namespace(t: any): Promise<string> {
  const holder = spawn('unshare', ['--net', '--', 'sh', '-c', 'ip link set lo up && exec sleep 3600'], {
    stdio: 'ignore',
  });
  t.teardown(() => holder.kill('SIGKILL'));
  const ns = `/proc/${holder.pid}/ns/net`;
  for (let i = 0; i < 50; i++) {
    const { stdout } = await run('nsenter', [`--net=${ns}`, 'ip', '-o', 'link', 'show', 'lo']).catch(() => ({
      stdout: '',
    }));
    if (stdout.includes('UP')) return ns;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the namespace did not come up');
}

/** The pod's paths as the node provides them: its Secret volumes' files, the image's binaries. */
function rewrite(arg: string, mounts: Map<string, string>, version: string): string {
  if (arg === '/usr/local/bin/etcd') return join(bin, `etcd-v${version}`);
  if (arg === '/usr/local/bin/etcdctl') return etcdctl;
  for (const [mountPath, dir] of mounts) arg = arg.split(mountPath).join(dir);
  return arg;
}

/** Runs probe `p` of the pod in namespace `ns` as the kubelet would: whether it passes, and what it said. */
async function probe(
  p: any,
  ns: string,
  mounts: Map<string, string>,
  version: string,
): Promise<{ ok: boolean; said: string }> {
  const timeout = (p.timeoutSeconds ?? 1) * 1000;
  if (p.exec) {
    const cmd = (p.exec.command as string[]).map((a) => rewrite(a, mounts, version));
    try {
      const { stdout } = await run('nsenter', [`--net=${ns}`, '--', ...cmd], { timeout, killSignal: 'SIGKILL' });
      return { ok: true, said: stdout.trim() };
    } catch (err: any) {
      return { ok: false, said: `${err.killed ? `killed at ${timeout} ms` : `exit ${err.code}`}: ${err.stderr ?? ''}` };
    }
  }
  if (p.httpGet) {
    const url = `${String(p.httpGet.scheme ?? 'HTTP').toLowerCase()}://127.0.0.1:${p.httpGet.port}${p.httpGet.path}`;
    try {
      const { stdout } = await run(
        'nsenter',
        [
          `--net=${ns}`,
          '--',
          'curl',
          '-s',
          '-o',
          '/dev/null',
          '-w',
          '%{http_code}',
          '--max-time',
          String(timeout / 1000),
          url,
        ],
        { timeout: timeout + 2000, killSignal: 'SIGKILL' },
      );
      const code = Number(stdout.trim());
      return { ok: code >= 200 && code < 400, said: `${url}: ${code}` };
    } catch (err: any) {
      return { ok: false, said: `${url}: no answer within ${timeout} ms (curl exit ${err.code})` };
    }
  }
  throw new Error(`probe not modelled: ${JSON.stringify(p)}`);
}

async function until(what: string, ok: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await ok().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`timed out: ${what}`);
}

const versions: Array<[string, number]> = [
  ['3.6.9', 20500],
  ['3.5.21', 20550],
];

for (const [version, base] of versions)
  t.test(`etcd ${version} over TLS: the member pod's probes, run as the kubelet runs them`, async (t) => {
    const spec = etcdSpec({ size: 3, version, TLS });
    const parent = etcdParent({ size: 3, version, TLS });
    parent.metadata.name = NAME;
    parent.metadata.namespace = NS;
    const c = clusterOf(parent, spec);
    const names = [0, 1, 2].map((i) => `${NAME}-${i}`);
    const initialCluster = names.map((n) => `${n}=${peerURL(c, n)}`).join(',');
    const pod: KubeObject = memberPod({ parent, spec, name: names[0]!, initialCluster, state: 'new' } as any);
    const etcd = ((pod as any).spec.containers as any[]).find((x) => x.name === 'etcd');
    const { readinessProbe, livenessProbe, startupProbe } = etcd;
    t.comment(`readiness ${JSON.stringify(readinessProbe)}`);
    t.comment(`liveness ${JSON.stringify(livenessProbe)}`);
    t.ok(String(JSON.stringify(etcd.command)).includes('--cert-file='), 'the member serves its clients over TLS');

    const dir = mkdtempSync(join(tmpdir(), 'etcd-probes-'));
    const procs: ChildProcess[] = [];
    t.teardown(() => {
      for (const p of procs) {
        p.kill('SIGCONT');
        p.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    });
    // The Secret volumes, written where the pod mounts them.
    const mounts = new Map<string, string>();
    for (const m of etcd.volumeMounts as Array<{ name: string; mountPath: string }>) {
      const files = SECRETS[m.name];
      if (!files) continue;
      const at = join(dir, m.name);
      mkdirSync(at, { recursive: true });
      for (const [k, v] of Object.entries(files)) writeFileSync(join(at, k), v, { mode: 0o600 });
      mounts.set(m.mountPath, at);
    }
    t.equal(mounts.size, 2, 'the server and peer Secrets are mounted');
    const ns = await namespace(t);
    // Its peers on loopback in the same namespace (the pod's own ports, 2379-2381, are the member's under test).
    const peerOf = (i: number) => `https://127.0.0.1:${i === 0 ? 2380 : base + i * 10 + 1}`;
    const initial = names.map((n, i) => `${n}=${peerOf(i)}`).join(',');
    const start = (i: number): ChildProcess => {
      const data = join(dir, `data-${i}`);
      const own = (etcd.command as string[])
        .map((a) => rewrite(a, mounts, version))
        .map((a) => {
          if (a.startsWith('--data-dir=')) return `--data-dir=${data}`;
          if (a.startsWith('--initial-advertise-peer-urls=')) return `--initial-advertise-peer-urls=${peerOf(i)}`;
          if (a.startsWith('--initial-cluster=')) return `--initial-cluster=${initial}`;
          if (a.startsWith('--advertise-client-urls='))
            return `--advertise-client-urls=https://127.0.0.1:${i === 0 ? 2379 : base + i * 10}`;
          if (i === 0) return a;
          // The other two: the same flags on ports of their own, no metrics listener.
          if (a.startsWith('--name=')) return `--name=${names[i]}`;
          if (a.startsWith('--listen-peer-urls=')) return `--listen-peer-urls=${peerOf(i)}`;
          if (a.startsWith('--listen-client-urls=')) return `--listen-client-urls=https://127.0.0.1:${base + i * 10}`;
          if (a.startsWith('--listen-metrics-urls='))
            return `--listen-metrics-urls=http://127.0.0.1:${base + i * 10 + 2}`;
          return a;
        });
      const p = spawn('nsenter', [`--net=${ns}`, '--', ...own], { stdio: 'ignore' });
      procs.push(p);
      return p;
    };
    const member = start(0);
    const others = [start(1), start(2)];
    const check = (p: any) => probe(p, ns, mounts, version);
    await until('the member is ready', async () => (await check(readinessProbe)).ok);

    for (const [what, p] of [
      ['readiness', readinessProbe],
      ['startup', startupProbe],
      ['liveness', livenessProbe],
    ] as const) {
      const r = await check(p);
      t.ok(r.ok, `${what} passes on a member that serves: ${r.said}`);
    }

    // The exec liveness probe of members before etcd 3.3 (`etcdctl endpoint status`, with the server certificate):
    // the same command shape under TLS, asked of the member alone.
    const oldLiveness = livenessOf(c, '3.2.0').livenessProbe;
    const status = await check(oldLiveness);
    t.ok(status.ok, `the exec liveness probe (etcdctl endpoint status) passes: ${status.said}`);
    // The exec probes verify the member's certificate: with another CA in the Secret they fail.
    if (readinessProbe.exec) {
      const other = new Pki('another-ca').read('ca.crt');
      const wrong = join(dir, 'wrong-ca');
      mkdirSync(wrong);
      for (const [k, v] of Object.entries(SECRETS['member-server-tls']!))
        writeFileSync(join(wrong, k), k === 'server-ca.crt' ? other : v, { mode: 0o600 });
      const r = await probe(
        readinessProbe,
        ns,
        new Map([...mounts, ['/etc/etcdtls/member/server-tls', wrong]]),
        version,
      );
      t.notOk(r.ok, `readiness fails against a CA that did not sign the member's certificate: ${r.said.slice(0, 160)}`);
    }

    for (const p of others) p.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 3000));
    const lost = await check(readinessProbe);
    t.notOk(lost.ok, `readiness fails without quorum: ${lost.said}`);
    const alive = await check(livenessProbe);
    t.ok(alive.ok, `liveness passes without quorum (its peers' outage restarts nothing): ${alive.said}`);
    t.ok((await check(oldLiveness)).ok, 'so does the exec liveness probe (endpoint status is local)');

    start(1);
    start(2);
    await until('readiness passes with the quorum back', async () => (await check(readinessProbe)).ok);
    t.pass('readiness passes again once the quorum is back');

    member.kill('SIGSTOP');
    const hungReady = await check(readinessProbe);
    t.notOk(hungReady.ok, `readiness fails on a hung member: ${hungReady.said}`);
    const hungLive = await check(livenessProbe);
    t.notOk(hungLive.ok, `liveness fails on a hung member: ${hungLive.said}`);
    t.notOk((await check(oldLiveness)).ok, 'so does the exec liveness probe');
    member.kill('SIGCONT');
  });
