// `npm run soak`: steady load on every pure hook (Memcached, PodSet, MySQLCluster sync and customize, EtcdBackup,
// EtcdRestore, PodBuggerTool customize: its sync acts on pods) for SOAK_SECONDS (default 300) at a fixed total rate, sampling the server's
// RSS every 10 s; fails on any error or non-2xx. Writes the result to bench/soak.json and its section of bench/RESULTS.md.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../test/e2e/cluster.js';
import { example, root } from '../test/fixtures/requests.js';
import { body } from './bodies.js';
import { writeResults } from './report.js';

const SECONDS = Number(process.env['SOAK_SECONDS'] ?? 300);
const RATE = Number(process.env['SOAK_RATE'] ?? 400);

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : 0;
}

const requests = [
  { path: '/hooks/memcached/sync', body: JSON.stringify(body('memcached', 10)) },
  { path: '/hooks/memcached/customize', body: JSON.stringify(example('memcached-customize')) },
  { path: '/hooks/podset/sync', body: JSON.stringify(body('podset', 10)) },
  { path: '/hooks/mysqlcluster/sync', body: JSON.stringify(body('mysqlcluster', 10)) },
  {
    path: '/hooks/etcdbackup/sync',
    body: JSON.stringify({
      controller: {},
      parent: {
        apiVersion: 'etcd.database.coreos.com/v1beta2',
        kind: 'EtcdBackup',
        metadata: { name: 'b', namespace: 'default', generation: 1 },
        spec: { clusterName: 'c', s3: { path: 'bucket/key' } },
      },
    }),
  },
  {
    path: '/hooks/etcdrestore/sync',
    body: JSON.stringify({
      controller: {},
      parent: {
        apiVersion: 'etcd.database.coreos.com/v1beta2',
        kind: 'EtcdRestore',
        metadata: { name: 'r', namespace: 'default', generation: 1 },
        spec: { etcdCluster: { name: 'c' }, s3: { path: 'bucket/key' } },
      },
    }),
  },
  {
    path: '/hooks/podbuggertool/customize',
    body: JSON.stringify({
      controller: {},
      parent: {
        apiVersion: 'debug.metaops.dev/v1alpha1',
        kind: 'PodBuggerTool',
        metadata: { name: 't', namespace: 'default', generation: 1 },
        spec: { label: 'app=web', image: 'busybox' },
      },
    }),
  },
];

const port = await freePort();
const server = spawn(process.execPath, [join(root, 'dist', 'main', 'server.js')], {
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
for (let i = 0; i < 100; i++) {
  try {
    await fetch(`http://127.0.0.1:${port}/healthz`);
    break;
  } catch {
    await new Promise((r) => setTimeout(r, 100));
  }
}
const samples: Array<{ s: number; rssMb: number }> = [];
const started = Date.now();
const sampler = setInterval(
  () => samples.push({ s: Math.round((Date.now() - started) / 1000), rssMb: rssMb(server.pid!) }),
  10_000,
);
samples.push({ s: 0, rssMb: rssMb(server.pid!) });
const result = await autocannon({
  url: `http://127.0.0.1:${port}`,
  connections: 8,
  duration: SECONDS,
  overallRate: RATE,
  requests: requests.map((r) => ({
    method: 'POST',
    path: r.path,
    body: r.body,
    headers: { 'content-type': 'application/json' },
  })),
});
clearInterval(sampler);
samples.push({ s: SECONDS, rssMb: rssMb(server.pid!) });
server.kill();
const firstMinute = samples.filter((x) => x.s >= 60 && x.s <= 120).map((x) => x.rssMb);
const lastMinute = samples.filter((x) => x.s >= SECONDS - 60).map((x) => x.rssMb);
const avg = (a: number[]) => (a.length ? Math.round(a.reduce((x, y) => x + y, 0) / a.length) : 0);
const soak = {
  seconds: SECONDS,
  rate: RATE,
  requests: result.requests.total,
  errors: result.errors + result.timeouts,
  non2xx: result.non2xx,
  p99: result.latency.p99,
  rssMb: {
    start: samples[0]!.rssMb,
    secondMinute: avg(firstMinute),
    lastMinute: avg(lastMinute),
    max: Math.max(...samples.map((x) => x.rssMb)),
  },
  samples,
};
writeFileSync(join(root, 'bench', 'soak.json'), JSON.stringify(soak, null, 2) + '\n');
writeResults(root);
console.log(JSON.stringify(soak));
process.exitCode = soak.errors === 0 && soak.non2xx === 0 ? 0 : 1;
