// `npm run bench:memory`: the hook server's peak memory (VmHWM, the high-water mark of its resident set) with the
// worst object of every kind, one at a time and two at once, against the Deployment's 512 MiB limit
// (manifests/deploy/deployment.yaml). For each kind:
// - largest accepted: the largest spec its CRD and hook accept (test/fixtures/worst.ts), the parent's metadata at
//   the API server's limits, its own answers fed back as the observed children until they stop growing (as
//   Metacontroller sends a resync once every child is made);
// - largest stored: the same parent grown to what the API server stores (1.44 MiB), where the CRD keeps a field
//   open (EtcdCluster's pod policy: refused by the hook); the other kinds have no open field to grow;
// - for PodBuggerTool, whose containers are added through the API server, not answered: the injector's call about a
//   pod the largest tool selects (the tool as its related object), which builds the ephemeral container and PATCHes
//   it, and the tool's own sync, which counts that pod; both against a stand-in API server (standInApi) that serves
//   the pod, the tool and the pod list and counts the PATCHes (the author check off: test/podbuggertool/largest.ts);
// each under the server settings that let it act (WORST_ENV: allowlists, prefixes), so that it is answered on the
// path that builds its children, not refused before it;
// and the largest request the server reads at all (METAOPS_BODY_LIMIT, 8 MiB: a PodSet's 1000 observed pods, their
// annotations grown to it), in four shapes: one long string per pod, many tiny fields (`"k1":""`: 14 times its size
// parsed), the parent's managedFields full of empty objects (`{},`: cut out of the text before it is parsed,
// lib/json.ts), and the same empty objects in the observed pods' managedFields (once parsed, 21 times their size; cut
// too since 2026-11-27), the last also with small requests of that shape filling the reserve beside the budget
// (lib/body-budget.ts). Each scenario is
// answered 1, 2, 5 and 10 times at once (Metacontroller runs 5 workers per controller, several controllers share the
// server): the body budget (lib/body-budget.ts, METAOPS_BODY_BUDGET) holds what is in hand; the hostile shapes are
// measured again with the budget at its largest setting (64 MiB: no bound at these sizes), as before it. Each
// scenario runs on a fresh server (node dist/main/server.js, as the image runs it, with the heap cap the Deployment's
// NODE_OPTIONS sets), whose RSS after start is the baseline of the same run. Writes bench/memory.json and the table in
// docs/operating.md. MEMORY_ONLY=<kind> measures one kind, MEMORY_SCENARIO=<text> the scenarios whose name has it,
// MEMORY_HEAP_MIB=<n> runs the servers with --max-old-space-size=<n> (0: Node's default heap, larger than a 512 MiB
// container's on this machine), MEMORY_BUDGET_MIB=<n> with METAOPS_BODY_BUDGET of n MiB; each prints the table and
// writes nothing.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { operators } from '../main/operators.js';
import type { CompositeHookDefinition } from '../lib/hook.js';
import type { CompositeSyncRequest, KubeObject, ParentObject } from '../lib/metacontroller.js';
import { runHook } from '../lib/operator.js';
import { DEFAULT_BODY_BUDGET, serverBudget } from '../lib/body-budget.js';
import { MAX_BODY_BUDGET } from '../lib/config.js';
import { failingClient } from '../test/fixtures/app.js';
import { FakeAws } from '../test/fixtures/fake-aws.js';
import { freePort } from '../test/fixtures/net.js';
import { objectMap, request, root } from '../test/fixtures/requests.js';
import {
  longestLabelKey,
  oversizedParent,
  settledRequest,
  WORST_ENV,
  WORST_SETTINGS,
  WORST_SPECS,
  worstParent,
} from '../test/fixtures/worst.js';

const TOKEN = 'memory-benchmark-token-0123456789';
const LIMIT_MIB = 512;
const BODY_LIMIT = 8 * 1024 * 1024;

function status(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return 0; // the process is gone
  }
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(text);
  return m ? Number(m[1]) / 1024 : 0;
}

