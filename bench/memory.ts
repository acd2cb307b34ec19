// `npm run bench:memory`: the hook server's peak memory (VmHWM, the high-water mark of its resident set) with the
// worst object of every kind, one at a time and two at once, against the Deployment's 512 MiB limit
// (manifests/deploy/deployment.yaml). For each kind:
// - largest accepted: the largest spec its CRD and hook accept (test/fixtures/worst.ts), the parent's metadata at
//   the API server's limits, its own answer fed back as the observed children (as Metacontroller sends a resync);
// - largest stored: the same parent grown to what the API server stores (1.44 MiB), where the CRD keeps a field
//   open (EtcdCluster's pod policy: refused by the hook); the other kinds have no open field to grow;
// and the largest request the server reads at all (METAOPS_BODY_LIMIT, 8 MiB: a PodSet's 1000 observed pods, their
// annotations grown to it). Each scenario runs on a fresh server (node dist/main/server.js, as the image runs it, with
// Node's default heap: larger than a 512 MiB container's, so a lazier collector and an upper bound), whose RSS
// after start is the baseline of the same run. Writes bench/memory.json and the table in docs/operating.md.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { operators } from '../main/operators.js';
import type { CompositeHookDefinition } from '../lib/hook.js';
import type { CompositeSyncRequest, KubeObject, ParentObject } from '../lib/metacontroller.js';
import { runHook } from '../lib/operator.js';
import { failingClient } from '../test/fixtures/app.js';
import { FakeAws } from '../test/fixtures/fake-aws.js';
import { freePort } from '../test/fixtures/net.js';
import { asObserved, objectMap, root } from '../test/fixtures/requests.js';
import { oversizedParent, syncRequest, WORST_SPECS, worstParent } from '../test/fixtures/worst.js';

const TOKEN = 'memory-benchmark-token-0123456789';
const LIMIT_MIB = 512;
const BODY_LIMIT = 8 * 1024 * 1024;

