// A real control plane on loopback for the end-to-end suite: etcd, kube-apiserver, kube-controller-manager,
// Metacontroller and the metaops hook server, each a process this harness started and alone will stop.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { get as httpsGet } from 'node:https';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { adminKubeconfig, apiServerArgs, etcdArgs } from '../fixtures/kube-args.js';
import { freePort } from '../fixtures/net.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startMoto, type Moto } from '../fixtures/moto.js';
import { operators } from '../../main/operators.js';
import { PRODUCTION_AUTHORIZATION, rolling } from '../../lib/manifests.js';
import { renderController } from '../../scripts/render-manifests.js';
import { MANIFEST_FILES, v1, verify, type MetacontrollerRelease } from './metacontroller.js';
export { freePort };
export type { MetacontrollerRelease };

const run = promisify(execFile);

export interface Proc {
  name: string;
  child: ChildProcess;
  log: string;
  exited: Promise<number | null>;
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
      if (value !== undefined && value !== false && value !== null)
        return value as Exclude<T, undefined | false | null>;
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

/** Every controller of the suite resyncs this often, so that a quiet period covers at least two resyncs. */
export const E2E_RESYNC_SECONDS = 5;
/** METAOPS_LABEL_KEY of the suite's hook server: a fixed key (the suite's own, published with it like its token). */
export const E2E_LABEL_KEY = 'e2e-label-key-of-the-metaops-suite-0123456789abcdef';
/** The shortest resyncAfterSeconds a hook answers with (EtcdCluster while a step is pending). */
const MIN_RESYNC_SECONDS = 2;

const PRESERVE_PARENT_PATCH = [
  {
    op: 'add',
    path: '/spec/versions/0/schema/openAPIV3Schema/properties/parentPatch',
    value: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  },
];

/** The kinds a quiet period watches in a scenario's namespace, besides its parents. */
const WATCHED = [
  'pods',
  'services',
  'secrets',
  'configmaps',
  'deployments.apps',
  'statefulsets.apps',
  'persistentvolumeclaims',
  'jobs.batch',
  'cronjobs.batch',
  'poddisruptionbudgets.policy',
  'networkpolicies.networking.k8s.io',
  'controllerrevisions.metacontroller.k8s.io',
];

export interface QuietOptions {
  namespace?: string;
  /** The scenario's parents as `<resource>/<name>`, e.g. `memcacheds/memcached-sample`. */
  parents: string[];
  /**
   * The hook routes that serve them, e.g. `memcached/sync`; with `parents`, how many parents that route serves
   * when it is not the scenario's list (a decorator on pods serves every pod it selects in the cluster).
   */
  hooks: Array<string | { hook: string; parents: number }>;
  /** How long nothing may change; at least two resyncs. */
  seconds?: number;
}

/** The last line of a component's log. */
function lastLogLine(log: string): string {
  try {
    return readFileSync(log, 'utf8').trimEnd().split('\n').pop() ?? '';
  } catch {
    return '(no log)';
  }
}

/** What a loopback HTTPS server (a self-signed one: kube-controller-manager's) answers to GET `path`, or undefined. */
function httpsBody(port: number, path: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = httpsGet({ host: '127.0.0.1', port, path, rejectUnauthorized: false, timeout: 2000 }, (res) => {
      let body = '';
      res.on('data', (d) => (body += String(d)));
      res.on('end', () => resolve(body));
      res.on('error', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
  });
}

export class ControlPlane {
  readonly dir: string;
  readonly kubeconfig: string;
  readonly procs: Proc[] = [];
  hookPort = 0;
  hookProc: Proc | undefined;
  private mcProc: Proc | undefined;
  private mcArgs: string[] = [];
  /** The S3/IAM server the hook server's AWS calls go to. */
  moto: Moto | undefined;
  apiPort = 0;

  /** The Metacontroller release this plane runs (test/e2e/metacontroller.ts); scenarios read `mc.features`. */
  readonly mc: MetacontrollerRelease;
  /**
   * The Bearer token the hook server requires, in the Secret the controllers' webhook `authorization` names
   * (PRODUCTION_AUTHORIZATION), when the release can send it; undefined otherwise.
   */
  readonly hookToken: string | undefined;

  constructor(
    readonly bin: string,
    readonly repo: string,
    /**
     * The suite's defaults: the hook server logs at debug, and Metacontroller (v1.5.20 unless `metacontroller`
     * says otherwise) rediscovers every second and logs verbosely (what a failed scenario needs).
     * `metacontrollerArgs` replaces the release's defaultArgs (the addresses it serves on are always set);
     * bench/cluster.ts runs both as they run in production.
     */
    readonly options: {
      hookLogLevel?: string;
      metacontrollerArgs?: string[];
      metacontroller?: MetacontrollerRelease;
    } = {},
  ) {
    this.dir = mkdtempSync(join(tmpdir(), 'metaops-e2e-'));
    this.kubeconfig = join(this.dir, 'kubeconfig');
    this.mc = options.metacontroller ?? v1(bin);
    this.hookToken = this.mc.features.authorization ? randomBytes(32).toString('hex') : undefined;
  }

  /**
   * The controllers as shipped (manifests/controllers/), pointed at `base` and resyncing every
   * E2E_RESYNC_SECONDS: with webhook `etag` and `authorization` where the release has them, without where it does
   * not (v1.5.20 rejects neither field: it drops them, and would then call without credentials).
   */
  controllers(base: string): string {
    return operators
      .map((d) =>
        renderController(d, {
          target: { kind: 'url', base },
          etag: this.mc.features.etag,
          ignoreStatusChanges: this.mc.features.ignoreStatusChanges,
          hookVersions: this.mc.features.hookVersion,
          ...(this.mc.features.authorization ? { authorization: { ...PRODUCTION_AUTHORIZATION } } : {}),
          resyncPeriodSeconds: E2E_RESYNC_SECONDS,
        }),
      )
      .join('---\n');
  }

  private start(name: string, cmd: string, args: string[], env: NodeJS.ProcessEnv = {}, flags = 'w'): Proc {
    const log = join(this.dir, `${name}.log`);
    const out = createWriteStream(log, { flags });
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.pipe(out);
    child.stderr!.pipe(out);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const proc = { name, child, log, exited };
    this.procs.push(proc);
    return proc;
  }

  /**
   * Starts everything; `controllers` renders the controller manifests for a hook base URL (default: the shipped
   * controllers for this release, `controllers()`).
   */
  async up(controllers: (baseUrl: string) => string = (base) => this.controllers(base)): Promise<void> {
    verify(this.mc);
    const etcdPort = await freePort();
    const peerPort = await freePort();
    this.apiPort = await freePort();
    const kcmPort = await freePort();
    const mcPort = await freePort();
    this.start('etcd', join(this.bin, 'etcd'), etcdArgs(this.dir, etcdPort, peerPort, 'warn'));
    const pki = join(this.dir, 'pki');
    const apiServer = apiServerArgs({ dir: this.dir, etcdPort, apiPort: this.apiPort, authorization: 'AlwaysAllow' });
    this.start('kube-apiserver', join(this.bin, 'kube-apiserver'), apiServer);
    writeFileSync(this.kubeconfig, adminKubeconfig(this.apiPort, 'e2e', 'default'));
    await waitFor(
      'kube-apiserver /readyz',
      async () => (await this.kubectl(['get', '--raw', '/readyz'])).trim() === 'ok',
      90_000,
    );

    await this.kubectl(['apply', ...MANIFEST_FILES.flatMap((f) => ['-f', join(this.mc.manifests, f)])]);
    if (!this.mc.features.revisionKeepsParentPatch) {
      // Metacontroller v1.5.20's ControllerRevision CRD has no schema for `parentPatch`, so the API server prunes
      // it; Metacontroller then sees every revision differ from what it wrote and rewrites it, which made a PodSet
      // of two or more pods sync ~100 times a second. v4.17's CRD keeps the field
      // (manifests/production/metacontroller-crds-v1.yaml: controllerrevisions, `parentPatch` with
      // x-kubernetes-preserve-unknown-fields: true), and so does the suite's, as users run it.
      await this.kubectl([
        'patch',
        'crd',
        'controllerrevisions.metacontroller.k8s.io',
        '--type=json',
        '-p',
        JSON.stringify(PRESERVE_PARENT_PATCH),
      ]);
    }
    await this.installCrds();
    // Started once metaops's CRDs are Established, so that its garbage collector watches their kinds from the start
    // (it discovers kinds added later only every 30 s: a parent deleted before that left its children that long).
    // Garbage collection (children of a deleted parent), Deployments/ReplicaSets/StatefulSets/Jobs creating pods,
    // ResourceQuotas' usage (what their admission counts), and the claims' protection (a deleted claim goes once no pod
    // uses it: without it, claims keep their kubernetes.io/pvc-protection finalizer and an EtcdCluster with storage is
    // never finalized).
    this.start('kube-controller-manager', join(this.bin, 'kube-controller-manager'), [
      '--kubeconfig',
      this.kubeconfig,
      '--bind-address',
      '127.0.0.1',
      '--secure-port',
      String(kcmPort),
      '--service-account-private-key-file',
      join(this.dir, 'sa.key'),
      '--root-ca-file',
      join(pki, 'apiserver.crt'),
      '--controllers',
      'namespace-controller,garbage-collector-controller,deployment-controller,replicaset-controller,statefulset-controller,job-controller,resourcequota-controller,persistentvolumeclaim-protection-controller',
      '--leader-elect=false',
      // Its default of 20 requests a second would take a minute to make or replace 1000 pods (PodBuggerTool at rest).
      '--kube-api-qps=100',
      '--kube-api-burst=200',
    ]);
    // Serving, and itself (not another process that holds the port: it then exits at once, and nothing makes pods).
    await waitFor(
      'kube-controller-manager /healthz',
      async () => {
        this.assertRunning();
        return (await httpsBody(kcmPort, '/healthz')) === 'ok';
      },
      60_000,
    );
    if (this.hookToken) {
      // The Secret the shipped controllers' webhook `authorization` reads (README, "Install in a cluster").
      const { namespace, name, key } = PRODUCTION_AUTHORIZATION;
      await this.kubectl(['create', 'namespace', namespace]);
      await this.kubectl(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name, namespace },
          stringData: { [key]: this.hookToken },
        }),
      );
    }