/** The heap cap the Deployment sets (its NODE_OPTIONS, `--max-old-space-size=<MiB>`). */
function deploymentHeapMiB(): number {
  const text = readFileSync(join(root, 'manifests', 'deploy', 'deployment.yaml'), 'utf8');
  const m = /name: NODE_OPTIONS\s+value: --max-old-space-size=(\d+)/.exec(text);
  if (!m) throw new Error('manifests/deploy/deployment.yaml sets no --max-old-space-size');
  return Number(m[1]);
}
const HEAP_MIB = Number(process.env['MEMORY_HEAP_MIB'] ?? deploymentHeapMiB());

async function start(env: NodeJS.ProcessEnv = {}): Promise<{ proc: ChildProcess; port: number }> {
  const port = await freePort();
  const args = [...(HEAP_MIB > 0 ? [`--max-old-space-size=${HEAP_MIB}`] : []), join(root, 'dist', 'main', 'server.js')];
  const proc = spawn(process.execPath, args, {
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
      // The longest spec.pod.clusterDomain, allowed: a domain the server does not allow builds no member.
      ...WORST_ENV,
      ...env,
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
  let res: Response;
  try {
    res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    });
  } catch {
    // The connection cut: the server died (its heap past the cap, on the rows without the budget). Status 0.
    return { status: 0, bytes: 0 };
  }
  const text = await res.text();
  if (res.status !== 200) return { status: res.status, bytes: text.length };
  const conditions = (JSON.parse(text).status?.conditions ?? []) as Array<{ type: string; reason?: string }>;
  // EtcdCluster says Available, the other kinds Ready.
  const ready = (conditions.find((c) => c.type === 'Ready') ?? conditions.find((c) => c.type === 'Available'))?.reason;
  return { status: res.status, bytes: text.length, ...(ready ? { ready } : {}) };
}

/**
 * The request Metacontroller sends at a resync once every child is made: the parent, and the children the hook
 * answered, as observed, fed back until they stop growing (test/fixtures/worst.ts settledRequest: a PodSet's 900 pods,
 * not the first burst of 32; an EtcdCluster's every member, not its first).
 */
function fedBack(def: CompositeHookDefinition, parent: ParentObject): Promise<CompositeSyncRequest> {
  const calls: string[] = [];
  return settledRequest(def, parent, (request) =>
    runHook(def, 'sync', request, {
      settings: WORST_SETTINGS,
      clients: { aws: async () => new FakeAws(), etcd: () => failingClient(calls, 'etcd') },
      services: { kube: () => failingClient(calls, 'kube') },
    }),
  );
}

/** The largest request the server reads: a PodSet's observed pods, their annotations grown to the body limit. */
async function atBodyLimit(def: CompositeHookDefinition): Promise<CompositeSyncRequest> {
  const req = await fedBack(def, worstParent('podset', structuredClone(WORST_SPECS['podset']!)));
  const pods = Object.values(req.children!['Pod.v1']!);
  const room = BODY_LIMIT - 64 * 1024 - Buffer.byteLength(JSON.stringify(req));
  for (const pod of pods) pod.metadata.annotations = { pad: 'x'.repeat(Math.floor(room / pods.length) - 20) };
  return req;
}

/** The same request at the body limit, its room filled with many tiny fields: `"k<n>":""` in each pod's annotations. */
async function smallFields(def: CompositeHookDefinition): Promise<CompositeSyncRequest> {
  const req = await fedBack(def, worstParent('podset', structuredClone(WORST_SPECS['podset']!)));
  const pods = Object.values(req.children!['Pod.v1']!);
  const room = BODY_LIMIT - 64 * 1024 - Buffer.byteLength(JSON.stringify(req));
  const per = Math.floor(room / pods.length);
  for (const pod of pods) {
    const annotations: Record<string, string> = {};
    for (let i = 0, size = 2; size + 10 < per; i++) {
      annotations[`k${i}`] = '';
      size += `"k${i}":"",`.length;
    }
    pod.metadata.annotations = annotations;
  }
  return req;
}

