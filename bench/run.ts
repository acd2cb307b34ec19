// `npm run bench`: autocannon against every Memcached / PodSet / MySQLCluster sync at 1, 10, 100 and 1000
// children, beside a ceiling (a bare Fastify route answering a precomputed body of the same size) and a peer (a
// hook written by hand in the style of Metacontroller's examples, bench/peer.mjs) measured in the same run, in
// alternating rounds, at 10 connections and at Metacontroller's own concurrency (5 workers per controller);
// p99 at half rate; RSS of the server; ETag's saving on an unchanged resync; the pure sync functions
// in-process from 1 to 10 000 children; the hooks that call out (S3 against moto, EtcdCluster against real
// etcd) with the share of their time spent in remote calls. Writes bench/results.json and bench/RESULTS.md.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import type { CompositeSyncRequest, KubeObject } from '../lib/metacontroller.js';
import { freePort } from '../test/fixtures/net.js';
import { asObserved, objectMap, root } from '../test/fixtures/requests.js';
import { body, type Kind } from './bodies.js';
import { writeResults } from './report.js';
import { DEFAULT_BODY_LIMIT, MAX_BODY_LIMIT } from '../lib/config.js';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 2);
const HALF_RATE_SECONDS = 3;
/** p99 at half rate is the median of this many runs: one run's p99 is a handful of requests, easily one stall. */
const HALF_RATE_ROUNDS = 3;
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 10);
/** Metacontroller's default: 5 workers per controller (--workers), so at most 5 calls of one hook at once. */
const METACONTROLLER_CONNECTIONS = 5;
const METACONTROLLER_ROUNDS = Number(process.env['BENCH_MC_ROUNDS'] ?? 3);
const SIZES = [1, 10, 100, 1000];

function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

