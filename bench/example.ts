// `npm run bench:example`: metaops' PodSet sync beside Metacontroller's own Node example server running its CatSet
// hook (examples/nodejs/server.js with examples/catset/manifest/sync.js: the code users copy) and the hand-written
// peer (bench/peer.mjs), on the same Node, the same pods (bench/bodies.ts), in alternating rounds, at 5 and 10
// connections and 10 and 100 children. metaops runs as it ships: request validation, status conditions, ETag,
// metrics and logging at its default level.
//
// The example is never part of this repository: BENCH_EXAMPLE_DIR names a scratch folder holding its server.js and
// hooks/sync.js as published (from a clone of metacontroller/metacontroller):
//   mkdir -p $DIR/hooks && cp examples/nodejs/server.js $DIR/ && cp examples/catset/manifest/sync.js $DIR/hooks/
// It is started from there with bench/example-port.mjs preloaded (the example listens on port 80; that moves it).
// BENCH_ROUNDS (5), BENCH_SECONDS (2), BENCH_SIZES (10,100), BENCH_CONNECTIONS (5,10). BENCH_BASE_TREE=<dir>: metaops
// built in another tree (a worktree of the commit before a change, `npx tsc -p tsconfig.build.json` there) runs in
// the same rounds as a fourth server, `base`, so that a change is judged beside the example in one run. Prints a
// table and writes bench/example.json.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { freePort } from '../test/fixtures/net.js';
import { root } from '../test/fixtures/requests.js';
import { body, catsetBody } from './bodies.js';

const exampleDir = process.env['BENCH_EXAMPLE_DIR'] ?? '/tmp/metaops-example';
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 2);
const SIZES = (process.env['BENCH_SIZES'] ?? '10,100').split(',').map(Number);
const CONNECTIONS = (process.env['BENCH_CONNECTIONS'] ?? '5,10').split(',').map(Number);
const BASE_TREE = process.env['BENCH_BASE_TREE'];

interface Server {
  name: 'metaops' | 'peer' | 'example' | 'base';
  proc: ChildProcess;
  url: string;
  /** What it is sent: the PodSet request, or for the example the CatSet request with the same pods. */
  payload: string;
}

async function serve(name: Server['name'], args: string[], path: string, payload: string, cwd = root) {
  const port = await freePort();
  const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1' };
  const proc = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}${path}`;
  for (let tries = 0; ; tries++) {
    try {
      const res = await fetch(url, { method: 'POST', body: payload, headers: { 'content-type': 'application/json' } });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${name}: ${res.status} ${text.slice(0, 300)}`);
      return { server: { name, proc, url, payload } satisfies Server, answerBytes: Buffer.byteLength(text) };
    } catch (err) {
      if (tries > 100 || (err as Error).message.startsWith(name)) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** CPU time the process has used so far, in microseconds (utime + stime, clock ticks of 10 ms). */
function cpuTime(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(stat[11]) + Number(stat[12])) * 10_000;
}

async function measure(s: Server, connections: number, seconds: number) {
  const cpu = cpuTime(s.proc.pid!);
  const r = await autocannon({
    url: s.url,
    method: 'POST',
    body: s.payload,
    headers: { 'content-type': 'application/json' },
    connections,
    duration: seconds,
  });
  const used = cpuTime(s.proc.pid!) - cpu;
  return { rps: r.requests.average, cpuUs: used / Math.max(1, r.requests.total), bad: r.non2xx + r.errors };
}

const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const two = (x: number) => Number(x.toFixed(2));
const load1 = () => two(loadavg()[0]!);