/** The same request at the body limit, its room filled with empty objects: the parent's managedFields `[{},{},...]`. */
async function emptyObjects(def: CompositeHookDefinition): Promise<CompositeSyncRequest> {
  const req = await fedBack(def, worstParent('podset', structuredClone(WORST_SPECS['podset']!)));
  const room = BODY_LIMIT - 64 * 1024 - Buffer.byteLength(JSON.stringify(req));
  (req.parent.metadata as { managedFields?: unknown[] }).managedFields = Array.from(
    { length: Math.floor(room / 3) },
    () => ({}),
  );
  return req;
}

/**
 * The same, the empty objects in the observed pods' managedFields: once the worst shape (the server parsed them whole);
 * now cut out of the text before it is parsed as the parent's are (lib/json.ts withoutManagedFields), kept to show it.
 */
async function emptyObjectsInPods(def: CompositeHookDefinition): Promise<CompositeSyncRequest> {
  const req = await fedBack(def, worstParent('podset', structuredClone(WORST_SPECS['podset']!)));
  const pods = Object.values(req.children!['Pod.v1']!);
  const room = BODY_LIMIT - 64 * 1024 - Buffer.byteLength(JSON.stringify(req));
  const per = Math.floor(room / pods.length / 3);
  for (const pod of pods)
    (pod.metadata as { managedFields?: unknown[] }).managedFields = Array.from({ length: per }, () => ({}));
  return req;
}

/**
 * Small requests that fill the reserve beside the budget (lib/body-budget.ts): as many as it holds, each at the
 * largest it takes (half the reserve, 512 KiB), its one observed pod's managedFields full of empty objects (parsed: 21
 * times), each of another namespace (a namespace holds one such request of the reserve at most).
 */
function reserveFillers(): string[] {
  const budget = serverBudget(Number(process.env['MEMORY_BUDGET_MIB'] ?? DEFAULT_BUDGET_MIB) * 1048576);
  const req = request('podset', { replicas: 1, image: 'nginx:1.27' });
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: req.parent.metadata.namespace } };
  req.children = { 'Pod.v1': { p: pod } };
  const room = budget.small - 512 - Buffer.byteLength(JSON.stringify(req));
  (pod.metadata as { managedFields?: unknown[] }).managedFields = Array.from(
    { length: Math.floor(room / 3) },
    () => ({}),
  );
  return Array.from({ length: Math.floor(budget.reserve / budget.small) }, (_, i) => {
    req.parent.metadata = { ...req.parent.metadata, namespace: `tenant-${i}` };
    return JSON.stringify(req);
  });
}

/** How many requests are answered at once. */
const AT_ONCE = [1, 2, 5, 10] as const;

interface Row {
  kind: string;
  scenario: string;
  /** The server's body budget (METAOPS_BODY_BUDGET), MiB: the default unless said. */
  budgetMiB: number;
  requestMiB: number;
  baselineMiB: number;
  one: { peakMiB: number; status: number; ready?: string; answerKiB: number };
  /** Peak RSS with n at once, and their statuses counted (`200: 4, 429: 1`). */
  atOnce: Record<string, { peakMiB: number; statuses: Record<string, number> }>;
}

const DEFAULT_BUDGET_MIB = DEFAULT_BODY_BUDGET / 1048576;
/** The largest METAOPS_BODY_BUDGET: no bound at these sizes. */
const UNBOUNDED_MIB = MAX_BODY_BUDGET / 1048576;

