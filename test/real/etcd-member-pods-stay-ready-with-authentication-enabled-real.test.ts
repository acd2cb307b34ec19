// Real etcd 3.6.9 and 3.5.21. docs/etcdcluster.md "etcd's authentication (not supported)": when a user enables etcd's
// authentication (`etcdctl user add root; etcdctl auth enable`), "the members keep serving their clients" and the
// hook holds (AuthenticationEnabled), changing nothing. A member pod's readiness probe was `etcdctl endpoint health`,
// which asks for a key without credentials and counts the member healthy only on success or `permission denied`;
// etcd with authentication enabled answers a request without a user `etcdserver: user name is empty` (ErrUserEmpty,
// not ErrPermissionDenied), the very failure coreos/etcd-operator#1051 hit in its health check. So every member pod
// turned NotReady while every member served: the client Service `<name>-client` listed no endpoint (the clients lost
// the cluster), and the PodDisruptionBudget (unhealthyPodEvictionPolicy AlwaysAllow) let one node drain evict every
// member at once (without storage: every member's data).
//
// Must hold, on each version: a member that serves passes its pod's readiness probe, with etcd's authentication
// disabled and enabled; a learner (which serves no client) does not; a member without quorum does not. The test
// kubelet (test/fixtures/etcd-kubelet.ts) runs no probe, so the probe is evaluated here as the kubelet runs it, with
// its timeout: an httpGet as an HTTP GET (200-399 passes), an exec of etcdctl as etcdctl decides, through etcd's
// gRPC gateway (the same server method, behind the same interceptors: auth, learner): `endpoint health` a range of
// "health" without credentials, healthy on success or permission denied; `alarm list` the Maintenance Alarm GET,
// passing when it answers.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { etcdFirstSync } from '../fixtures/etcd.js';
import { etcdBin } from '../fixtures/etcd-kubelet.js';

const bin = etcdBin();

interface Member {
  name: string;
  client: string;
  peer: string;
  metrics: number;
  proc?: ChildProcess;
}

async function post(url: string, body: unknown, token?: string, ms = 10_000): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: token } : {}) },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(ms),
  });
  return res.json();
}

const errorOf = (res: any): string =>
  typeof res?.message === 'string' ? res.message : typeof res?.error === 'string' ? res.error : '';

/** The readiness probe of a member pod, run against member `m` on this machine as the kubelet would run it. */
async function probe(p: any, m: Member): Promise<{ ok: boolean; said: string }> {
  const timeout = (p.timeoutSeconds ?? 1) * 1000;
  try {
    if (p.exec) {
      const cmd: string[] = p.exec.command;
      if (!cmd[0]!.endsWith('etcdctl')) throw new Error(`probe not modelled: ${JSON.stringify(cmd)}`);
      const args = cmd.filter((a) => !a.startsWith('--')).slice(1);
      if (args.join(' ') === 'endpoint health') {
        // Get("health") without credentials; healthy iff no error or ErrPermissionDenied.
        const res = await post(`${m.client}/v3/kv/range`, { key: btoa('health') }, undefined, timeout);
        const error = errorOf(res);
        return { ok: error === '' || error === 'etcdserver: permission denied', said: error || 'healthy' };
      }
      if (args.join(' ') === 'alarm list') {
        const res = await post(`${m.client}/v3/maintenance/alarm`, {}, undefined, timeout);
        const error = errorOf(res);
        return { ok: error === '' && typeof res.header === 'object', said: error || JSON.stringify(res) };
      }
      throw new Error(`probe not modelled: ${JSON.stringify(cmd)}`);
    }
    if (p.httpGet) {
      if (p.httpGet.port !== 2381) throw new Error(`probe not modelled: ${JSON.stringify(p)}`);
      const res = await fetch(`http://127.0.0.1:${m.metrics}${p.httpGet.path}`, {
        signal: AbortSignal.timeout(timeout),
      });
      return { ok: res.status >= 200 && res.status < 400, said: `${res.status} ${(await res.text()).trim()}` };
    }
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('probe not modelled')) throw err;
    return { ok: false, said: `no answer in ${timeout} ms: ${String(err)}` };
  }
  throw new Error(`probe not modelled: ${JSON.stringify(p)}`);
}