async function start(cmd: string, args: string[], env: NodeJS.ProcessEnv, url: string): Promise<ChildProcess> {
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(url);
      return child;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${cmd} did not start`);
}

interface Run {
  rps: number;
  p50: number;
  p99: number;
  rssMb: number;
  /** The server's CPU time (user + system, all its threads) per request answered. */
  cpuUsPerRequest: number;
  /** Share of the machine's CPU time the hypervisor gave to other guests during the run (/proc/stat steal). */
  stealPercent: number;
  errors: number;
  non2xx: number;
}

/** CPU time a process has used so far, in microseconds (/proc/<pid>/stat utime + stime, in clock ticks). */
function cpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1e6 / CLOCK_TICKS);
}
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** The machine's CPU ticks so far: all of them, and those the hypervisor gave to other guests (steal). */
function machineTicks(): { total: number; steal: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
}

async function load(
  url: string,
  payload: string,
  pid: number,
  opts: {
    rate?: number;
    headers?: Record<string, string>;
    warm?: boolean;
    seconds?: number;
    connections?: number;
  } = {},
): Promise<Run> {
  const connections = opts.connections ?? CONNECTIONS;
  // A warm-up second first, so that both sides are measured hot (JIT, connection pools).
  if (opts.warm !== false)
    await autocannon({
      url,
      method: 'POST',
      body: payload,
      headers: { 'content-type': 'application/json', ...(opts.headers ?? {}) },
      connections,
      duration: 1,
    });
  let peak = rssMb(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 200);
  const cpuBefore = cpuUs(pid);
  const ticksBefore = machineTicks();
  const result = await autocannon({
    url,
    method: 'POST',
    body: payload,
    headers: { 'content-type': 'application/json', ...(opts.headers ?? {}) },
    connections,
    duration: opts.seconds ?? SECONDS,
    ...(opts.rate ? { overallRate: opts.rate } : {}),
  });
  clearInterval(sampler);
  const cpu = cpuUs(pid) - cpuBefore;
  const ticksAfter = machineTicks();
  const stealPercent = Math.round(
    (100 * (ticksAfter.steal - ticksBefore.steal)) / Math.max(1, ticksAfter.total - ticksBefore.total),
  );
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    rssMb: Math.round(peak),
    cpuUsPerRequest: Math.round(cpu / Math.max(1, result.requests.total)),
    stealPercent,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx - (opts.headers?.['if-none-match'] ? (result['3xx'] ?? 0) : 0),
  };
}

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
/**
 * The rows the targets are judged on (10 children) get more rounds: on this machine one row's per-round
 * fractions spread by +-0.2, and whole runs of five rounds differed by that much.
 */
const TARGET_ROUNDS = Number(process.env['BENCH_TARGET_ROUNDS'] ?? 7);
const TARGET_CHILDREN = 10;
/**
 * This machine is a VM on a shared host: at times the hypervisor gives a third of its CPU time to other guests
 * (steal in /proc/stat), which halves a run's rate and stretches its p99. Runs with more steal than this are
 * repeated (STEAL_RETRIES times at most; the steal that remains is reported per row).
 */
const STEAL_LIMIT = Number(process.env['BENCH_STEAL_LIMIT'] ?? 5);
const STEAL_RETRIES = 3;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Target {
  url: string;
  pid: number;
  headers?: Record<string, string>;
}

/**
 * Runs `attempt` (one round: one or more runs measured back to back) until the hypervisor took no more than
 * STEAL_LIMIT of the machine during any of its runs, STEAL_RETRIES repeats at most; the last attempt is kept.
 */
async function undisturbed<R extends Run[]>(
  attempt: (first: boolean) => Promise<R>,
): Promise<{ runs: R; repeats: number }> {
  for (let repeats = 0; ; repeats++) {
    const runs = await attempt(repeats === 0);
    if (Math.max(...runs.map((r) => r.stealPercent)) <= STEAL_LIMIT || repeats === STEAL_RETRIES)
      return { runs, repeats };
  }
}

/** Medians of the runs (maxima for RSS and steal, sums for errors). */
function summary(rs: Run[]): Run {
  return {
    rps: median(rs.map((r) => r.rps)),
    p50: median(rs.map((r) => r.p50)),
    p99: median(rs.map((r) => r.p99)),
    rssMb: Math.max(...rs.map((r) => r.rssMb)),
    cpuUsPerRequest: median(rs.map((r) => r.cpuUsPerRequest)),
    stealPercent: Math.max(...rs.map((r) => r.stealPercent)),
    errors: rs.reduce((n, r) => n + r.errors, 0),
    non2xx: rs.reduce((n, r) => n + r.non2xx, 0),
  };
}

/**
 * The targets in alternating rounds (`rounds` x SECONDS each, after a warm-up of each unless `warmUp` is false),
 * medians of each: this machine's speed drifts by tens of percent within a minute, and alternating puts all of
 * them under the same drift. With `rate`, each is sent that many requests a second.
 */
async function compareAll(
  targets: Target[],
  payload: string,
  {
    rounds = ROUNDS,
    rate,
    seconds,
    warmUp = true,
    connections = CONNECTIONS,
  }: { rounds?: number; rate?: number; seconds?: number; warmUp?: boolean; connections?: number } = {},
) {
  const runs = targets.map(() => [] as Run[]);
  const options = (target: Target, warm: boolean) => ({
    warm,
    connections,
    ...(target.headers ? { headers: target.headers } : {}),
    ...(rate ? { rate } : {}),
    ...(seconds ? { seconds } : {}),
  });
  let retried = 0;
  for (let i = 0; i < rounds; i++) {
    const round = await undisturbed(async (first) => {
      const warm = warmUp && i === 0 && first;
      const out: Run[] = [];
      for (const t of targets) out.push(await load(t.url, payload, t.pid, options(t, warm)));
      return out;
    });
    round.runs.forEach((r, j) => runs[j]!.push(r));
    retried += round.repeats;
  }
  return { summaries: runs.map(summary), runs, retried };
}

/** The ceiling and one other target: medians of each, and each round's second run over the first run just before it. */
async function compare(ceiling: Target, hook: Target, payload: string, opts: Parameters<typeof compareAll>[2] = {}) {
  const { summaries, runs, retried } = await compareAll([ceiling, hook], payload, opts);
  return {
    ceiling: summaries[0]!,
    hook: summaries[1]!,
    fractions: runs[1]!.map((h, i) => Number((h.rps / runs[0]![i]!.rps).toFixed(2))),
    retried,
    runs: { ceiling: runs[0]!, hook: runs[1]! },
  };
}

/** Per round, a over b (both from the same round), to two decimals. */
const ratios = (a: Run[], b: Run[]) => a.map((x, i) => Number((x.rps / b[i]!.rps).toFixed(2)));
const uptime = () => loadavg().map((x) => Number(x.toFixed(2)));

const serverScript = () => join(root, 'dist', 'main', 'server.js');
/** Past the default body limit (8 MiB: a MySQLCluster of 1000 pods is ~17 MB), the server is started with the most it allows. */
const startHook = async (port: number, bodyLimit?: number) =>
  start(
    process.execPath,
    [serverScript()],
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...(bodyLimit ? { METAOPS_BODY_LIMIT: String(bodyLimit) } : {}),
    },
    `http://127.0.0.1:${port}/healthz`,
  );