/** The peak RSS of a fresh server answering `body` once, and of another for each of 2, 5 and 10 at once. */
async function measure(
  kind: string,
  scenario: string,
  path: string,
  body: string,
  budgetMiB?: number,
  alongside: string[] = [],
  serverEnv: Record<string, string> = {},
): Promise<Row> {
  const budget = budgetMiB ?? Number(process.env['MEMORY_BUDGET_MIB'] ?? DEFAULT_BUDGET_MIB);
  const env = { ...serverEnv, METAOPS_BODY_BUDGET: String(budget * 1048576) };
  const atOnce: Row['atOnce'] = {};
  let baselineMiB = 0;
  let one: Row['one'] | undefined;
  for (const n of AT_ONCE) {
    const server = await start(env);
    if (n === 1) baselineMiB = status(server.proc.pid!, 'VmRSS');
    // The high-water mark, read as it goes too: a server that dies (status 0) takes its own with it.
    let sampled = 0;
    const sampler = setInterval(() => (sampled = Math.max(sampled, status(server.proc.pid!, 'VmHWM'))), 20);
    const large = Promise.all(Array.from({ length: n }, () => post(server.port, path, body)));
    // The requests alongside arrive once the large ones hold the budget: they take their turns from the reserve.
    if (alongside.length) await new Promise((r) => setTimeout(r, 100));
    const [answers] = await Promise.all([large, Promise.all(alongside.map((b) => post(server.port, path, b)))]);
    clearInterval(sampler);
    const peakMiB = Math.max(sampled, status(server.proc.pid!, 'VmHWM'));
    server.proc.kill();
    const statuses: Record<string, number> = {};
    for (const a of answers) {
      const code = a.status === 0 ? 'died' : String(a.status);
      statuses[code] = (statuses[code] ?? 0) + 1;
    }
    atOnce[n] = { peakMiB, statuses };
    if (n === 1) {
      const answer = answers[0]!;
      one = {
        peakMiB,
        status: answer.status,
        ...(answer.ready ? { ready: answer.ready } : {}),
        answerKiB: answer.bytes / 1024,
      };
    }
  }
  return {
    kind,
    scenario,
    budgetMiB: budget,
    requestMiB: Buffer.byteLength(body) / 1048576,
    baselineMiB,
    one: one!,
    atOnce,
  };
}

/**
 * A stand-in for the API server, as far as PodBuggerTool's hooks call it with the author check off: the pod and the
 * tool read back, the pods and the tools of the namespace listed (the pod, the tool), the PATCH of ephemeral containers taken (counted,
 * its size kept; the pod is left as it was, so each call adds the container again), Events taken; anything else 404.
 * Reached through a kubeconfig (KUBECONFIG, lib/kube.ts fromKubeconfig) over plain HTTP.
 */
