// PodBuggerTool's tool hook against a real kube-apiserver (and etcd), built by e2e/build.sh: the re-reads, the
// ephemeral-container PATCH with its precondition, and the RBAC of manifests/deploy/rbac.yaml, with the hook
// server's client authenticated as the `metaops` service account through a token file.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { DEFAULT_POLICY, type DebugPolicy } from '../../hooks/podbuggertool/match.js';
import { toolSync as syncTool } from '../fixtures/hooks.js';
import { eventName, KubeEventRecorder } from '../../lib/events.js';
import { HttpKubeApi, KubeError } from '../../lib/kube.js';
import type { KubeObject, ObjectMap, ParentObject } from '../../lib/metacontroller.js';
import { waitFor } from '../e2e/cluster.js';
import { freePort } from '../fixtures/net.js';
import { FIXED_NOW, root } from '../fixtures/requests.js';

const bin = execFileSync('bash', [join(root, 'e2e', 'build.sh'), 'kube', 'etcd'], {
  stdio: ['ignore', 'pipe', 'inherit'],
})
  .toString()
  .trim()
  .split('\n')
  .pop()!;
const dir = mkdtempSync(join(tmpdir(), 'metaops-pbt-apiserver-'));
const procs: ChildProcess[] = [];
function start(cmd: string, args: string[]): void {
  const child = spawn(join(bin, cmd), args, { stdio: 'ignore' });
  procs.push(child);
}
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

const kubeconfig = join(dir, 'kubeconfig');
function kubectl(args: string[], input?: string): string {
  return execFileSync(join(bin, 'kubectl'), args, {
    env: { ...process.env, KUBECONFIG: kubeconfig },
    input: input ?? '',
    stdio: ['pipe', 'pipe', 'pipe'],
  }).toString();
}
const apply = (obj: unknown) => kubectl(['apply', '-f', '-'], JSON.stringify(obj));
const getJson = (args: string[]) => JSON.parse(kubectl(['get', ...args, '-o', 'json'])) as KubeObject;

let apiPort = 0;
t.before(async () => {
  const etcdPort = await freePort();
  const peerPort = await freePort();
  apiPort = await freePort();
  start('etcd', [
    '--data-dir',
    join(dir, 'etcd'),
    '--listen-client-urls',
    `http://127.0.0.1:${etcdPort}`,
    '--advertise-client-urls',
    `http://127.0.0.1:${etcdPort}`,
    '--listen-peer-urls',
    `http://127.0.0.1:${peerPort}`,
    '--initial-advertise-peer-urls',
    `http://127.0.0.1:${peerPort}`,
    '--initial-cluster',
    `default=http://127.0.0.1:${peerPort}`,
    '--unsafe-no-fsync',
    '--log-level=error',
  ]);
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writeFileSync(join(dir, 'sa.key'), privateKey.export({ type: 'pkcs1', format: 'pem' }));
  writeFileSync(join(dir, 'tokens.csv'), 'admin-token,admin,admin,system:masters\n');
  mkdirSync(join(dir, 'pki'));
  start('kube-apiserver', [
    '--etcd-servers',
    `http://127.0.0.1:${etcdPort}`,
    '--bind-address',
    '127.0.0.1',
    '--secure-port',
    String(apiPort),
    '--cert-dir',
    join(dir, 'pki'),
    '--external-hostname',
    'localhost',
    '--service-cluster-ip-range',
    '10.0.0.0/24',
    '--service-account-issuer',
    'https://kubernetes.default.svc.cluster.local',
    '--service-account-key-file',
    join(dir, 'sa.key'),
    '--service-account-signing-key-file',
    join(dir, 'sa.key'),
    '--token-auth-file',
    join(dir, 'tokens.csv'),
    // RBAC, so that the service account has exactly what manifests/deploy/rbac.yaml grants.
    '--authorization-mode',
    'RBAC',
    '--disable-admission-plugins',
    'ServiceAccount',
  ]);
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- cluster: {server: "https://127.0.0.1:${apiPort}", insecure-skip-tls-verify: true}`,
      '  name: t',
      'users:',
      '- name: admin',
      '  user: {token: admin-token}',
      'contexts:',
      '- context: {cluster: t, user: admin}',
      '  name: t',
      'current-context: t',
      '',
    ].join('\n'),
  );
  await waitFor('kube-apiserver /readyz', async () => kubectl(['get', '--raw', '/readyz']).trim() === 'ok', 120_000);
  kubectl(['apply', '-f', join(root, 'manifests', 'crds', 'podbuggertools.debug.metaops.dev.yaml')]);
  for (const ns of ['metaops', 'dbg']) apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'metaops', namespace: 'metaops' } });
  apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'nobody', namespace: 'metaops' } });
  kubectl(['apply', '-f', join(root, 'manifests', 'deploy', 'rbac.yaml')]);
  // The namespace the tests debug in is opted in, as a cluster admin would (manifests/deploy/rbac.yaml).
  kubectl([
    'create',
    'rolebinding',
    'metaops-podbuggertool',
    '-n',
    'dbg',
    '--clusterrole=metaops-podbuggertool',
    '--serviceaccount=metaops:metaops',
  ]);
  kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd/podbuggertools.debug.metaops.dev']);
  for (const sa of ['metaops', 'nobody'])
    writeFileSync(join(dir, `${sa}.token`), kubectl(['create', 'token', sa, '-n', 'metaops']));
});

/** The hook server's client, as the service account `sa` through its token file. */
const client = (sa: string) =>
  new HttpKubeApi(5000, {
    server: `https://127.0.0.1:${apiPort}`,
    insecure: true,
    tokenFile: join(dir, `${sa}.token`),
  });
