// A real control plane on loopback for the end-to-end suite: etcd, kube-apiserver, kube-controller-manager,
// Metacontroller and the metaops hook server, each a process this harness started and alone will stop.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startMoto, type Moto } from '../fixtures/moto.js';

const run = promisify(execFile);

export interface Proc {
  name: string;
  child: ChildProcess;
  log: string;
  exited: Promise<number | null>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export async function waitFor<T>(
  what: string,
  check: () => Promise<T>,
  timeoutMs = 60_000,
  intervalMs = 250,
): Promise<Exclude<T, undefined | false | null>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false && value !== null) return value as Exclude<T, undefined | false | null>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? `: last error ${lastError.message.split('\n')[0]}` : '';
      throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}${detail}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export class ControlPlane {
  readonly dir: string;
  readonly kubeconfig: string;
  readonly procs: Proc[] = [];
  hookPort = 0;
  hookProc: Proc | undefined;
  /** The S3/IAM server the hook server's AWS calls go to. */
  moto: Moto | undefined;
  apiPort = 0;

  constructor(
    readonly bin: string,
    readonly repo: string,
  ) {
    this.dir = mkdtempSync(join(tmpdir(), 'metaops-e2e-'));
    this.kubeconfig = join(this.dir, 'kubeconfig');
  }

  private start(name: string, cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): Proc {
    const log = join(this.dir, `${name}.log`);
    const out = createWriteStream(log);
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.pipe(out);
    child.stderr!.pipe(out);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const proc = { name, child, log, exited };
    this.procs.push(proc);
    return proc;
  }

  /** Starts everything; `controllers` renders the controller manifests for a hook base URL. */
  async up(controllers: (baseUrl: string) => string): Promise<void> {
    const etcdPort = await freePort();
    const peerPort = await freePort();
    this.apiPort = await freePort();
    const kcmPort = await freePort();
    const mcPort = await freePort();
    this.start('etcd', join(this.bin, 'etcd'), [
      '--data-dir', join(this.dir, 'etcd'),
      '--listen-client-urls', `http://127.0.0.1:${etcdPort}`,
      '--advertise-client-urls', `http://127.0.0.1:${etcdPort}`,
      '--listen-peer-urls', `http://127.0.0.1:${peerPort}`,
      '--initial-advertise-peer-urls', `http://127.0.0.1:${peerPort}`,
      '--initial-cluster', `default=http://127.0.0.1:${peerPort}`,
      '--unsafe-no-fsync', '--log-level=warn',
    ]);

    // Service-account signing key (PKCS#1 PEM) and a static admin token.
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(join(this.dir, 'sa.key'), privateKey.export({ type: 'pkcs1', format: 'pem' }));
    writeFileSync(join(this.dir, 'tokens.csv'), 'admin-token,admin,admin,system:masters\n');
    const pki = join(this.dir, 'pki');
    mkdirSync(pki);
    this.start('kube-apiserver', join(this.bin, 'kube-apiserver'), [
      '--etcd-servers', `http://127.0.0.1:${etcdPort}`,
      '--bind-address', '127.0.0.1', '--secure-port', String(this.apiPort),
      '--cert-dir', pki, '--external-hostname', 'localhost',
      '--service-cluster-ip-range', '10.0.0.0/24',
      '--service-account-issuer', 'https://kubernetes.default.svc.cluster.local',
      '--service-account-key-file', join(this.dir, 'sa.key'),
      '--service-account-signing-key-file', join(this.dir, 'sa.key'),
      '--token-auth-file', join(this.dir, 'tokens.csv'),
      '--authorization-mode', 'AlwaysAllow',
      '--disable-admission-plugins', 'ServiceAccount',
    ]);
    writeFileSync(
      this.kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        `- cluster: {server: "https://127.0.0.1:${this.apiPort}", insecure-skip-tls-verify: true}`,
        '  name: e2e',
        'users:',
        '- name: admin',
        '  user: {token: admin-token}',
        'contexts:',
        '- context: {cluster: e2e, user: admin, namespace: default}',
        '  name: e2e',
        'current-context: e2e',
        '',
      ].join('\n'),
    );
    await waitFor('kube-apiserver /readyz', async () => (await this.kubectl(['get', '--raw', '/readyz'])).trim() === 'ok', 90_000);

    // Garbage collection (children of a deleted parent), Deployments/ReplicaSets/StatefulSets creating pods.
    this.start('kube-controller-manager', join(this.bin, 'kube-controller-manager'), [
      '--kubeconfig', this.kubeconfig, '--bind-address', '127.0.0.1', '--secure-port', String(kcmPort),
      '--service-account-private-key-file', join(this.dir, 'sa.key'),
      '--root-ca-file', join(pki, 'apiserver.crt'),
      '--controllers',
      'namespace-controller,garbage-collector-controller,deployment-controller,replicaset-controller,statefulset-controller',
      '--leader-elect=false',
    ]);

    const mc = join(this.bin, '..', 'metacontroller');
    await this.kubectl([
      'apply', '-f', join(mc, 'metacontroller-namespace.yaml'), '-f', join(mc, 'metacontroller-rbac.yaml'),
      '-f', join(mc, 'metacontroller-crds-v1.yaml'),
    ]);
    await this.kubectl(['apply', '-f', join(this.repo, 'manifests', 'crds')]);
    await this.kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all']);

    this.start('metacontroller', join(this.bin, 'metacontroller'), [
      '--client-config-path', this.kubeconfig, '--discovery-interval=1s', `--debug-addr=127.0.0.1:${mcPort}`,
      '--client-go-qps=100', '--client-go-burst=200', '-v=4',
    ]);

    this.moto = await startMoto();
    this.hookPort = await freePort();
    await this.startHooks();
    writeFileSync(join(this.dir, 'controllers.yaml'), controllers(`http://127.0.0.1:${this.hookPort}`));
    await this.kubectl(['apply', '-f', join(this.dir, 'controllers.yaml')]);
  }

  /** Starts (or restarts) the metaops hook server from the compiled output. */
  async startHooks(): Promise<void> {
    this.hookProc = this.start('metaops', process.execPath, [join(this.repo, 'dist', 'lib', 'server.js')], {
      PORT: String(this.hookPort),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'debug',
      AWS_ENDPOINT_URL: this.moto!.endpoint,
      AWS_REGION: this.moto!.region,
      AWS_ACCESS_KEY_ID: this.moto!.admin.accessKeyId,
      AWS_SECRET_ACCESS_KEY: this.moto!.admin.secretAccessKey,
      // The PodBuggerTool hook patches pods/ephemeralcontainers through the API server.
      KUBECONFIG: this.kubeconfig,
      METAOPS_DEBUG_IMAGE_ALLOWLIST: 'busybox*,docker.io/library/busybox*',
      // Metacontroller v1.5.20 (the release the Go module proxy serves) has no webhook `authorization` field, so
      // it cannot send credentials: the suite runs the server with the explicit, logged opt-out. Shipped
      // controllers carry credentials (test/manifests.test.ts).
      METAOPS_ALLOW_UNAUTHENTICATED: 'true',
    });
    await waitFor('metaops /readyz', async () => {
      const res = await fetch(`http://127.0.0.1:${this.hookPort}/readyz`);
      return res.ok;
    });
  }

  async stopHooks(): Promise<void> {
    const proc = this.hookProc;
    if (!proc) return;
    proc.child.kill('SIGTERM');
    await proc.exited;
    this.procs.splice(this.procs.indexOf(proc), 1);
    this.hookProc = undefined;
  }

  async kubectl(args: string[], input?: string): Promise<string> {
    const env = { ...process.env, KUBECONFIG: this.kubeconfig };
    if (input === undefined) {
      const { stdout } = await run(join(this.bin, 'kubectl'), args, { env, maxBuffer: 64 * 1024 * 1024 });
      return stdout;
    }
    return new Promise((resolve, reject) => {
      const child = execFile(join(this.bin, 'kubectl'), args, { env }, (err, stdout, stderr) =>
        err ? reject(new Error(`kubectl ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout),
      );
      child.stdin!.end(input);
    });
  }

  async json<T = any>(args: string[]): Promise<T> {
    return JSON.parse(await this.kubectl([...args, '-o', 'json'])) as T;
  }

  /** Like `kubectl get`, but undefined when the object does not exist. */
  async getOrUndefined(args: string[]): Promise<any> {
    try {
      return await this.json(['get', ...args]);
    } catch (err) {
      if (err instanceof Error && /NotFound|not found/.test(err.message)) return undefined;
      throw err;
    }
  }

  /**
   * The tiny kubelet: there is no kubelet or scheduler here, so pods exist only as API objects. Where a
   * scenario needs readiness, this marks pods Running and Ready through the status subresource, as a kubelet
   * would report them.
   */
  async markPodsReady(selector: string): Promise<string[]> {
    const pods = await this.json<{ items: any[] }>(['get', 'pods', '-l', selector]);
    const marked: string[] = [];
    for (const pod of pods.items) {
      if (pod.metadata.deletionTimestamp) continue;
      const ready = pod.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True');
      if (ready && pod.status.phase === 'Running') continue;
      const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      const status = {
        status: {
          phase: 'Running',
          podIP: '10.1.0.1',
          startTime: now,
          conditions: [
            { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
            { type: 'Initialized', status: 'True', lastTransitionTime: now },
            { type: 'ContainersReady', status: 'True', lastTransitionTime: now },
            { type: 'Ready', status: 'True', lastTransitionTime: now },
          ],
        },
      };
      await this.kubectl([
        'patch', 'pod', pod.metadata.name, '--subresource=status', '--type=merge', '-p', JSON.stringify(status),
      ]);
      marked.push(pod.metadata.name);
    }
    return marked;
  }

  /** The tail of every component log, for a failed scenario. */
  logs(lines = 40): string {
    return this.procs
      .map((p) => {
        let text = '';
        try {
          text = readFileSync(p.log, 'utf8');
        } catch {
          text = '(no log)';
        }
        const tail = text.trimEnd().split('\n').slice(-lines).join('\n');
        return `----- ${p.name} (${p.log}) -----\n${tail}`;
      })
      .join('\n');
  }

  readLog(name: string): string {
    const proc = this.procs.find((p) => p.name === name);
    return proc ? readFileSync(proc.log, 'utf8') : '';
  }

  /** Stops every process this harness started, by its own id, in reverse order. */
  async down(): Promise<void> {
    await this.moto?.stop();
    for (const proc of [...this.procs].reverse()) {
      if (proc.child.exitCode === null && proc.child.signalCode === null) {
        proc.child.kill('SIGTERM');
        const timer = setTimeout(() => proc.child.kill('SIGKILL'), 10_000);
        await proc.exited;
        clearTimeout(timer);
      }
    }
  }
}