async function until(what: string, ok: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      if (await ok()) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out: ${what}`);
}

const versions: Array<[string, number]> = [
  ['3.6.9', 22140],
  ['3.5.21', 22170],
];

for (const [version, base] of versions)
  t.test(`etcd ${version}: a member pod is Ready while it serves, with or without authentication`, async (t) => {
    const res = (await etcdFirstSync({ size: 3, version })) as { children: any[] };
    const pod = res.children.find((c) => c.kind === 'Pod');
    const readiness = pod.spec.containers.find((c: any) => c.name === 'etcd').readinessProbe;
    t.comment(`readiness probe: ${JSON.stringify(readiness)}`);

    const dir = mkdtempSync(join(tmpdir(), 'etcd-ready-'));
    const members: Member[] = [0, 1, 2, 3].map((i) => ({
      name: `m${i}`,
      client: `http://127.0.0.1:${base + i * 3}`,
      peer: `http://127.0.0.1:${base + i * 3 + 1}`,
      metrics: base + i * 3 + 2,
    }));
    const start = (m: Member, initialCluster: string, state: 'new' | 'existing') => {
      m.proc = spawn(
        join(bin, `etcd-v${version}`),
        [
          `--name=${m.name}`,
          `--data-dir=${dir}/${m.name}`,
          `--listen-client-urls=${m.client}`,
          `--advertise-client-urls=${m.client}`,
          `--listen-peer-urls=${m.peer}`,
          `--initial-advertise-peer-urls=${m.peer}`,
          `--initial-cluster=${initialCluster}`,
          `--initial-cluster-state=${state}`,
          `--listen-metrics-urls=http://127.0.0.1:${m.metrics}`,
        ],
        { stdio: 'ignore' },
      );
    };
    t.teardown(() => {
      for (const m of members) m.proc?.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });
    const voters = members.slice(0, 3);
    const initial = voters.map((m) => `${m.name}=${m.peer}`).join(',');
    for (const m of voters) start(m, initial, 'new');
    await until('the cluster serves', async () => (await fetch(`${voters[0]!.client}/health`)).ok);

    for (const m of voters) {
      const r = await probe(readiness, m);
      t.ok(r.ok, `${m.name} Ready before authentication: ${r.said}`);
    }

    await post(`${voters[0]!.client}/v3/auth/user/add`, { name: 'root', password: 'pw' });
    await post(`${voters[0]!.client}/v3/auth/user/grant`, { user: 'root', role: 'root' });
    const enabled = await post(`${voters[0]!.client}/v3/auth/enable`, {});
    t.equal(errorOf(enabled), '', 'authentication enabled');
    const { token } = await post(`${voters[0]!.client}/v3/auth/authenticate`, { name: 'root', password: 'pw' });
    const put = await post(`${voters[0]!.client}/v3/kv/put`, { key: btoa('k'), value: btoa('v') }, token);
    t.ok(put.header, 'the cluster serves a write with credentials');
    const anonymous = await post(`${voters[0]!.client}/v3/kv/range`, { key: btoa('k') });
    t.match(errorOf(anonymous), /user name is empty/, 'and refuses a read without them');

    for (const m of voters) {
      const r = await probe(readiness, m);
      t.ok(r.ok, `${m.name} Ready with authentication enabled: ${r.said}`);
    }

    // A learner, caught up: it serves no client (etcd refuses it all but serializable reads), so it is not Ready.
    const learner = members[3]!;
    // etcd refuses a member added before every member has been connected 5 s ("unhealthy cluster"): asked again.
    let added: any;
    await until('a learner added', async () => {
      added = await post(
        `${voters[0]!.client}/v3/cluster/member/add`,
        { peerURLs: [learner.peer], isLearner: true },
        token,
      );
      return errorOf(added) === '';
    });
    t.ok(added.member?.isLearner, 'a learner added');
    start(learner, `${initial},${learner.name}=${learner.peer}`, 'existing');
    await until('the learner has caught up', async () => {
      const s = await post(`${learner.client}/v3/maintenance/status`, {}, token);
      return s.isLearner === true && Number(s.raftAppliedIndex) > 0 && s.leader !== undefined;
    });
    await new Promise((r) => setTimeout(r, 1000));
    const l = await probe(readiness, learner);
    t.notOk(l.ok, `the learner is not Ready: ${l.said}`);

    // Quorum lost: two of the three voters killed; the one left serves nothing and is not Ready.
    voters[1]!.proc!.kill('SIGKILL');
    voters[2]!.proc!.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 1000));
    const lost = await probe(readiness, voters[0]!);
    t.notOk(lost.ok, `without quorum the member left is not Ready: ${lost.said}`);
  });
