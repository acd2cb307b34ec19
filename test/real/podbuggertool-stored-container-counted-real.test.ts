// A PodBuggerTool's container counts as injected when the one on the pod is the one its spec adds (match.ts
// podState: image, command, args, env, target, securityContext compared as JSON). The pod compared is the API
// server's, which stores what it was sent as Go values: empty lists (`command: []`, `args: []`, `env: []`) and an
// empty env value (`value: ""`) are `omitempty` fields, and come back absent. A tool whose spec has any of them (the
// CRD accepts each: a templated `args: []`, an env variable set to the empty string) is counted `outdated` on every
// pod it was just added to, never `injected`: the status says "0 of N matching pods carry it; N carry it as an
// earlier spec made it ... delete those pods to have the current one", and deleting them changes nothing.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ephemeralContainer, parser, podState } from '../../hooks/podbuggertool/match.js';
import { HttpKubeApi } from '../../lib/kube.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { waitFor } from '../e2e/cluster.js';
import { freePort } from '../fixtures/net.js';
import { root } from '../fixtures/requests.js';

const bin = execFileSync('bash', [join(root, 'e2e', 'build.sh'), 'kube', 'etcd'], {
  stdio: ['ignore', 'pipe', 'inherit'],
})
  .toString()
  .trim()
  .split('\n')
  .pop()!;
const dir = mkdtempSync(join(tmpdir(), 'metaops-pbt-stored-'));
const procs: ChildProcess[] = [];
t.teardown(async () => {
  for (const child of procs.reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
});
const start = (cmd: string, args: string[]) => procs.push(spawn(join(bin, cmd), args, { stdio: 'ignore' }));
const kubeconfig = join(dir, 'kubeconfig');
const kubectl = (args: string[], input = '') =>
  execFileSync(join(bin, 'kubectl'), args, { env: { ...process.env, KUBECONFIG: kubeconfig }, input }).toString();

let apiPort = 0;
t.before(async () => {
  const [etcdPort, peerPort] = [await freePort(), await freePort()];
  apiPort = await freePort();
  start('etcd', [
    ...['--data-dir', join(dir, 'etcd'), '--unsafe-no-fsync', '--log-level=error'],
    ...[
      '--listen-client-urls',
      `http://127.0.0.1:${etcdPort}`,
      '--advertise-client-urls',
      `http://127.0.0.1:${etcdPort}`,
    ],
    ...[
      '--listen-peer-urls',
      `http://127.0.0.1:${peerPort}`,
      '--initial-advertise-peer-urls',
      `http://127.0.0.1:${peerPort}`,
    ],
    ...['--initial-cluster', `default=http://127.0.0.1:${peerPort}`],
  ]);
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writeFileSync(join(dir, 'sa.key'), privateKey.export({ type: 'pkcs1', format: 'pem' }));
  writeFileSync(join(dir, 'tokens.csv'), 'admin-token,admin,admin,system:masters\n');
  mkdirSync(join(dir, 'pki'));
  start('kube-apiserver', [
    ...['--etcd-servers', `http://127.0.0.1:${etcdPort}`, '--bind-address', '127.0.0.1'],
    ...['--secure-port', String(apiPort), '--cert-dir', join(dir, 'pki'), '--external-hostname', 'localhost'],
    ...['--service-cluster-ip-range', '10.0.0.0/24', '--service-account-issuer', 'https://kubernetes.default.svc'],
    ...['--service-account-key-file', join(dir, 'sa.key'), '--service-account-signing-key-file', join(dir, 'sa.key')],
    ...['--token-auth-file', join(dir, 'tokens.csv'), '--disable-admission-plugins', 'ServiceAccount'],
  ]);
  writeFileSync(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters:
- cluster: {server: "https://127.0.0.1:${apiPort}", insecure-skip-tls-verify: true}
  name: t
users:
- name: admin
  user: {token: admin-token}
contexts:
- context: {cluster: t, user: admin}
  name: t
current-context: t
`,
  );
  await waitFor('kube-apiserver /readyz', async () => kubectl(['get', '--raw', '/readyz']).trim() === 'ok', 120_000);
  kubectl(['create', 'namespace', 'dbg']);
});

const cases: Array<[string, Record<string, unknown>]> = [
  ['command: []', { command: [] }],
  ['args: []', { args: [] }],
  ['env: []', { env: [] }],
  ['an env variable set to the empty string', { env: [{ name: 'DEBUG', value: '' }] }],
];

t.test(
  'a container just added for a spec is counted injected for that spec, as the API server stores it',
  async (t) => {
    const kube = new HttpKubeApi(5000, {
      server: `https://127.0.0.1:${apiPort}`,
      insecure: true,
      token: 'admin-token',
    });
    let i = 0;
    for (const [what, extra] of cases) {
      const name = `web-${i++}`;
      const parsed = parser.parse({ label: 'app=web', image: 'busybox:1.36', ...extra });
      if (!parsed.ok) throw new Error(`${what}: ${JSON.stringify(parsed)}`);
      kubectl(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name, namespace: 'dbg', labels: { app: 'web' } },
          spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
        }),
      );
      const before = (await kube.get('v1', 'pods', 'dbg', name)) as KubeObject;
      t.same(podState(before, 'a', parsed.spec), { state: 'pending' }, `${what}: pending before`);
      await kube.addEphemeralContainers('dbg', name, [ephemeralContainer('a', parsed.spec, before)], {
        uid: before.metadata.uid!,
        resourceVersion: before.metadata.resourceVersion!,
      });
      const after = (await kube.get('v1', 'pods', 'dbg', name)) as KubeObject;
      t.same(podState(after, 'a', parsed.spec), { state: 'injected' }, `${what}: injected once added`);
    }
  },
);