    this.mcArgs = [
      ...this.mc.connect({ kubeconfig: this.kubeconfig, port: mcPort, healthPort: await freePort() }),
      ...(this.options.metacontrollerArgs ?? this.mc.defaultArgs),
    ];
    this.startMetacontroller();

    this.moto = await startMoto();
    this.hookPort = await freePort();
    await this.startHooks();
    writeFileSync(join(this.dir, 'controllers.yaml'), controllers(`http://127.0.0.1:${this.hookPort}`));
    await this.installControllers();
    this.assertRunning();
  }

  /** Starts Metacontroller (again, after killMetacontroller) with the arguments `up` chose; its log goes on. */
  startMetacontroller(): void {
    this.mcProc = this.start('metacontroller', this.mc.binary, this.mcArgs, {}, 'a');
  }

  /** Kills Metacontroller with SIGKILL, as a node failure or an OOM kill would: no clean shutdown. */
  async killMetacontroller(): Promise<void> {
    const proc = this.mcProc;
    if (!proc) return;
    proc.child.kill('SIGKILL');
    await proc.exited;
    this.procs.splice(this.procs.indexOf(proc), 1);
    this.mcProc = undefined;
  }

  /** metaops's CRDs (manifests/crds/), applied and Established. */
  async installCrds(): Promise<void> {
    await this.kubectl(['apply', '-f', join(this.repo, 'manifests', 'crds')]);
    await this.kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all']);
  }

  /** The suite's controllers (what `up` rendered), applied again: after a scenario replaced them. */
  async installControllers(): Promise<void> {
    await this.kubectl(['apply', '-f', join(this.dir, 'controllers.yaml')]);
  }

  /** Helm (built by e2e/build.sh) on this control plane, with its state in the plane's own folder. */
  async helm(args: string[]): Promise<string> {
    const { stdout } = await run(join(this.bin, 'helm'), args, {
      env: {
        ...process.env,
        KUBECONFIG: this.kubeconfig,
        HELM_CACHE_HOME: join(this.dir, 'helm', 'cache'),
        HELM_CONFIG_HOME: join(this.dir, 'helm', 'config'),
        HELM_DATA_HOME: join(this.dir, 'helm', 'data'),
      },
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  }

  /** Starts (or restarts) the metaops hook server from the compiled output. */
  async startHooks(): Promise<void> {
    this.hookProc = this.start('metaops', process.execPath, [join(this.repo, 'dist', 'main', 'server.js')], {
      PORT: String(this.hookPort),
      HOST: '127.0.0.1',
      LOG_LEVEL: this.options.hookLogLevel ?? 'debug',
      AWS_ENDPOINT_URL: this.moto!.endpoint,
      AWS_REGION: this.moto!.region,
      AWS_ACCESS_KEY_ID: this.moto!.admin.accessKeyId,
      AWS_SECRET_ACCESS_KEY: this.moto!.admin.secretAccessKey,
      // The PodBuggerTool hook patches pods/ephemeralcontainers through the API server.
      KUBECONFIG: this.kubeconfig,
      METAOPS_DEBUG_IMAGE_ALLOWLIST: 'busybox*,docker.io/library/busybox*',
      // With a release that sends credentials (webhook `authorization`), the server requires the token as in
      // production. v1.5.20 has no such field and cannot send any: for it alone the suite runs the server with
      // the explicit, logged opt-out. Shipped controllers carry credentials (test/install/manifests.test.ts).
      ...(this.hookToken
        ? { METAOPS_AUTH_TOKEN: this.hookToken, METAOPS_ALLOW_UNAUTHENTICATED: undefined }
        : { METAOPS_AUTH_TOKEN: undefined, METAOPS_ALLOW_UNAUTHENTICATED: 'true' }),
      METAOPS_BASIC_AUTH: undefined,
      // The key of the label by which Memcached and EtcdBackup ask for their pods (lib/parent-label.ts): set on both
      // releases, so that v1.5.20 (no token) runs with a keyed label too, as an install with its own key would.
      METAOPS_LABEL_KEY: E2E_LABEL_KEY,
      // The server's namespace, as the shipped Deployment sets it (downward API): a namespace that denies its
      // EtcdCluster members' ingress lets the server's pods of this namespace in (scenario "Namespace ingress").
      METAOPS_SERVER_NAMESPACE: 'metaops',
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
        'patch',
        'pod',
        pod.metadata.name,
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify(status),
      ]);
      marked.push(pod.metadata.name);
    }
    return marked;
  }

  /** resourceVersion of every watched object of the namespace and of the parents, by kind/name. */
  private async versions(o: QuietOptions): Promise<Map<string, string>> {
    const ns = o.namespace ?? 'default';
    const out = new Map<string, string>();
    const list = await this.json<{ items: any[] }>([
      'get',
      '-n',
      ns,
      [...WATCHED, ...new Set(o.parents.map((p) => p.split('/')[0]!))].join(','),
    ]);
    for (const item of list.items) out.set(`${item.kind}/${item.metadata.name}`, item.metadata.resourceVersion);
    for (const parent of o.parents) {
      if (!out.has(parent)) {
        const obj = await this.getOrUndefined(['-n', ns, parent]);
        if (obj) out.set(`${obj.kind}/${obj.metadata.name}`, obj.metadata.resourceVersion);
      }
    }
    return out;
  }

  /** Calls each hook route has answered so far, from the hook server's own metrics. */
  async hookCalls(outcome?: string): Promise<Map<string, number>> {
    const text = await (await fetch(`http://127.0.0.1:${this.hookPort}/metrics`)).text();
    const calls = new Map<string, number>();
    for (const m of text.matchAll(/^metaops_hook_requests_total\{hook="([^"]+)",outcome="([^"]+)"\} (\d+)/gm)) {
      if (outcome === undefined || m[2] === outcome) calls.set(m[1]!, (calls.get(m[1]!) ?? 0) + Number(m[3]));
    }
    return calls;
  }

  /** True when the suite's controller gives this hook route (`memcached/sync`) a webhook `etag` on this release. */
  etagFor(route: string): boolean {
    const [name, hook] = route.split('/');
    const def = operators.find((d) => d.name === name);
    return this.mc.features.etag && !!def && hook !== 'customize' && !rolling(def);
  }

  /**
   * Quiet at rest: after a scenario converges, nothing changes for `seconds` (at least two resyncs of every
   * controller): no watched object and no parent changes its resourceVersion, and each hook is called no more
   * than its resyncs explain. A sync loop (a child or a status rewritten at every sync) fails here. Waits first
   * (up to 30 s) for the last changes in flight to land; a system that never settles fails too.
   */
  async assertQuiet(o: QuietOptions): Promise<string> {
    const seconds = o.seconds ?? E2E_RESYNC_SECONDS * 2 + 2;
    const diff = (a: Map<string, string>, b: Map<string, string>) =>
      [...new Set([...a.keys(), ...b.keys()])]
        .filter((k) => a.get(k) !== b.get(k))
        .map((k) => `${k} ${a.get(k) ?? '-'} -> ${b.get(k) ?? '-'}`);
    // A window of `seconds` in which nothing changed: its first and last snapshots are equal (a resourceVersion
    // never comes back, so any change in between shows). Looked at every 3 s; a change starts the window again,
    // for up to 30 s (the last changes in flight landing), so a settled system is measured at once.
    const snapshot = async () => ({
      at: Date.now(),
      versions: await this.versions(o),
      calls: await this.hookCalls(),
      unchanged: await this.hookCalls('not_modified'),
    });
    let start = await snapshot();
    const settleBy = start.at + 30_000;
    for (;;) {
      const left = start.at + seconds * 1000 - Date.now();
      if (left <= 0) break;
      await new Promise((r) => setTimeout(r, Math.min(3000, left)));
      const now = await this.versions(o);
      const changed = diff(start.versions, now);
      if (changed.length === 0) continue;
      if (Date.now() > settleBy)
        throw new Error(
          `not quiet at rest: still changing 30 s after the scenario converged: ${changed.slice(0, 8).join('; ')}`,
        );
      start = await snapshot();
    }
    const after = await this.versions(o);
    const callsAfter = await this.hookCalls();
    const unchangedAfter = await this.hookCalls('not_modified');
    const changed = diff(start.versions, after);
    if (changed.length > 0)
      throw new Error(
        `not quiet at rest: within ${seconds}s ${changed.length} objects changed: ${changed.slice(0, 8).join('; ')}`,
      );
    // Each parent is synced once per resync, or as often as its own answer asks (resyncAfterSeconds, 2 s at the
    // shortest, while a dependency is out of reach), plus the edges; Metacontroller's retries after an outage
    // drain too. A sync loop is calls many times a second. And at least once per resync period but one: the
    // controllers' resyncPeriodSeconds is honoured (a parent no event touches is still looked at).
    const counts: string[] = [];
    for (const entry of o.hooks) {
      const { hook, parents } = typeof entry === 'string' ? { hook: entry, parents: o.parents.length } : entry;
      const allowed = parents * (Math.ceil(seconds / MIN_RESYNC_SECONDS) + 2);
      const least = parents * (Math.floor(seconds / E2E_RESYNC_SECONDS) - 1);
      const n = (callsAfter.get(hook) ?? 0) - (start.calls.get(hook) ?? 0);
      const unchanged = (unchangedAfter.get(hook) ?? 0) - (start.unchanged.get(hook) ?? 0);
      counts.push(`${hook} ${n}${this.etagFor(hook) ? ` (${unchanged} answered 304)` : ''}`);
      if (n > allowed)
        throw new Error(
          `not quiet at rest: ${hook} called ${n} times in ${seconds}s (resyncs explain at most ${allowed})`,
        );
      if (n < least)
        throw new Error(
          `resync: ${hook} called ${n} times in ${seconds}s, fewer than ${least} (${parents} parents resynced every ${E2E_RESYNC_SECONDS}s)`,
        );
      // Where the controller has a webhook ETag, Metacontroller resends the last one and an unchanged answer is 304:
      // resyncs at rest are answered 304, or the ETag is not working as shipped.
      if (this.etagFor(hook) && n >= 2 && unchanged === 0)
        throw new Error(`webhook etag: ${hook} called ${n} times at rest in ${seconds}s, none answered 304`);
    }
    return `quiet for ${seconds}s: ${start.versions.size} objects unchanged, hook calls ${counts.join(', ')}`;
  }

  /** How many times the hook server has answered `route` (e.g. `podset/sync`) about one parent, from its log. */
  syncsOf(route: string, name: string, namespace = 'default'): number {
    const needle = `"hook":"${route}","namespace":"${namespace}","name":"${name}",`;
    let n = 0;
    for (const line of this.readLog('metaops').split('\n'))
      if (line.includes(needle) && line.includes('"msg":"hook answered"')) n++;
    return n;
  }

  /** Waits until the hook has answered `route` about the parent `count` more times than `from`. */
  async moreSyncs(
    route: string,
    name: string,
    count: number,
    from: number,
    namespace = 'default',
    timeoutMs = (count + 2) * E2E_RESYNC_SECONDS * 1000,
  ): Promise<void> {
    await waitFor(
      `${count} more ${route} calls about ${namespace}/${name}`,
      async () => this.syncsOf(route, name, namespace) >= from + count,
      timeoutMs,
    );
  }

  /**
   * The components that exited though nothing here stopped them (those stopped on purpose are no longer listed in
   * `procs`), each with its exit and the last line of its log: empty while all run. A component that died (one that
   * found its port taken) otherwise shows only as every later scenario timing out.
   */
  exited(): string[] {
    return this.procs
      .filter((p) => p.child.exitCode !== null || p.child.signalCode !== null)
      .map((p) => `${p.name} exited (${p.child.exitCode ?? p.child.signalCode}): ${lastLogLine(p.log).slice(0, 400)}`);
  }

  /** Fails, naming them, if a component exited though nothing here stopped it. */
  assertRunning(): void {
    const dead = this.exited();
    if (dead.length > 0) throw new Error(`a component of the control plane is not running: ${dead.join('; ')}`);
  }

  /** The tail of every component log, for a failed scenario. */
  logs(lines = 40): string {
    return this.procs
      .map((p) => {
        let text: string;
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

  /**
   * Deletes the CRDs of `selector` and waits until every one is gone. When one is still there after `timeoutMs`,
   * the error says which objects hold it and why (`stuckObjects`), instead of kubectl's "timed out waiting".
   */
  async deleteCrds(selector: string, timeoutMs = 120_000): Promise<void> {
    await this.kubectl(['delete', 'crd', '-l', selector, '--wait=false']);
    const left = async () => (await this.json(['get', 'crd', '-l', selector])).items as any[];
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if ((await left()).length === 0) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`CRDs of ${selector} not deleted in ${timeoutMs / 1000}s:\n${await this.stuckObjects(selector)}`);
  }

  /**
   * For each CRD of `selector` still there: its Terminating condition, then every object of it still there with
   * its deletionTimestamp and finalizers, the last error Metacontroller logged about it, and the last call the
   * hook server answered for it.
   */
  async stuckObjects(selector: string): Promise<string> {
    const lines: string[] = [];
    const mcLog = this.readLog('metacontroller').split('\n');
    const hookLog = this.readLog('metaops').split('\n');
    const last = (log: string[], test: (l: string) => boolean) => {
      for (let i = log.length - 1; i >= 0; i--) if (test(log[i]!)) return log[i]!.slice(0, 400);
      return '(none)';
    };
    for (const crd of (await this.json(['get', 'crd', '-l', selector])).items as any[]) {
      const terminating = crd.status?.conditions?.find((c: any) => c.type === 'Terminating');
      lines.push(
        `crd/${crd.metadata.name}: deletionTimestamp ${crd.metadata.deletionTimestamp ?? '-'}, finalizers ` +
          `${JSON.stringify(crd.metadata.finalizers ?? [])}, Terminating ${terminating?.reason ?? '-'}: ${terminating?.message ?? ''}`,
      );
      let items: any[];
      try {
        items = (await this.json(['get', crd.metadata.name, '--all-namespaces'])).items;
      } catch (err) {
        lines.push(`  (cannot list: ${err instanceof Error ? err.message.split('\n')[0] : String(err)})`);
        continue;
      }
      for (const o of items) {
        const key = `${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
        lines.push(
          `  ${o.kind} ${key}: deletionTimestamp ${o.metadata.deletionTimestamp ?? '-'}, finalizers ` +
            `${JSON.stringify(o.metadata.finalizers ?? [])}, phase ${o.status?.phase ?? '-'}`,
        );
        // v4.17.2 logs JSON ('restricted-etcd/rooted'), v1.5.20 klog ("restricted-etcd/rooted").
        lines.push(
          `    Metacontroller's last error about it: ${last(mcLog, (l) => l.includes(key) && /error|^E\d/.test(l))}`,
        );
        const [ns, name] = o.metadata.namespace
          ? [o.metadata.namespace, o.metadata.name]
          : [undefined, o.metadata.name];
        lines.push(
          `    the hook server's last call for it: ${last(
            hookLog,
            (l) => l.includes(`"name":"${name}"`) && (!ns || l.includes(`"namespace":"${ns}"`)),
          )}`,
        );
      }
    }
    return lines.join('\n');
  }

  /** How many times Metacontroller has updated a child of the parent `namespace/name` so far (from its log). */
  childUpdates(namespace: string, name: string): number {
    return this.mc.childUpdates(this.readLog('metacontroller'), namespace, name);
  }

  readLog(name: string): string {
    const proc = this.procs.find((p) => p.name === name);
    return proc ? readFileSync(proc.log, 'utf8') : '';
  }

  /**
   * Stops every process this harness started, by its own id, in reverse order; then removes the plane's folder
   * (etcd's data, the logs) unless `keep` (a failed run keeps it for its logs).
   */
  async down(keep = false): Promise<void> {
    await this.moto?.stop();
    for (const proc of [...this.procs].reverse()) {
      if (proc.child.exitCode === null && proc.child.signalCode === null) {
        proc.child.kill('SIGTERM');
        const timer = setTimeout(() => proc.child.kill('SIGKILL'), 10_000);
        await proc.exited;
        clearTimeout(timer);
      }
    }
    if (!keep) rmSync(this.dir, { recursive: true, force: true });
  }
}
