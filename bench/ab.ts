// `npm run bench:ab -- <git ref>`: this tree's hook server beside the same server built from another commit, on
// the same requests (bench/bodies.ts), at Metacontroller's concurrency (5 workers per controller), in alternating
// rounds so that both see the same drift of this noisy machine. For a change of shape (a refactor), it says whether
// anything was lost where it matters. Prints a table and writes bench/ab.json.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../test/fixtures/net.js';
import { root } from '../test/fixtures/requests.js';
import { body, type Kind } from './bodies.js';

const ref = process.argv[2] ?? 'HEAD~1';
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 2);
const CONNECTIONS = 5;
const KINDS = (process.env['BENCH_KINDS'] ?? 'podset,memcached,mysqlcluster').split(',') as Kind[];
const SIZES = (process.env['BENCH_SIZES'] ?? '1,10,100').split(',').map(Number);

/** The other commit, built in a worktree of its own (dependencies shared with this tree). */
function buildBaseline(): string {
  const dir = join('/tmp', `metaops-ab-${ref.replace(/[^A-Za-z0-9]/g, '_')}`);
  if (existsSync(dir)) execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: root });
  execFileSync('git', ['worktree', 'add', '--detach', dir, ref], { cwd: root, stdio: 'ignore' });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  execFileSync(
    process.execPath,
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    { cwd: dir, stdio: 'inherit' },
  );
  return dir;
}

/** The server script of a built tree (main/ since the framework commit, lib/ before). */
const serverOf = (dir: string) =>
  [join(dir, 'dist', 'main', 'server.js'), join(dir, 'dist', 'lib', 'server.js')].find(existsSync)!;

async function startServer(script: string): Promise<{ url: string; proc: ChildProcess }> {
  const port = await freePort();
  const proc = spawn(process.execPath, [script], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      METAOPS_BODY_LIMIT: String(32 * 1024 * 1024),
    },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { url, proc };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${script} did not start`);
}

/** CPU seconds (user + system) the process has used. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function load(url: string, pid: number, payload: string, seconds = SECONDS) {
  const before = cpuSeconds(pid);
  const r = await autocannon({
    url,
    method: 'POST',
    body: payload,
    headers: { 'content-type': 'application/json' },
    connections: CONNECTIONS,
    duration: seconds,
  });
  const cpu = cpuSeconds(pid) - before;
  return {
    rps: r.requests.average,
    p99: r.latency.p99,
    cpuUs: r.requests.total ? (cpu * 1e6) / r.requests.total : 0,
    non2xx: r.non2xx,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  const baseDir = buildBaseline();
  const rows: Array<Record<string, unknown>> = [];
  const loadAtStart = loadavg()[0]!.toFixed(2);
  try {
    for (const kind of KINDS) {
      for (const size of SIZES) {
        const payload = JSON.stringify(body(kind, size));
        const path = `/hooks/${kind}/sync`;
        const servers = { now: await startServer(serverOf(root)), base: await startServer(serverOf(baseDir)) };
        try {
          for (const s of Object.values(servers)) await load(s.url + path, s.proc.pid!, payload, 1);
          const runs = {
            now: [] as Awaited<ReturnType<typeof load>>[],
            base: [] as Awaited<ReturnType<typeof load>>[],
          };
          for (let i = 0; i < ROUNDS; i++) {
            runs.base.push(await load(servers.base.url + path, servers.base.proc.pid!, payload));
            runs.now.push(await load(servers.now.url + path, servers.now.proc.pid!, payload));
          }
          const ratio = runs.now.map((r, i) => r.rps / runs.base[i]!.rps);
          const row = {
            hook: `${kind}/sync`,
            children: size,
            rps: {
              base: Math.round(median(runs.base.map((r) => r.rps))),
              now: Math.round(median(runs.now.map((r) => r.rps))),
            },
            ratio: Number(median(ratio).toFixed(2)),
            rounds: ratio.map((x) => Number(x.toFixed(2))),
            cpuUs: {
              base: Math.round(median(runs.base.map((r) => r.cpuUs))),
              now: Math.round(median(runs.now.map((r) => r.cpuUs))),
            },
            p99: { base: median(runs.base.map((r) => r.p99)), now: median(runs.now.map((r) => r.p99)) },
            errors: runs.now.reduce((n, r) => n + r.non2xx, 0) + runs.base.reduce((n, r) => n + r.non2xx, 0),
          };
          rows.push(row);
          console.log(
            `${row.hook} ${size}: req/s ${row.rps.base} -> ${row.rps.now} (x${row.ratio}; rounds ${row.rounds.join(', ')}), CPU us/req ${row.cpuUs.base} -> ${row.cpuUs.now}, p99 ms ${row.p99.base} -> ${row.p99.now}, non-2xx ${row.errors}`,
          );
        } finally {
          for (const s of Object.values(servers)) s.proc.kill();
        }
      }
    }
  } finally {
    execFileSync('git', ['worktree', 'remove', '--force', baseDir], { cwd: root });
    rmSync(baseDir, { recursive: true, force: true });
  }
  const out = {
    ref,
    at: new Date().toISOString(),
    node: process.version,
    connections: CONNECTIONS,
    rounds: ROUNDS,
    seconds: SECONDS,
    load: { start: loadAtStart, end: loadavg()[0]!.toFixed(2) },
    rows,
  };
  writeFileSync(join(root, 'bench', 'ab.json'), JSON.stringify(out, null, 2) + '\n');
}

await main();