const startPeer = async (port: number) =>
  start(process.execPath, [join(root, 'bench', 'peer.mjs')], { PORT: String(port) }, `http://127.0.0.1:${port}/`);

async function main(): Promise<void> {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'metaops-bench-'));
  const rows: any[] = [];
  const loadAtStart = uptime();
  const only = process.env['BENCH_KINDS']?.split(',') as Kind[] | undefined;
  const sizes = process.env['BENCH_SIZES']?.split(',').map(Number) ?? SIZES;
  for (const kind of only ?? (['memcached', 'podset', 'mysqlcluster'] as Kind[])) {
    for (const n of sizes) {
      // As Metacontroller sends it: encoded, then parsed (objects of many keys are V8 dictionaries).
      const payload = JSON.stringify(body(kind, n));
      // A new hook server for every row: its RSS is this row's, not the largest of the rows before it.
      const hookPort = await freePort();
      const server = await startHook(hookPort, payload.length > DEFAULT_BODY_LIMIT ? MAX_BODY_LIMIT : undefined);
      const ceilingPort = await freePort();
      const peerPort = await freePort();
      let ceiling: ChildProcess | undefined;
      let peer: ChildProcess | undefined;
      try {
        const loadBefore = uptime();
        const url = `http://127.0.0.1:${hookPort}/hooks/${kind}/sync`;
        const answer = await (
          await fetch(url, { method: 'POST', body: payload, headers: { 'content-type': 'application/json' } })
        ).text();
        const bodyFile = join(dir, `${kind}-${n}.json`);
        writeFileSync(bodyFile, answer);
        ceiling = await start(
          process.execPath,
          [join(root, 'bench', 'ceiling.mjs')],
          { PORT: String(ceilingPort), BODY_FILE: bodyFile },
          `http://127.0.0.1:${ceilingPort}/`,
        );
        peer = await startPeer(peerPort);
        const peerUrl = `http://127.0.0.1:${peerPort}/hooks/${kind}/sync`;
        const peerAnswer = await (
          await fetch(peerUrl, { method: 'POST', body: payload, headers: { 'content-type': 'application/json' } })
        ).text();
        const ceilingTarget = { url: `http://127.0.0.1:${ceilingPort}/ceiling`, pid: ceiling.pid! };
        const hookTarget = { url, pid: server.pid! };
        const peerTarget = { url: peerUrl, pid: peer.pid! };
        const targets = [ceilingTarget, hookTarget, peerTarget];
        const full = await compareAll(targets, payload, { rounds: n === TARGET_CHILDREN ? TARGET_ROUNDS : ROUNDS });
        const [ceil, hook, peerRun] = full.summaries as [Run, Run, Run];
        // At Metacontroller's concurrency: 5 calls at once, as its 5 workers of one controller send them.
        const mc = await compareAll(targets, payload, {
          rounds: METACONTROLLER_ROUNDS,
          connections: METACONTROLLER_CONNECTIONS,
          warmUp: false,
        });
        const [ceil5, hook5, peer5] = mc.summaries as [Run, Run, Run];
        // All three at half the hook's own rate: the ceiling's p99 is what the machine and the load generator
        // sharing it give a server that does nothing.
        const halfRate = await compareAll(targets, payload, {
          rounds: HALF_RATE_ROUNDS,
          rate: Math.max(1, Math.round(hook.rps / 2)),
          seconds: HALF_RATE_SECONDS,
          warmUp: false,
        });
        const [ceilingHalf, half, peerHalf] = halfRate.summaries as [Run, Run, Run];
        const all = [...full.summaries, ...mc.summaries, ...halfRate.summaries];
        const row = {
          hook: `${kind}/sync`,
          children: n,
          requestBytes: payload.length,
          responseBytes: answer.length,
          peerResponseBytes: peerAnswer.length,
          ceilingRps: ceil.rps,
          hookRps: hook.rps,
          peerRps: peerRun.rps,
          fraction: Number((hook.rps / ceil.rps).toFixed(2)),
          // Each round's hook run against the ceiling run just before it, under the same drift of the machine.
          pairedFraction: median(ratios(full.runs[1]!, full.runs[0]!)),
          roundFractions: ratios(full.runs[1]!, full.runs[0]!),
          // metaops over the peer: each round's hook run over the peer run just after it.
          vsPeer: median(ratios(full.runs[1]!, full.runs[2]!)),
          vsPeerRounds: ratios(full.runs[1]!, full.runs[2]!),
          peerFraction: median(ratios(full.runs[2]!, full.runs[0]!)),
          // The same at 5 connections (Metacontroller's 5 workers).
          mc: {
            ceilingRps: ceil5.rps,
            hookRps: hook5.rps,
            peerRps: peer5.rps,
            vsPeer: median(ratios(mc.runs[1]!, mc.runs[2]!)),
            vsPeerRounds: ratios(mc.runs[1]!, mc.runs[2]!),
            fraction: median(ratios(mc.runs[1]!, mc.runs[0]!)),
            hookCpuUs: hook5.cpuUsPerRequest,
            peerCpuUs: peer5.cpuUsPerRequest,
            p99: hook5.p99,
            peerP99: peer5.p99,
          },
          stealPercent: Math.max(...all.map((r) => r.stealPercent)),
          roundsRepeatedForSteal: full.retried + mc.retried + halfRate.retried,
          // Server CPU per request, medians of the rounds: less sensitive than requests/s to the load generator
          // sharing this machine's two cores with the server.
          ceilingCpuUs: ceil.cpuUsPerRequest,
          hookCpuUs: hook.cpuUsPerRequest,
          peerCpuUs: peerRun.cpuUsPerRequest,
          cpuFraction: Number((ceil.cpuUsPerRequest / hook.cpuUsPerRequest).toFixed(2)),
          p50: hook.p50,
          p99: hook.p99,
          peerP99: peerRun.p99,
          halfRate: Math.max(1, Math.round(hook.rps / 2)),
          p99AtHalfRate: half.p99,
          p99AtHalfRateRounds: halfRate.runs[1]!.map((h) => h.p99),
          ceilingP99AtHalfRate: ceilingHalf.p99,
          ceilingP99AtHalfRateRounds: halfRate.runs[0]!.map((h) => h.p99),
          peerP99AtHalfRate: peerHalf.p99,
          peerP99AtHalfRateRounds: halfRate.runs[2]!.map((h) => h.p99),
          rssMb: Math.max(hook.rssMb, half.rssMb, hook5.rssMb),
          // The bare Fastify server's own peak on the same requests: the floor this row's RSS stands on.
          ceilingRssMb: ceil.rssMb,
          peerRssMb: Math.max(peerRun.rssMb, peerHalf.rssMb, peer5.rssMb),
          errors: hook.errors + half.errors + hook.non2xx + half.non2xx + hook5.errors + hook5.non2xx,
          peerErrors: peerRun.errors + peerRun.non2xx + peerHalf.errors + peerHalf.non2xx + peer5.errors + peer5.non2xx,
          // `uptime`'s load averages (1, 5, 15 min) before and after the row: the machine is shared.
          loadBefore,
          loadAfter: uptime(),
        };
        rows.push(row);
        console.log(JSON.stringify(row));
      } finally {
        ceiling?.kill();
        peer?.kill();
        server.kill();
      }
    }
  }
  if (process.env['BENCH_ONLY'] === 'rows') {
    // Only the rows against the ceiling and the peer: the rest of bench/results.json is kept from the last run.
    const file = join(root, 'bench', 'results.json');
    const results = JSON.parse(readFileSync(file, 'utf8'));
    results.rows = rows;
    results.machine = { ...results.machine, ...machineNow(loadAtStart) };
    writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
    writeResults(root);
    return;
  }
  // ETag: an unchanged resync (If-None-Match matches) against the same request answered in full.
  const hookPort = await freePort();
  const server = await startHook(hookPort);
  let etagRow;
  try {
    const payload = JSON.stringify(body('memcached', 10));
    const url = `http://127.0.0.1:${hookPort}/hooks/memcached/sync`;
    const first = await fetch(url, { method: 'POST', body: payload, headers: { 'content-type': 'application/json' } });
    const etag = first.headers.get('etag')!;
    const responseBytes = (await first.text()).length;
    // The same alternating rounds as a hook against its ceiling: the full answer, then the 304.
    const { ceiling: full, hook: notModified } = await compare(
      { url, pid: server.pid! },
      { url, pid: server.pid!, headers: { 'if-none-match': etag } },
      payload,
    );
    etagRow = {
      fullRps: full.rps,
      notModifiedRps: notModified.rps,
      fullP99: full.p99,
      notModifiedP99: notModified.p99,
      responseBytes,
    };
    console.log(JSON.stringify({ etag: etagRow }));
  } finally {
    server.kill();
  }

  // In-process: the pure sync functions from 1 to 10 000 children, in a process of their own so that the
  // heap the HTTP runs left behind does not weigh on them.
  const inProcess = JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', join(root, 'bench', 'inprocess.ts')], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  for (const row of inProcess) console.log(JSON.stringify(row));
  const outbound = await measureOutbound();
  const results = { machine: machineNow(loadAtStart), rows, etag: etagRow, inProcess, outbound };
  writeFileSync(join(root, 'bench', 'results.json'), JSON.stringify(results, null, 2) + '\n');
  writeResults(root);
  console.log('wrote bench/results.json and bench/RESULTS.md');
}