const pod = (name: string, labels: Record<string, string>, ns = 'dbg') => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, labels },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
});
const tool = (name: string, spec: Record<string, unknown>, ns = 'dbg') => ({
  apiVersion: 'debug.metaops.dev/v1alpha1',
  kind: 'PodBuggerTool',
  metadata: { name, namespace: ns },
  spec,
});
function related(pods: KubeObject[]): ObjectMap {
  return { 'Pod.v1': Object.fromEntries(pods.map((x) => [x.metadata.name!, x])) };
}
const request = (parent: KubeObject, pods: KubeObject[]) => ({
  controller: {},
  parent: parent as any,
  children: {},
  related: related(pods),
});
const ephemeral = (ns: string, name: string) =>
  ((getJson(['pod', name, '-n', ns])['spec'] as any).ephemeralContainers ?? []) as any[];

t.test('the RBAC grants the hook server what it uses, and no more', async (t) => {
  const can = (verb: string, what: string, ns = 'dbg') => {
    const [resource, subresource] = what.split('/');
    try {
      return kubectl([
        'auth',
        'can-i',
        verb,
        resource!,
        ...(subresource ? [`--subresource=${subresource}`] : []),
        '-n',
        ns,
        '--as',
        'system:serviceaccount:metaops:metaops',
      ]).trim();
    } catch (err) {
      return String((err as { stdout?: Buffer }).stdout ?? '').trim();
    }
  };
  t.equal(can('get', 'pods'), 'yes');
  t.equal(can('patch', 'pods/ephemeralcontainers'), 'yes');
  // Only where an admin bound metaops-podbuggertool: not in a namespace that did not opt in.
  t.equal(can('get', 'pods', 'metaops'), 'no', 'no pods get in a namespace not opted in');
  t.equal(can('patch', 'pods/ephemeralcontainers', 'metaops'), 'no', 'no ephemeral containers there');
  t.equal(can('create', 'events.events.k8s.io', 'metaops'), 'yes', 'Events everywhere');
  t.equal(can('get', 'podbuggertools.debug.metaops.dev'), 'yes');
  t.equal(can('create', 'events.events.k8s.io'), 'yes');
  t.equal(can('patch', 'events.events.k8s.io'), 'yes', 'a repeated event updates its series');
  for (const [verb, what] of [
    ['list', 'pods'],
    ['watch', 'pods'],
    ['patch', 'pods'],
    ['update', 'pods'],
    ['delete', 'pods'],
    ['create', 'pods/exec'],
    ['patch', 'pods/status'],
    ['list', 'podbuggertools.debug.metaops.dev'],
    ['get', 'secrets'],
    ['create', 'events'],
    ['patch', 'events'],
    ['update', 'events.events.k8s.io'],
    ['delete', 'events.events.k8s.io'],
    ['get', 'events.events.k8s.io'],
  ]) {
    t.equal(can(verb!, what!), 'no', `no ${verb} ${what}`);
  }
});