async function standInApi(pod: KubeObject, tool: ParentObject) {
  const ns = pod.metadata.namespace!;
  const podPath = `/api/v1/namespaces/${ns}/pods/${pod.metadata.name!}`;
  const toolPath = `/apis/${tool.apiVersion}/namespaces/${ns}/podbuggertools/${tool.metadata.name!}`;
  const patched = { count: 0, largestBytes: 0 };
  // The largest tool's label selector makes a list URL past Node's default 16 KiB of headers: Go's net/http, which
  // kube-apiserver serves with, reads up to 1 MiB.
  const server = createServer({ maxHeaderSize: 1 << 20 }, (req, res) => {
    let bytes = 0;
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://api');
      const send = (code: number, body: unknown) => {
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'PATCH' && url.pathname === `${podPath}/ephemeralcontainers`) {
        patched.count++;
        patched.largestBytes = Math.max(patched.largestBytes, bytes);
        return send(200, pod);
      }
      if (req.method === 'GET' && url.pathname === podPath) return send(200, pod);
      if (req.method === 'GET' && url.pathname === toolPath) return send(200, tool);
      if (req.method === 'GET' && url.pathname === `/api/v1/namespaces/${ns}/pods`)
        return send(200, { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '1' }, items: [pod] });
      // The tools of the namespace (the count weighs the injector's requests by them): the tool alone.
      if (req.method === 'GET' && url.pathname === toolPath.slice(0, toolPath.lastIndexOf('/')))
        return send(200, { apiVersion: tool.apiVersion, kind: 'PodBuggerToolList', metadata: {}, items: [tool] });
      if (req.method === 'POST' && url.pathname.endsWith('/events')) return send(201, {});
      send(404, { apiVersion: 'v1', kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404 });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const dir = mkdtempSync(join(tmpdir(), 'metaops-memory-'));
  const kubeconfig = join(dir, 'kubeconfig');
  // A kubeconfig is YAML, of which JSON is a part.
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'bench',
      clusters: [{ name: 'bench', cluster: { server: `http://127.0.0.1:${port}` } }],
      users: [{ name: 'bench', user: { token: 'bench' } }],
      contexts: [{ name: 'bench', context: { cluster: 'bench', user: 'bench' } }],
    }),
  );
  return {
    env: { KUBECONFIG: kubeconfig },
    patched,
    close: () => {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * PodBuggerTool's rows: the injector about a pod the largest tool selects (it builds the tool's ephemeral container
 * and PATCHes it), and the tool's own sync (it lists and counts that pod), against the stand-in API server. A row
 * whose PATCHes did not all arrive measured no injection: the benchmark stops rather than write it.
 */
async function podBuggerToolRows(def: CompositeHookDefinition, path: string, accepted: CompositeSyncRequest) {
  const tool = accepted.parent;
  const spec = tool.spec as { targetContainerName?: string };
  // Every label the tool's selector asks for (test/podbuggertool/largest.ts), and its target container.
  const labels = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [longestLabelKey(i), 'v'.repeat(63)]));
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: tool.metadata.namespace!, uid: 'uid-p', resourceVersion: '1', labels },
    spec: { containers: [{ name: spec.targetContainerName ?? 'app', image: 'nginx' }] },
    status: { phase: 'Running', containerStatuses: [{ name: spec.targetContainerName ?? 'app', ready: true }] },
  };
  const api = await standInApi(pod, tool);
  try {
    const injector = {
      controller: {},
      object: pod,
      attachments: {},
      related: objectMap([tool as KubeObject]),
    };
    const before = api.patched.count;
    await run(
      def.resource.kind,
      'largest accepted, injected',
      '/hooks/podbuggertool-injector/sync',
      JSON.stringify(injector),
      undefined,
      [],
      api.env,
    );
    const sent = api.patched.count - before;
    const expected = AT_ONCE.reduce((a, b) => a + b, 0);
    const row = rows.at(-1);
    if (row?.scenario === 'largest accepted, injected') {
      if (sent !== expected)
        throw new Error(`the injector PATCHed ${sent} times, not ${expected}: the rows measured no injection`);
      row.scenario = `largest accepted, injected (PATCH of ${(api.patched.largestBytes / 1024).toFixed(1)} KiB)`;
    }
    await run(def.resource.kind, 'largest accepted, counted', path, JSON.stringify(accepted), undefined, [], api.env);
  } finally {
    api.close();
  }
}

const rows: Row[] = [];
const only = process.env['MEMORY_ONLY'];
const scenarioOnly = process.env['MEMORY_SCENARIO'];
const run = async (...args: Parameters<typeof measure>) => {
  if (scenarioOnly && !args[1].includes(scenarioOnly)) return;
  const row = await measure(...args);
  rows.push(row);
  console.error(JSON.stringify(row));
};
for (const def of operators) {
  if (def.type !== 'composite' || (only && !def.name.includes(only))) continue;
  const path = `/hooks/${def.name}/sync`;
  const accepted = await fedBack(def, worstParent(def.name, structuredClone(WORST_SPECS[def.name]!)));
  if (def.name === 'podbuggertool') {
    await podBuggerToolRows(def, path, accepted);
    continue;
  }
  await run(def.resource.kind, 'largest accepted', path, JSON.stringify(accepted));
  if (def.name === 'etcdcluster') {
    const stored = { ...accepted, parent: oversizedParent(def.name) };
    await run(def.resource.kind, 'largest stored', path, JSON.stringify(stored));
  }
  if (def.name === 'podset') {
    await run(def.resource.kind, 'body limit, long strings', path, JSON.stringify(await atBodyLimit(def)));
    const small = JSON.stringify(await smallFields(def));
    const empty = JSON.stringify(await emptyObjects(def));
    const emptyInPods = JSON.stringify(await emptyObjectsInPods(def));
    await run(def.resource.kind, 'body limit, tiny fields', path, small);
    await run(def.resource.kind, 'body limit, empty objects', path, empty);
    await run(def.resource.kind, 'body limit, empty objects in the pods', path, emptyInPods);
    // The same, with small requests of the worst shape filling the reserve beside the budget at once.
    const fillers = reserveFillers();
    await run(
      def.resource.kind,
      'body limit, empty objects in the pods, the reserve full',
      path,
      emptyInPods,
      undefined,
      fillers,
    );
    // The same, the budget at its largest setting (no bound at these sizes): what the shapes cost before it.
    await run(def.resource.kind, 'body limit, tiny fields', path, small, UNBOUNDED_MIB);
    await run(def.resource.kind, 'body limit, empty objects', path, empty, UNBOUNDED_MIB);
    await run(def.resource.kind, 'body limit, empty objects in the pods', path, emptyInPods, UNBOUNDED_MIB);
  }
}