async function row(children: number, connections: number) {
  const podset = JSON.stringify(body('podset', children));
  const started = [
    await serve('metaops', [join(root, 'dist', 'main', 'server.js')], '/hooks/podset/sync', podset),
    await serve('peer', [join(root, 'bench', 'peer.mjs')], '/hooks/podset/sync', podset),
    await serve(
      'example',
      ['--import', pathToFileURL(join(root, 'bench', 'example-port.mjs')).href, 'server.js'],
      '/sync',
      JSON.stringify(catsetBody(children)),
      exampleDir,
    ),
  ];
  if (BASE_TREE)
    started.push(await serve('base', [join(BASE_TREE, 'dist', 'main', 'server.js')], '/hooks/podset/sync', podset));
  const servers = started.map((s) => s.server);
  const loadBefore = load1();
  try {
    for (const s of servers) await measure(s, connections, 1); // warm-up
    const runs = new Map(servers.map((s) => [s.name, [] as Awaited<ReturnType<typeof measure>>[]]));
    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts with another server, so that none is always measured first (or last) in a round.
      for (let k = 0; k < servers.length; k++) {
        const s = servers[(round + k) % servers.length]!;
        runs.get(s.name)!.push(await measure(s, connections, SECONDS));
      }
    }
    const of = (name: Server['name']) => runs.get(name)!;
    const over = (a: Server['name'], b: Server['name']) => of(a).map((r, i) => two(r.rps / of(b)[i]!.rps));
    return {
      children,
      connections,
      requestBytes: { podset: podset.length, catset: servers[2]!.payload.length },
      answerBytes: Object.fromEntries(started.map((s) => [s.server.name, s.answerBytes])),
      rps: Object.fromEntries(servers.map((s) => [s.name, Math.round(mid(of(s.name).map((r) => r.rps)))])),
      cpuUsPerRequest: Object.fromEntries(
        servers.map((s) => [s.name, Math.round(mid(of(s.name).map((r) => r.cpuUs)))]),
      ),
      vsExample: two(mid(over('metaops', 'example'))),
      vsExampleRounds: over('metaops', 'example'),
      vsPeer: two(mid(over('metaops', 'peer'))),
      vsPeerRounds: over('metaops', 'peer'),
      ...(BASE_TREE
        ? {
            baseVsExample: two(mid(over('base', 'example'))),
            vsBase: two(mid(over('metaops', 'base'))),
            vsBaseRounds: over('metaops', 'base'),
          }
        : {}),
      load: [loadBefore, load1()],
      errors: servers.reduce((n, s) => n + of(s.name).reduce((m, r) => m + r.bad, 0), 0),
    };
  } finally {
    for (const s of servers) s.proc.kill();
  }
}

async function main(): Promise<void> {
  for (const file of ['server.js', join('hooks', 'sync.js')])
    if (!existsSync(join(exampleDir, file))) throw new Error(`BENCH_EXAMPLE_DIR: no ${file} in ${exampleDir}`);
  if (!existsSync(join(root, 'dist', 'main', 'server.js'))) throw new Error('npm run build first');
  const rows = [];
  console.log(
    '| children | connections | req/s metaops / peer / example | metaops / example (rounds) | metaops / peer (rounds) | CPU us/req metaops / peer / example | load avg (1 min) before, after | errors |',
  );
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const connections of CONNECTIONS) {
    for (const children of SIZES) {
      const r = await row(children, connections);
      rows.push(r);
      const three = (o: Record<string, number>) => `${o['metaops']} / ${o['peer']} / ${o['example']}`;
      console.log(
        `| ${children} | ${connections} | ${three(r.rps)} | **${r.vsExample}** (${r.vsExampleRounds.join(', ')}) | **${r.vsPeer}** (${r.vsPeerRounds.join(', ')}) | ${three(r.cpuUsPerRequest)} | ${r.load.join(', ')} | ${r.errors} |`,
      );
      if (BASE_TREE)
        console.log(
          `|   | base (${BASE_TREE}): | req/s ${r.rps['base']}, CPU us/req ${r.cpuUsPerRequest['base']} | base / example **${r.baseVsExample}** | metaops / base **${r.vsBase}** (${r.vsBaseRounds?.join(', ')}) | | | |`,
        );
    }
  }
  const out = {
    at: new Date().toISOString(),
    node: process.version,
    rounds: ROUNDS,
    seconds: SECONDS,
    ...(BASE_TREE ? { baseTree: BASE_TREE } : {}),
    rows,
  };
  writeFileSync(join(root, 'bench', 'example.json'), JSON.stringify(out, null, 2) + '\n');
}

await main();