function machineNow(loadAtStart: number[]) {
  return {
    cpus: cpus().length,
    model: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    seconds: SECONDS,
    rounds: ROUNDS,
    targetRounds: TARGET_ROUNDS,
    halfRateSeconds: HALF_RATE_SECONDS,
    halfRateRounds: HALF_RATE_ROUNDS,
    stealLimitPercent: STEAL_LIMIT,
    connections: CONNECTIONS,
    metacontrollerConnections: METACONTROLLER_CONNECTIONS,
    metacontrollerRounds: METACONTROLLER_ROUNDS,
    loadAverageAtStart: loadAtStart,
    loadAverageAtEnd: uptime(),
    date: new Date().toISOString(),
  };
}

/**
 * One converged S3 resource resynced against moto, as Metacontroller drives it (its own answer's status and
 * Secret fed back): time per sync, the share spent in AWS calls, and how many AWS operations one steady-state
 * sync sends (counted on the SDK's middleware stack, each request once).
 */
async function measureS3(
  moto: { endpoint: string; region: string; admin: { accessKeyId: string; secretAccessKey: string } },
  SdkAwsApi: typeof import('../hooks/s3/aws.js').SdkAwsApi,
  s3Sync: typeof import('../test/fixtures/hooks.js').s3Sync,
  timed: <T extends object>(target: T, box: { ms: number; calls: number }) => T,
): Promise<any> {
  const aws = new SdkAwsApi({
    endpoint: moto.endpoint,
    region: moto.region,
    credentials: moto.admin,
    recordCalls: true,
  });
  let children: KubeObject[] = [];
  let status: Record<string, unknown> | undefined;
  const req = (): CompositeSyncRequest => ({
    controller: {},
    parent: {
      apiVersion: 'systek.no/v1',
      kind: 'S3',
      metadata: { name: 'bench', namespace: 'default', uid: 'uid-bench', generation: 1 },
      spec: { bucketName: 'metaops-bench' },
      ...(status ? { status } : {}),
    },
    children: objectMap(
      children.map((c) => asObserved(c)),
      'v1',
      ['Secret.v1'],
    ),
  });
  const step = async (api: typeof aws) => {
    const res = await s3Sync(req(), api, new Date());
    children = res.children;
    status = res.status ?? undefined;
  };
  await step(aws);
  await step(aws);
  aws.sent!.length = 0;
  const box = { ms: 0, calls: 0 };
  const wrapped = timed(aws, box);
  const n = 20;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await step(wrapped);
  const total = (performance.now() - t0) / n;
  const calls = aws.sent!.length / n;
  return {
    syncMs: Number(total.toFixed(1)),
    remoteMs: Number((box.ms / n).toFixed(1)),
    remoteShare: Number((box.ms / n / total).toFixed(2)),
    remoteCallsPerSync: calls,
    awsOperations: aws.sent!.slice(0, calls),
  };
}