t.test('injection on a real API server: the tool and pod it has, once, with a precondition', async (t) => {
  apply(pod('web-1', { app: 'web' }));
  apply(pod('db-1', { app: 'db' }));
  apply(tool('a', { label: 'app=web', image: 'busybox:1.36' }));
  const kube = client('metaops');
  const real = getJson(['pod', 'web-1', '-n', 'dbg']);
  // The request lies about the tool (another image, a privileged profile, a command) and lists a pod it does not select.
  const lie = {
    ...getJson(['pbt', 'a', '-n', 'dbg']),
    spec: {
      label: 'app=web',
      image: 'evil.example/rootkit',
      securityProfile: 'sysadmin',
      command: ['sh', '-c', 'pwn'],
    },
  };
  const policy: DebugPolicy = { ...DEFAULT_POLICY, allowlist: ['*'], profiles: ['general', 'sysadmin'] };
  const res = await syncTool(request(lie, [real, getJson(['pod', 'db-1', '-n', 'dbg'])]), {
    kube,
    policy,
    now: FIXED_NOW,
  });
  t.notOk(res.resyncAfterSeconds, JSON.stringify(res));
  const list = ephemeral('dbg', 'web-1');
  t.equal(list.length, 1);
  t.match(list[0], {
    name: 'debug-a',
    image: 'busybox:1.36',
    securityContext: { capabilities: { add: ['SYS_PTRACE'] } },
  });
  t.notOk(list[0].command, "the request's command was not used");
  t.same(ephemeral('dbg', 'db-1'), [], 'a pod the tool does not select is not touched');

  // The same (now stale) request again: the re-read sees the container, nothing is added, no error.
  const again = await syncTool(request(lie, [real]), { kube, policy, now: FIXED_NOW });
  t.notOk(again.resyncAfterSeconds);
  t.equal(ephemeral('dbg', 'web-1').length, 1);

  // The precondition is enforced by the API server: a stale resourceVersion or another uid is refused.
  const stale = await kube
    .addEphemeralContainers('dbg', 'web-1', [{ name: 'debug-x', image: 'busybox' }], {
      resourceVersion: real.metadata.resourceVersion!,
    })
    .catch((e: unknown) => e);
  t.match(stale, { status: 409, reason: 'Conflict' });
  const current = getJson(['pod', 'web-1', '-n', 'dbg']);
  const otherUid = await kube
    .addEphemeralContainers('dbg', 'web-1', [{ name: 'debug-x', image: 'busybox' }], {
      uid: '00000000-0000-0000-0000-000000000000',
      resourceVersion: current.metadata.resourceVersion!,
    })
    .catch((e: unknown) => e);
  t.ok(
    otherUid instanceof KubeError && otherUid.status >= 400,
    `another uid is refused (${(otherUid as Error).message})`,
  );
  t.equal(ephemeral('dbg', 'web-1').length, 1);

  // The status, on the pod as the API server has it.
  const status = (
    await syncTool(request(getJson(['pbt', 'a', '-n', 'dbg']), [getJson(['pod', 'web-1', '-n', 'dbg'])]), {
      kube,
      policy,
      now: FIXED_NOW,
    })
  ).status as any;
  t.match(status, { matched: 1, injected: 1, outdated: 0, failed: 0 });
});

t.test(
  'a client without the rights: the failure is in the status with the API server reason, nothing added',
  async (t) => {
    apply(pod('web-2', { app: 'web' }));
    const lines: string[] = [];
    const parent = getJson(['pbt', 'a', '-n', 'dbg']);
    const pods = [getJson(['pod', 'web-1', '-n', 'dbg']), getJson(['pod', 'web-2', '-n', 'dbg'])];
    const res = await syncTool(request(parent, pods), {
      kube: client('nobody'),
      policy: DEFAULT_POLICY,
      now: FIXED_NOW,
      log: { warn: (_o: Record<string, unknown>, msg: string) => lines.push(msg) },
    });
    t.match(res.status, { matched: 2, injected: 1, failed: 1, failures: [{ pod: 'web-2', reason: 'Forbidden' }] });
    t.equal(res.resyncAfterSeconds, 30);
    t.match(lines[0], /PodBuggerTool dbg\/a: could not add debug-a to pod dbg\/web-2: Forbidden/);
    t.same(ephemeral('dbg', 'web-2'), []);
    // With the service account of the RBAC manifest it works.
    const ok = await syncTool(request(parent, pods), {
      kube: client('metaops'),
      policy: DEFAULT_POLICY,
      now: FIXED_NOW,
    });
    t.notOk(ok.resyncAfterSeconds);
    t.equal(ephemeral('dbg', 'web-2').length, 1);
  },
);

