// `targetContainerName` shares a container's process namespace (kubectl debug --target). The API server takes any
// container of the pod as the target, init containers included, and so native sidecars (init containers with
// `restartPolicy: Always`, the way Istio and others run their proxies now), which run beside the app for the pod's
// whole life and are what one most often wants to debug. The hook takes only `spec.containers`: a tool aimed at a
// sidecar skips every pod as TargetContainerMissing ("spec.targetContainerName is not a container of ..."), which is
// not so, and adds nothing.
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
const dir = mkdtempSync(join(tmpdir(), 'metaops-pbt-sidecar-'));
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

t.test('a native sidecar is a target: the API server takes it, and the hook does not skip the pod', async (t) => {
  const kube = new HttpKubeApi(5000, { server: `https://127.0.0.1:${apiPort}`, insecure: true, token: 'admin-token' });
  kubectl(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'meshed', namespace: 'dbg', labels: { app: 'web' } },
      spec: {
        initContainers: [{ name: 'proxy', image: 'envoyproxy/envoy:v1.31.0', restartPolicy: 'Always' }],
        containers: [{ name: 'app', image: 'nginx:1.27' }],
      },
    }),
  );
  const parsed = parser.parse({ label: 'app=web', image: 'busybox:1.36', targetContainerName: 'proxy' });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed));
  const before = (await kube.get('v1', 'pods', 'dbg', 'meshed')) as KubeObject;
  t.same(
    podState(before, 'a', parsed.spec),
    { state: 'pending' },
    'the pod can take the container: pending, not skipped',
  );
  // What the API server takes: the container the hook adds, aimed at the sidecar.
  const container = ephemeralContainer('a', parsed.spec, before);
  t.equal(container['targetContainerName'], 'proxy', 'the hook aims it at the sidecar');
  await kube.addEphemeralContainers('dbg', 'meshed', [container], {
    uid: before.metadata.uid!,
    resourceVersion: before.metadata.resourceVersion!,
  });
  const after = (await kube.get('v1', 'pods', 'dbg', 'meshed')) as any;
  t.equal(after.spec.ephemeralContainers[0].targetContainerName, 'proxy', 'the API server took the sidecar as target');
  t.same(podState(after, 'a', parsed.spec), { state: 'injected' }, 'and the hook counts it injected, as stored');
});