/** S3 against moto and EtcdCluster against one real etcd member: time per sync, and how much is the remote call. */
async function measureOutbound(): Promise<any> {
  const { startMoto } = await import('../test/fixtures/moto.js');
  const { SdkAwsApi } = await import('../hooks/s3/aws.js');
  const { s3Sync } = await import('../test/fixtures/hooks.js');
  const { EtcdKubelet } = await import('../test/fixtures/etcd-kubelet.js');
  const { etcdSync } = await import('../test/fixtures/hooks.js');
  const out: any = {};
  const timed = <T extends object>(target: T, box: { ms: number; calls: number }): T =>
    new Proxy(target, {
      get(obj, prop, recv) {
        const v = Reflect.get(obj, prop, recv);
        if (typeof v !== 'function' || prop === 'withDeadline') return typeof v === 'function' ? v.bind(obj) : v;
        return async (...args: unknown[]) => {
          const t0 = performance.now();
          try {
            return await (v as (...a: unknown[]) => Promise<unknown>).apply(obj, args);
          } finally {
            box.ms += performance.now() - t0;
            box.calls++;
          }
        };
      },
    });
  const moto = await startMoto();
  try {
    out.s3 = await measureS3(moto, SdkAwsApi, s3Sync, timed);
  } finally {
    await moto.stop();
  }
  const k = new EtcdKubelet('bench', { size: 1, version: '3.6.9' });
  try {
    await k.converge('size 1', (res) => (res.status as any).members.ready.length === 1);
    const box = { ms: 0, calls: 0 };
    const client = timed(k.client, box);
    const n = 20;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const pods = k.children
        .filter((c) => c.kind === 'Pod')
        .map((p) => ({ ...asObserved(p), status: { phase: 'Running' } }));
      await etcdSync(
        { controller: {}, parent: k.parent(), children: objectMap(pods, 'v1', ['Pod.v1']) },
        { etcd: client, now: new Date() },
      );
    }
    const total = (performance.now() - t0) / n;
    out.etcdcluster = {
      syncMs: Number(total.toFixed(1)),
      remoteMs: Number((box.ms / n).toFixed(1)),
      remoteShare: Number((box.ms / n / total).toFixed(2)),
      remoteCallsPerSync: box.calls / n,
    };
  } finally {
    await k.shutdown();
  }
  console.log(JSON.stringify({ outbound: out }));
  return out;
}

// BENCH_ONLY=outbound measures only the hooks that call out (S3 against moto, EtcdCluster against etcd) and updates
// that part of bench/results.json and bench/RESULTS.md, keeping the rest of the last full run.
if (process.env['BENCH_ONLY'] === 'outbound') {
  const file = join(root, 'bench', 'results.json');
  const results = JSON.parse(readFileSync(file, 'utf8'));
  results.outbound = await measureOutbound();
  results.outboundMeasured = { date: new Date().toISOString(), node: process.version };
  writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
  writeResults(root);
  console.log(JSON.stringify(results.outbound));
} else {
  await main();
}
