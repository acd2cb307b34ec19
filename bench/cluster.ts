// `npm run bench:cluster`: the cost of the system at the scale of a cluster, on the end-to-end control plane
// (etcd, kube-apiserver, kube-controller-manager, Metacontroller v1.5.20, the metaops hook server; test/e2e/cluster.ts).
// For each scale (CLUSTER_SCALES, default 50,100,200) a fresh control plane; N PodSets of 3 pods and N/10
// Memcacheds and N/10 MySQLClusters of 3 are created at once (one `kubectl apply`); a kubelet stand-in marks every
// pod Running and Ready as soon as it exists; measured: the time until every parent reports Ready, hook calls per
// parent, each component's CPU seconds (/proc/<pid>/stat) and the hook calls' latency; then, at rest, two
// resync periods: calls per minute and the share answered 304. Writes bench/cluster.json and its section of
// bench/RESULTS.md.
//
// Between Metacontroller and the hook server sits a small proxy of the bench's own: it times every call, and it
// does what Metacontroller v4.17's webhook ETag cache does (pkg/hooks/webhook_etag.go: the last ETag per parent
// kind/namespace/name sent as If-None-Match, a 304 answered from the cached body) for the hooks the shipped
// manifests give an ETag, because v1.5.20, the release the suite builds, has no such cache.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { operators as hooks } from '../main/operators.js';
import { rolling } from '../lib/manifests.js';
import { renderController } from '../scripts/render-manifests.js';
import { ControlPlane, freePort } from '../test/e2e/cluster.js';
import { root } from '../test/fixtures/requests.js';
import { writeResults } from './report.js';

const SCALES = (process.env['CLUSTER_SCALES'] ?? '50,100,200').split(',').map(Number);
/** Every controller of the bench resyncs this often (the shipped PodSet, Memcached and MySQLCluster set none). */
const RESYNC_SECONDS = Number(process.env['CLUSTER_RESYNC_SECONDS'] ?? 30);
/** At rest: this many resync periods after convergence. */
const REST_RESYNCS = 2;
const CONVERGE_TIMEOUT_MS = Number(process.env['CLUSTER_TIMEOUT_SECONDS'] ?? 900) * 1000;
/**
 * Hooks whose ETag the proxy does not emulate although the manifests give one (CLUSTER_ETAG_OFF=podset/sync, comma
 * separated): a run beside one with it, to see what the 304s save.
 */
const ETAG_OFF = new Set(
  (process.env['CLUSTER_ETAG_OFF'] ?? '')
    .split(',')
    .filter(Boolean)
    .map((h) => `/hooks/${h}`),
);
const PODS_PER_PARENT = 3;
/**
 * Metacontroller as it runs in production (default discovery interval, verbosity and 5 workers per
 * controller), except the client's rate limit: the suite's 100 requests/s (burst 200) instead of v1.5.20's
 * default 5 (burst 10), at which creating 720 pods alone takes over two minutes.
 */
const METACONTROLLER_ARGS = ['--client-go-qps=100', '--client-go-burst=200'];
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

function cpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return 0;
  }
}