t.test('a PATCH the API server refuses: the failure and an event on the tool, with the same reason', async (t) => {
  apply(pod('web-3', { app: 'env' }));
  // The CRD lets this through; the API server refuses an environment variable name with `=`.
  apply(tool('bad-env', { label: 'app=env', image: 'busybox:1.36', env: [{ name: 'A=B', value: 'x' }] }));
  const kube = client('metaops');
  const lines: string[] = [];
  const res = await syncTool(
    request(getJson(['pbt', 'bad-env', '-n', 'dbg']), [getJson(['pod', 'web-3', '-n', 'dbg'])]),
    {
      kube,
      policy: DEFAULT_POLICY,
      now: new Date(),
      log: { warn: (_o: Record<string, unknown>, msg: string) => lines.push(msg) },
    },
  );
  t.match(res.status, { matched: 1, injected: 0, failed: 1, failures: [{ pod: 'web-3', reason: 'Invalid' }] });
  t.match((res.status as any).conditions[0], {
    type: 'Ready',
    status: 'False',
    reason: 'InjectionFailed',
    message: /web-3 \(Invalid\)/,
  });
  t.same(lines, ['PodBuggerTool dbg/bad-env: could not add debug-bad-env to pod dbg/web-3: Invalid']);
  const events = JSON.parse(kubectl(['get', 'events.events.k8s.io', '-n', 'dbg', '-o', 'json'])).items as any[];
  const mine = events.filter((e) => e.regarding?.name === 'bad-env');
  t.equal(mine.length, 1);
  t.match(mine[0], {
    reportingController: 'metaops',
    reason: 'InjectionFailed',
    type: 'Warning',
    action: 'AddEphemeralContainer',
    note: 'could not add debug-bad-env to pod dbg/web-3: Invalid',
    regarding: { kind: 'PodBuggerTool', name: 'bad-env', uid: getJson(['pbt', 'bad-env', '-n', 'dbg']).metadata.uid },
    related: { kind: 'Pod', name: 'web-3' },
  });
});

t.test(
  'events on a real API server, as the service account: one event, then its series (create and patch only)',
  async (t) => {
    const recorder = new KubeEventRecorder(() => client('metaops'));
    const warnings: string[] = [];
    const log = { info: () => undefined, warn: (_o: Record<string, unknown>, msg: string) => warnings.push(msg) };
    const parent = getJson(['pbt', 'a', '-n', 'dbg']) as ParentObject;
    const spec = {
      type: 'Warning' as const,
      reason: 'EtcdCallFailed',
      action: 'Reconcile',
      note: 'Synced: add e-1 failed: etcd did not answer in time',
      subject: 'Synced',
    };
    for (let i = 0; i < 3; i++) await recorder.record(parent, [spec], new Date(FIXED_NOW.getTime() + i * 1000), log);
    t.same(
      warnings.filter((w) => /could not record/.test(w)),
      [],
      'every write allowed',
    );
    const name = eventName(parent, spec, FIXED_NOW);
    const event = JSON.parse(kubectl(['get', 'events.events.k8s.io', name, '-n', 'dbg', '-o', 'json']));
    t.match(event, {
      reason: 'EtcdCallFailed',
      type: 'Warning',
      reportingController: 'metaops',
      regarding: { kind: 'PodBuggerTool', name: 'a', uid: parent.metadata.uid },
      series: { count: 3 },
    });
    t.match(event.series.lastObservedTime, /^2026-01-02T03:04:07/);
    // kubectl describe shows it (the core/v1 view of the same event).
    t.match(
      kubectl(['describe', 'pbt', 'a', '-n', 'dbg']),
      /Warning\s+EtcdCallFailed\s+.*metaops.*Synced: add e-1 failed/,
    );
    // Without the rights: logged, nothing thrown.
    const denied: string[] = [];
    await new KubeEventRecorder(() => client('nobody')).record(parent, [{ ...spec, subject: 'other' }], FIXED_NOW, {
      info: () => undefined,
      warn: (_o, msg) => denied.push(msg),
    });
    t.match(denied.join('\n'), /could not record the event EtcdCallFailed: Forbidden/);
  },
);
