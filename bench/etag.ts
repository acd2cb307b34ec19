// `npm run bench:etag`: what a 304 saves the hook server on an unchanged resync. One built server (dist/main/server.js,
// every feature on), one PodSet sync request (bench/bodies.ts), sent by autocannon in alternating rounds of
// ETAG_SECONDS (2) with and without the If-None-Match of its own answer (each round starting with the other), at 5
// connections (Metacontroller's workers); medians of the rounds' rate and server CPU per request (/proc). The hook
// runs either way (the ETag is the hash of its answer); a 304 leaves out writing the answer. ETAG_SIZES (10,100),
// ETAG_ROUNDS (7).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../test/fixtures/net.js';
import { root } from '../test/fixtures/requests.js';
import { body } from './bodies.js';

const SIZES = (process.env['ETAG_SIZES'] ?? '10,100').split(',').map(Number);
const ROUNDS = Number(process.env['ETAG_ROUNDS'] ?? 7);
const SECONDS = Number(process.env['ETAG_SECONDS'] ?? 2);

/** CPU time the process has used so far, in microseconds (utime + stime, clock ticks of 10 ms). */
function cpuTime(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(stat[11]) + Number(stat[12])) * 10_000;
}

const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const two = (x: number) => Number(x.toFixed(2));

async function row(children: number) {
  const payload = JSON.stringify(body('podset', children));
  const port = await freePort();
  const proc = spawn(process.execPath, [join(root, 'dist', 'main', 'server.js')], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}/hooks/podset/sync`;
  try {
    let first: Response | undefined;
    for (let tries = 0; !first; tries++) {
      try {
        first = await fetch(url, { method: 'POST', body: payload, headers: { 'content-type': 'application/json' } });
      } catch (err) {
        if (tries > 100) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const answerBytes = Buffer.byteLength(await first.text());
    const etag = first.headers.get('etag')!;
    const run = async (tagged: boolean, seconds: number) => {
      const cpu = cpuTime(proc.pid!);
      const r = await autocannon({
        url,
        method: 'POST',
        body: payload,
        headers: { 'content-type': 'application/json', ...(tagged ? { 'if-none-match': etag } : {}) },
        connections: 5,
        duration: seconds,
      });
      const statuses = tagged ? r['3xx'] : r['2xx'];
      return {
        rps: r.requests.average,
        cpuUs: (cpuTime(proc.pid!) - cpu) / Math.max(1, r.requests.total),
        statuses,
        total: r.requests.total,
      };
    };
    const load = [two(loadavg()[0]!)];
    await run(false, 1);
    await run(true, 1);
    const full: Awaited<ReturnType<typeof run>>[] = [];
    const notModified: Awaited<ReturnType<typeof run>>[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      if (i % 2 === 0) {
        full.push(await run(false, SECONDS));
        notModified.push(await run(true, SECONDS));
      } else {
        notModified.push(await run(true, SECONDS));
        full.push(await run(false, SECONDS));
      }
    }
    load.push(two(loadavg()[0]!));
    return {
      children,
      requestBytes: payload.length,
      answerBytes,
      rps: {
        full: Math.round(mid(full.map((r) => r.rps))),
        notModified: Math.round(mid(notModified.map((r) => r.rps))),
      },
      cpuUsPerRequest: {
        full: Math.round(mid(full.map((r) => r.cpuUs))),
        notModified: Math.round(mid(notModified.map((r) => r.cpuUs))),
      },
      cpuRatioRounds: full.map((r, i) => two(notModified[i]!.cpuUs / r.cpuUs)),
      // Every request of a round answered as it should be: 200 without the header, 304 with it.
      allAnswered: full.every((r) => r.statuses === r.total) && notModified.every((r) => r.statuses === r.total),
      load,
    };
  } finally {
    proc.kill();
  }
}

for (const n of SIZES) console.log(JSON.stringify(await row(n)));