const f = (n: number) => n.toFixed(1);
const counted = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .map(([code, n]) => (Object.keys(statuses).length === 1 ? code : `${n}×${code}`))
    .join(' ');
const table = [
  `| kind | object | budget MiB | request MiB | baseline RSS MiB | ${AT_ONCE.map((n) => `peak RSS, ${n} at once MiB`).join(' | ')} | answer |`,
  `| --- | --- | ---: | ---: | ---: | ${AT_ONCE.map(() => '---:').join(' | ')} | --- |`,
  ...rows.map(
    (r) =>
      `| ${r.kind} | ${r.scenario} | ${r.budgetMiB === UNBOUNDED_MIB ? `${r.budgetMiB} (no bound)` : r.budgetMiB} | ${f(r.requestMiB)} | ${f(r.baselineMiB)} | ${AT_ONCE.map((n) => `${f(r.atOnce[n]!.peakMiB)}${n > 1 && counted(r.atOnce[n]!.statuses) !== '200' ? ` (${counted(r.atOnce[n]!.statuses)})` : ''}`).join(' | ')} | ${r.one.status === 0 ? 'died' : r.one.status}${r.one.ready ? ` ${r.one.ready}` : ''}, ${f(r.one.answerKiB)} KiB |`,
  ),
].join('\n');
// The bound is what the budget holds; the rows without it are the comparison.
const worst = Math.max(
  ...rows.filter((r) => r.budgetMiB !== UNBOUNDED_MIB).flatMap((r) => AT_ONCE.map((n) => r.atOnce[n]!.peakMiB)),
);
const measured = {
  date: new Date().toISOString().slice(0, 10),
  node: process.version,
  limitMiB: LIMIT_MIB,
  heapMiB: HEAP_MIB,
  worstPeakMiB: worst,
  rows,
};
if (!only && !scenarioOnly && !process.env['MEMORY_HEAP_MIB'] && !process.env['MEMORY_BUDGET_MIB']) {
  writeFileSync(join(root, 'bench', 'memory.json'), JSON.stringify(measured, null, 2) + '\n');
  const doc = join(root, 'docs', 'operating.md');
  const text = readFileSync(doc, 'utf8');
  const begin = '<!-- bench/memory.ts: begin -->';
  const end = '<!-- bench/memory.ts: end -->';
  const at = text.indexOf(begin);
  const to = text.indexOf(end);
  if (at >= 0 && to > at) {
    const note = `Measured ${measured.date} on Node ${process.version} (\`npm run bench:memory\`), the heap capped at ${HEAP_MIB} MiB as the Deployment does, worst peak ${f(worst)} MiB of ${LIMIT_MIB}:`;
    writeFileSync(doc, `${text.slice(0, at + begin.length)}\n${note}\n\n${table}\n${text.slice(to)}`);
  }
}
console.log(table);
console.log(`worst peak: ${f(worst)} MiB of ${LIMIT_MIB} MiB`);
process.exitCode = worst < LIMIT_MIB ? 0 : 1;