function status(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

async function start(): Promise<{ proc: ChildProcess; port: number }> {
  const port = await freePort();
  const proc = spawn(process.execPath, [join(root, 'dist', 'main', 'server.js')], {
    env: {
      PATH: process.env['PATH'],
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      METAOPS_AUTH_TOKEN: TOKEN,
      // AWS and etcd are not there: the calls fail at once (connection refused), the answer is still built.
      AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
      AWS_ACCESS_KEY_ID: 'AKIDBENCH',
      AWS_SECRET_ACCESS_KEY: 'bench',
      AWS_REGION: 'us-east-1',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 200; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/healthz`);
      return { proc, port };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('the server did not start');
}

async function post(
  port: number,
  path: string,
  body: string,
): Promise<{ status: number; bytes: number; ready?: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
  });
  const text = await res.text();
  const conditions = (JSON.parse(text).status?.conditions ?? []) as Array<{ type: string; reason?: string }>;
  const ready = conditions.find((c) => c.type === 'Ready')?.reason;
  return { status: res.status, bytes: text.length, ...(ready ? { ready } : {}) };
}

/** The request Metacontroller sends at a resync: the parent, and the children the hook answered, as observed. */
async function fedBack(def: CompositeHookDefinition, parent: ParentObject): Promise<CompositeSyncRequest> {
  const calls: string[] = [];
  const first = await runHook(def, 'sync', syncRequest(parent), {
    clients: { aws: async () => new FakeAws(), etcd: () => failingClient(calls, 'etcd') },
    services: { kube: () => failingClient(calls, 'kube') },
  });
  const observed = first.children.map((c) => asObserved(c as KubeObject));
  return syncRequest(parent, objectMap(observed));
}

/** The largest request the server reads: a PodSet's observed pods, their annotations grown to the body limit. */
async function atBodyLimit(def: CompositeHookDefinition): Promise<CompositeSyncRequest> {
  const req = await fedBack(def, worstParent('podset', structuredClone(WORST_SPECS['podset']!)));
  const pods = Object.values(req.children!['Pod.v1']!);
  const room = BODY_LIMIT - 64 * 1024 - Buffer.byteLength(JSON.stringify(req));
  for (const pod of pods) pod.metadata.annotations = { pad: 'x'.repeat(Math.floor(room / pods.length) - 20) };
  return req;
}

interface Row {
  kind: string;
  scenario: string;
  requestMiB: number;
  baselineMiB: number;
  one: { peakMiB: number; status: number; ready?: string; answerKiB: number };
  two: { peakMiB: number };
}

/** The peak RSS of a fresh server answering `body` once, and of another answering it twice at once. */
async function measure(kind: string, scenario: string, path: string, body: string): Promise<Row> {
  const single = await start();
  const baselineMiB = status(single.proc.pid!, 'VmRSS');
  const answer = await post(single.port, path, body);
  const one = status(single.proc.pid!, 'VmHWM');
  single.proc.kill();
  const double = await start();
  await Promise.all([post(double.port, path, body), post(double.port, path, body)]);
  const two = status(double.proc.pid!, 'VmHWM');
  double.proc.kill();
  return {
    kind,
    scenario,
    requestMiB: Buffer.byteLength(body) / 1048576,
    baselineMiB,
    one: {
      peakMiB: one,
      status: answer.status,
      ...(answer.ready ? { ready: answer.ready } : {}),
      answerKiB: answer.bytes / 1024,
    },
    two: { peakMiB: two },
  };
}

const rows: Row[] = [];
const only = process.env['MEMORY_ONLY'];
for (const def of operators) {
  if (def.type !== 'composite' || (only && !def.name.includes(only))) continue;
  const path = `/hooks/${def.name}/sync`;
  const accepted = await fedBack(def, worstParent(def.name, structuredClone(WORST_SPECS[def.name]!)));
  rows.push(await measure(def.resource.kind, 'largest accepted', path, JSON.stringify(accepted)));
  console.error(JSON.stringify(rows.at(-1)));
  if (def.name === 'etcdcluster') {
    const stored = { ...accepted, parent: oversizedParent(def.name) };
    rows.push(await measure(def.resource.kind, 'largest stored', path, JSON.stringify(stored)));
    console.error(JSON.stringify(rows.at(-1)));
  }
  if (def.name === 'podset') {
    rows.push(await measure(def.resource.kind, 'body limit', path, JSON.stringify(await atBodyLimit(def))));
    console.error(JSON.stringify(rows.at(-1)));
  }
}

const f = (n: number) => n.toFixed(1);
const table = [
  `| kind | object | request MiB | baseline RSS MiB | peak RSS, one MiB | peak RSS, two at once MiB | answer |`,
  `| --- | --- | ---: | ---: | ---: | ---: | --- |`,
  ...rows.map(
    (r) =>
      `| ${r.kind} | ${r.scenario} | ${f(r.requestMiB)} | ${f(r.baselineMiB)} | ${f(r.one.peakMiB)} | ${f(r.two.peakMiB)} | ${r.one.status} ${r.one.ready ?? ''}, ${f(r.one.answerKiB)} KiB |`,
  ),
].join('\n');
const worst = Math.max(...rows.flatMap((r) => [r.one.peakMiB, r.two.peakMiB]));
const measured = {
  date: new Date().toISOString().slice(0, 10),
  node: process.version,
  limitMiB: LIMIT_MIB,
  worstPeakMiB: worst,
  rows,
};
if (!only) {
  writeFileSync(join(root, 'bench', 'memory.json'), JSON.stringify(measured, null, 2) + '\n');
  const doc = join(root, 'docs', 'operating.md');
  const text = readFileSync(doc, 'utf8');
  const begin = '<!-- bench/memory.ts: begin -->';
  const end = '<!-- bench/memory.ts: end -->';
  const at = text.indexOf(begin);
  const to = text.indexOf(end);
  if (at >= 0 && to > at) {
    const note = `Measured ${measured.date} on Node ${process.version} (\`npm run bench:memory\`), worst peak ${f(worst)} MiB of ${LIMIT_MIB}:`;
    writeFileSync(doc, `${text.slice(0, at + begin.length)}\n${note}\n\n${table}\n${text.slice(to)}`);
  }
}
console.log(table);
console.log(`worst peak: ${f(worst)} MiB of ${LIMIT_MIB} MiB`);
process.exitCode = worst < LIMIT_MIB ? 0 : 1;