/** The API server over HTTPS with the suite's admin token, on one kept-alive connection pool. */
class Api {
  private agent = new https.Agent({ keepAlive: true, maxSockets: 16, rejectUnauthorized: false });
  constructor(private port: number) {}
  request(method: string, path: string, body?: unknown, contentType = 'application/merge-patch+json'): Promise<any> {
    return new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const req = https.request(
        {
          host: '127.0.0.1',
          port: this.port,
          path,
          method,
          agent: this.agent,
          headers: {
            authorization: 'Bearer admin-token',
            accept: 'application/json',
            ...(data ? { 'content-type': contentType, 'content-length': Buffer.byteLength(data) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            if ((res.statusCode ?? 500) >= 300)
              return reject(new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`));
            resolve(text ? JSON.parse(text) : undefined);
          });
        },
      );
      req.on('error', reject);
      req.end(data);
    });
  }
  close(): void {
    this.agent.destroy();
  }
}

/**
 * The kubelet stand-in: the status the suite's markPodsReady writes (Running, PodScheduled, Initialized,
 * ContainersReady, Ready), plus a Ready status for each container, as a kubelet reports it; sent over HTTPS
 * instead of one kubectl process per pod, which at 720 pods would itself be the slowest part of the system.
 */
async function markReady(api: Api): Promise<number> {
  // Pods not yet Running (the API server filters): the stand-in marks each once, as it appears.
  const list = await api.request('GET', '/api/v1/namespaces/default/pods?fieldSelector=status.phase%21%3DRunning');
  const todo = (list.items as any[]).filter((pod) => !pod.metadata.deletionTimestamp);
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const pod = todo[next++];
      const status = {
        status: {
          phase: 'Running',
          podIP: '10.1.0.1',
          startTime: now,
          conditions: ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map((type) => ({
            type,
            status: 'True',
            lastTransitionTime: now,
          })),
          containerStatuses: (pod.spec.containers as any[]).map((c) => ({
            name: c.name,
            image: c.image,
            imageID: '',
            ready: true,
            started: true,
            restartCount: 0,
            state: { running: { startedAt: now } },
          })),
        },
      };
      try {
        await api.request('PATCH', `/api/v1/namespaces/default/pods/${pod.metadata.name}/status`, status);
      } catch {
        // Deleted or changed meanwhile: the next pass looks again.
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return todo.length;
}

interface CallLog {
  hook: string;
  ms: number;
  status: number;
  notModified: boolean;
  at: number;
}

/** The proxy between Metacontroller and the hook server: times each call, emulates v4.17's ETag cache. */
function startProxy(port: number, target: () => number, etagPaths: Set<string>, calls: CallLog[]): http.Server {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const cache = new Map<string, { etag: string; body: Buffer }>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = req.url ?? '/';
      const hook = path.replace(/^\/hooks\//, '');
      let key: string | undefined;
      const headers: Record<string, string | number> = {
        'content-type': 'application/json',
        'content-length': body.length,
      };
      if (etagPaths.has(path)) {
        const parsed = JSON.parse(body.toString());
        const rootObject = parsed.parent ?? parsed.object;
        key = `${path} ${rootObject.kind}/${rootObject.metadata.namespace}/${rootObject.metadata.name}`;
        const entry = cache.get(key);
        if (entry) headers['if-none-match'] = entry.etag;
      }
      const t0 = performance.now();
      const out = http.request(
        { host: '127.0.0.1', port: target(), path, method: 'POST', headers, agent },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            const ms = performance.now() - t0;
            let status = answer.statusCode ?? 500;
            let reply: Buffer = Buffer.concat(parts);
            const notModified = status === 304 && headers['if-none-match'] !== undefined;
            if (notModified) {
              reply = cache.get(key!)!.body;
              status = 200;
            } else if (key && status === 200 && typeof answer.headers.etag === 'string') {
              cache.set(key, { etag: answer.headers.etag, body: reply });
            }
            calls.push({ hook, ms, status: answer.statusCode ?? 500, notModified, at: Date.now() });
            res.writeHead(status, { 'content-type': 'application/json', 'content-length': reply.length });
            res.end(reply);
          });
        },
      );
      out.on('error', (err) => {
        calls.push({ hook, ms: performance.now() - t0, status: 502, notModified: false, at: Date.now() });
        res.writeHead(502);
        res.end(String(err));
      });
      out.end(body);
    });
  });
  server.listen(port, '127.0.0.1');
  return server;
}

const PARENTS = {
  podset: {
    api: '/apis/apps.jicki.cn/v1alpha1/namespaces/default/podsets',
    yaml: (name: string) =>
      `apiVersion: apps.jicki.cn/v1alpha1\nkind: PodSet\nmetadata:\n  name: ${name}\nspec:\n  size: ${PODS_PER_PARENT}\n`,
  },
  memcached: {
    api: '/apis/cache.example.com/v1alpha1/namespaces/default/memcacheds',
    yaml: (name: string) =>
      `apiVersion: cache.example.com/v1alpha1\nkind: Memcached\nmetadata:\n  name: ${name}\nspec:\n  size: ${PODS_PER_PARENT}\n`,
  },
  mysqlcluster: {
    api: '/apis/database.example.com/v1alpha1/namespaces/default/mysqlclusters',
    yaml: (name: string) =>
      `apiVersion: database.example.com/v1alpha1\nkind: MySQLCluster\nmetadata:\n  name: ${name}\nspec:\n  size: ${PODS_PER_PARENT}\n  version: "8.0"\n`,
  },
} as const;
type ParentKind = keyof typeof PARENTS;

const isReady = (obj: any) =>
  obj.status?.observedGeneration === obj.metadata.generation &&
  (obj.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');

const percentile = (xs: number[], p: number) => {
  if (xs.length === 0) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const round = (x: number, digits = 1) => Number(x.toFixed(digits));

async function runScale(bin: string, n: number): Promise<Record<string, unknown>> {
  const counts: Record<ParentKind, number> = {
    podset: n,
    memcached: Math.max(1, Math.round(n / 10)),
    mysqlcluster: Math.max(1, Math.round(n / 10)),
  };
  const plane = new ControlPlane(bin, root, { hookLogLevel: 'info', metacontrollerArgs: METACONTROLLER_ARGS });
  const calls: CallLog[] = [];
  const proxyPort = await freePort();
  const etagPaths = new Set(
    hooks
      .filter((d) => d.type === 'composite' && !rolling(d))
      .map((d) => `/hooks/${d.name}/sync`)
      .filter((path) => !ETAG_OFF.has(path)),
  );
  const proxy = startProxy(proxyPort, () => plane.hookPort, etagPaths, calls);
  let api: Api | undefined;
  try {
    const upStarted = Date.now();
    await plane.up(() =>
      hooks
        .map((d) =>
          renderController(d, {
            target: { kind: 'url', base: `http://127.0.0.1:${proxyPort}` },
            etag: false,
            // v1.5.20's DecoratorController refuses the field (strict decoding); v4 has it (test/e2e/cluster.ts).
            ignoreStatusChanges: plane.mc.features.ignoreStatusChanges,
            resyncPeriodSeconds: RESYNC_SECONDS,
          }),
        )
        .join('---\n'),
    );
    console.log(`cluster ${n}: control plane up in ${((Date.now() - upStarted) / 1000).toFixed(0)} s (${plane.dir})`);
    api = new Api(plane.apiPort);
    const pid = (name: string) => plane.procs.find((p) => p.name === name)?.child.pid;
    const components = {
      hooks: () => plane.hookProc?.child.pid,
      metacontroller: () => pid('metacontroller'),
      'kube-apiserver': () => pid('kube-apiserver'),
      etcd: () => pid('etcd'),
      'kube-controller-manager': () => pid('kube-controller-manager'),
    };
    const cpu = () =>
      Object.fromEntries(Object.entries(components).map(([k, f]) => [k, cpuSeconds(f())])) as Record<string, number>;
    const minus = (a: Record<string, number>, b: Record<string, number>) =>
      Object.fromEntries(Object.keys(a).map((k) => [k, round(a[k]! - b[k]!, 2)]));
    // Let the control plane finish starting (controllers picked up, informers synced) before the clock starts.
    await new Promise((r) => setTimeout(r, 5000));
    calls.length = 0;

    const names: Array<[ParentKind, string]> = [];
    for (const kind of Object.keys(counts) as ParentKind[])
      for (let i = 0; i < counts[kind]; i++) names.push([kind, `${kind}-${i}`]);
    const manifest = names.map(([kind, name]) => PARENTS[kind].yaml(name)).join('---\n');
    writeFileSync(join(plane.dir, 'parents.yaml'), manifest);
    const cpu0 = cpu();
    const load0 = loadavg();
    const t0 = Date.now();
    await plane.kubectl(['apply', '-f', join(plane.dir, 'parents.yaml')]);
    const applied = Date.now() - t0;
    let marked = 0;
    let convergedMs = 0;
    const readyAt: number[] = [];
    for (;;) {
      marked += await markReady(api);
      let ready = 0;
      for (const kind of Object.keys(counts) as ParentKind[]) {
        const list = await api.request('GET', PARENTS[kind].api);
        ready += (list.items as any[]).filter(isReady).length;
      }
      readyAt.push(ready);
      if (ready === names.length) {
        convergedMs = Date.now() - t0;
        break;
      }
      if (Date.now() - t0 > CONVERGE_TIMEOUT_MS)
        throw new Error(
          `cluster ${n}: ${ready} of ${names.length} parents Ready after ${CONVERGE_TIMEOUT_MS / 1000} s`,
        );
      await new Promise((r) => setTimeout(r, 1000));
    }
    const cpuConverged = minus(cpu(), cpu0);
    const convergeCalls = calls.splice(0);
    console.log(
      `cluster ${n}: ${names.length} parents Ready in ${(convergedMs / 1000).toFixed(1)} s, ${convergeCalls.length} hook calls`,
    );

    // At rest: nothing left to do but resyncs. A few seconds for the last status writes to land first.
    await new Promise((r) => setTimeout(r, 5000));
    calls.length = 0;
    const cpuRest0 = cpu();
    const restSeconds = REST_RESYNCS * RESYNC_SECONDS;
    const restStarted = Date.now();
    await new Promise((r) => setTimeout(r, restSeconds * 1000));
    const restMs = Date.now() - restStarted;
    const cpuRest = minus(cpu(), cpuRest0);
    const restCalls = calls.splice(0);
    const perHook = (list: CallLog[]) => {
      const out: Record<
        string,
        { calls: number; perParent: number; p50Ms: number; p99Ms: number; notModified: number }
      > = {};
      for (const hook of [...new Set(list.map((c) => c.hook))].sort()) {
        const mine = list.filter((c) => c.hook === hook);
        const kind = hook.split('/')[0] as ParentKind;
        out[hook] = {
          calls: mine.length,
          perParent: round(mine.length / (counts[kind] ?? 1), 2),
          p50Ms: round(
            percentile(
              mine.map((c) => c.ms),
              50,
            ),
            2,
          ),
          p99Ms: round(
            percentile(
              mine.map((c) => c.ms),
              99,
            ),
            2,
          ),
          notModified: mine.filter((c) => c.notModified).length,
        };
      }
      return out;
    };
    const etagCalls = restCalls.filter((c) => etagPaths.has(`/hooks/${c.hook}`));
    const result = {
      podsets: counts.podset,
      memcacheds: counts.memcached,
      mysqlclusters: counts.mysqlcluster,
      parents: names.length,
      pods: names.length * PODS_PER_PARENT,
      applySeconds: round(applied / 1000, 1),
      convergedSeconds: round(convergedMs / 1000, 1),
      podsMarkedReady: marked,
      converge: {
        calls: convergeCalls.length,
        callsPerParent: round(convergeCalls.length / names.length, 2),
        errors: convergeCalls.filter((c) => c.status >= 400).length,
        p50Ms: round(
          percentile(
            convergeCalls.map((c) => c.ms),
            50,
          ),
          2,
        ),
        p99Ms: round(
          percentile(
            convergeCalls.map((c) => c.ms),
            99,
          ),
          2,
        ),
        // Wall time the hook server spent answering, summed over calls (they overlap: 5 workers per controller).
        hookBusySeconds: round(convergeCalls.reduce((s, c) => s + c.ms, 0) / 1000, 2),
        cpuSeconds: cpuConverged,
        byHook: perHook(convergeCalls),
      },
      rest: {
        seconds: round(restMs / 1000, 0),
        calls: restCalls.length,
        callsPerMinute: round((restCalls.length * 60_000) / restMs, 0),
        callsPerParentPerResync: round(restCalls.length / names.length / REST_RESYNCS, 2),
        notModifiedShare: round(restCalls.filter((c) => c.notModified).length / Math.max(1, restCalls.length), 2),
        notModifiedShareOfEtagHooks: round(
          etagCalls.filter((c) => c.notModified).length / Math.max(1, etagCalls.length),
          2,
        ),
        p99Ms: round(
          percentile(
            restCalls.map((c) => c.ms),
            99,
          ),
          2,
        ),
        cpuSecondsPerMinute: Object.fromEntries(
          Object.entries(cpuRest).map(([k, v]) => [k, round((v * 60_000) / restMs, 2)]),
        ),
        byHook: perHook(restCalls),
      },
      loadAverage: { before: load0.map((x) => round(x, 2)), after: loadavg().map((x) => round(x, 2)) },
    };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    api?.close();
    proxy.close();
    await plane.down();
  }
}

const out = execFileSync('bash', [join(root, 'e2e', 'build.sh')], { stdio: ['ignore', 'pipe', 'inherit'] });
const bin = out.toString().trim().split('\n').pop()!;
execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
const scales = [];
const started = new Date().toISOString();
for (const n of SCALES) scales.push(await runScale(bin, n));
const cluster = {
  machine: {
    cpus: cpus().length,
    model: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    date: started,
  },
  resyncSeconds: RESYNC_SECONDS,
  restResyncs: REST_RESYNCS,
  podsPerParent: PODS_PER_PARENT,
  metacontrollerArgs: METACONTROLLER_ARGS,
  scales,
};
writeFileSync(join(root, 'bench', 'cluster.json'), JSON.stringify(cluster, null, 2) + '\n');
writeResults(root);
console.log('wrote bench/cluster.json and bench/RESULTS.md');
