// Real etcd 3.6.9. docs/etcdcluster.md "etcd's authentication (not supported)": when a user enables etcd's
// authentication (`etcdctl user add root; etcdctl auth enable`), "the members keep serving their clients" and the
// hook holds (AuthenticationEnabled), changing nothing. But a member pod's readiness probe is `etcdctl endpoint
// health`, which asks for a key without credentials and counts the member healthy only on success or
// `permission denied`; etcd with authentication enabled answers a request without a user `etcdserver: user name is
// empty` (ErrUserEmpty, not ErrPermissionDenied), the very failure coreos/etcd-operator#1051 hit in its health check.
// So every member pod turns NotReady while every member serves: the client Service `<name>-client` lists no endpoint
// (the clients lose the cluster), and the PodDisruptionBudget (unhealthyPodEvictionPolicy AlwaysAllow) lets one node
// drain evict every member at once (without storage: every member's data).
//
// Must hold: a member that serves, with etcd's authentication enabled, passes its pod's readiness probe. The probe is
// evaluated as the kubelet runs it: an exec of `etcdctl endpoint health` as etcdctl decides (a range of "health"
// without credentials: healthy on success or permission denied), an httpGet as an HTTP GET (200-399).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { etcdFirstSync } from '../fixtures/etcd.js';
import { etcdBin } from '../fixtures/etcd-kubelet.js';

const bin = etcdBin();
const CLIENT = 20640;
const PEER = 20641;
const METRICS = 20642;
const base = `http://127.0.0.1:${CLIENT}`;

async function post(path: string, body: unknown, token?: string): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: token } : {}) },
    body: JSON.stringify(body),
  });
  return res.json();
}

/** The readiness probe of a member pod, run against the member on this machine as the kubelet would run it. */
async function probe(p: any): Promise<{ ok: boolean; said: string }> {
  if (p.exec) {
    const cmd: string[] = p.exec.command;
    if (!cmd[0]!.endsWith('etcdctl') || !cmd.includes('endpoint') || !cmd.includes('health'))
      throw new Error(`probe not modelled: ${JSON.stringify(cmd)}`);
    // etcdctl endpoint health: Get("health") without credentials; healthy iff no error or ErrPermissionDenied.
    const res = await post('/v3/kv/range', { key: Buffer.from('health').toString('base64') });
    const error = typeof res.message === 'string' ? res.message : typeof res.error === 'string' ? res.error : '';
    return { ok: error === '' || error === 'etcdserver: permission denied', said: error || 'healthy' };
  }
  if (p.httpGet) {
    const port = p.httpGet.port === 2381 ? METRICS : CLIENT;
    const res = await fetch(`http://127.0.0.1:${port}${p.httpGet.path}`);
    return { ok: res.status >= 200 && res.status < 400, said: `${res.status} ${await res.text()}` };
  }
  throw new Error(`probe not modelled: ${JSON.stringify(p)}`);
}

t.test("a serving member passes its pod's readiness probe with etcd's authentication enabled", async (t) => {
  const res = (await etcdFirstSync({ size: 1, version: '3.6.9' })) as { children: any[] };
  const pod = res.children.find((c) => c.kind === 'Pod');
  t.ok(pod, 'a member pod is made');
  const readiness = pod.spec.containers.find((c: any) => c.name === 'etcd').readinessProbe;
  t.comment(`readiness probe: ${JSON.stringify(readiness)}`);

  const dir = mkdtempSync(join(tmpdir(), 'etcd-auth-ready-'));
  const proc = spawn(
    join(bin, 'etcd-v3.6.9'),
    [
      `--data-dir=${dir}/data`,
      `--listen-client-urls=${base}`,
      `--advertise-client-urls=${base}`,
      `--listen-peer-urls=http://127.0.0.1:${PEER}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${PEER}`,
      `--initial-cluster=default=http://127.0.0.1:${PEER}`,
      `--listen-metrics-urls=http://127.0.0.1:${METRICS}`,
    ],
    { stdio: 'ignore' },
  );
  t.teardown(() => {
    proc.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const before = await probe(readiness);
  t.ok(before.ok, `ready before authentication: ${before.said}`);

  await post('/v3/auth/user/add', { name: 'root', password: 'pw' });
  await post('/v3/auth/user/grant', { user: 'root', role: 'root' });
  await post('/v3/auth/enable', {});
  const { token } = await post('/v3/auth/authenticate', { name: 'root', password: 'pw' });
  const put = await post('/v3/kv/put', { key: Buffer.from('k').toString('base64'), value: 'dg==' }, token);
  t.ok(put.header, 'the member serves a write with credentials');

  const after = await probe(readiness);
  t.ok(after.ok, `ready with authentication enabled: ${after.said}`);
});
