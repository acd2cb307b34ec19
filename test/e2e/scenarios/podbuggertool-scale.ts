// PodBuggerTool at the sizes of the field: one tool selecting 4,000 pods, and a namespace of 1,000 pods no tool
// selects. The two PodBuggerTool controllers run as they ship (no resync override, the tool's own 60 s), their hooks
// reached through a proxy of this process that measures every request Metacontroller sends. The figures go into
// bench/RESULTS.md ("PodBuggerTool at scale").
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { podbuggertool as toolDefinition, podbuggertoolInjector } from '../../../hooks/podbuggertool/index.js';
import { PRODUCTION_AUTHORIZATION } from '../../../lib/manifests.js';
import { renderController } from '../../../scripts/render-manifests.js';
import { E2E_RESYNC_SECONDS, waitFor, type ControlPlane } from '../cluster.js';
import { condition, secs, type Scenario } from './common.js';
import { installAuthorPolicy, writeTool } from './podbuggertool.js';

/** What the proxy saw of one hook route: requests, and the largest and total body sizes. */
interface RouteStats {
  count: number;
  max: number;
  total: number;
}

/** A proxy in front of the hook server that records the size of every request body, by path. */
async function measuringProxy(
  hookPort: number,
): Promise<{ base: string; stats: Map<string, RouteStats>; server: Server }> {
  const stats = new Map<string, RouteStats>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = req.url ?? '';
      const s = stats.get(path) ?? { count: 0, max: 0, total: 0 };
      s.count += 1;
      s.max = Math.max(s.max, body.length);
      s.total += body.length;
      stats.set(path, s);
      const upstream = httpRequest(
        {
          host: '127.0.0.1',
          port: hookPort,
          method: req.method,
          path,
          headers: { ...req.headers, host: `127.0.0.1:${hookPort}` },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => {
        res.writeHead(502);
        res.end();
      });
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, stats, server };
}

/**
 * The two PodBuggerTool controllers as they ship, at `base`, with the webhook fields this release has (v1.5.20 has
 * no etag, authorization nor ignoreStatusChanges).
 */
function controllers(k: ControlPlane, base: string, resyncPeriodSeconds?: number): string {
  const features = k.mc.features;
  return [toolDefinition, podbuggertoolInjector]
    .map((d) =>
      renderController(d, {
        target: { kind: 'url', base },
        etag: features.etag,
        ignoreStatusChanges: features.ignoreStatusChanges,
        ...(features.authorization ? { authorization: { ...PRODUCTION_AUTHORIZATION } } : {}),
        ...(resyncPeriodSeconds ? { resyncPeriodSeconds } : {}),
      }),
    )
    .join('---\n');
}

/** Runs `fn` with the PodBuggerTool controllers as they ship, through a measuring proxy; then as the suite has them. */
async function asShipped<T>(k: ControlPlane, fn: (stats: Map<string, RouteStats>) => Promise<T>): Promise<T> {
  await installAuthorPolicy(k);
  const proxy = await measuringProxy(k.hookPort);
  await k.kubectl(['apply', '-f', '-'], controllers(k, proxy.base));
  try {
    return await fn(proxy.stats);
  } finally {
    await k.kubectl(['apply', '-f', '-'], controllers(k, `http://127.0.0.1:${k.hookPort}`, E2E_RESYNC_SECONDS));
    proxy.server.close();
  }
}

/** The hook server's counters: calls per route, its CPU seconds, and its own calls to the Kubernetes API. */
async function hookCounters(
  k: ControlPlane,
): Promise<{ calls: Map<string, number>; cpu: number; kube: number; operations: Map<string, number> }> {
  const text = await (await fetch(`http://127.0.0.1:${k.hookPort}/metrics`)).text();
  const calls = new Map<string, number>();
  for (const m of text.matchAll(/^metaops_hook_requests_total\{hook="([^"]+)",outcome="[^"]+"\} (\d+)/gm))
    calls.set(m[1]!, (calls.get(m[1]!) ?? 0) + Number(m[2]));
  const cpu = Number(/^metaops_process_cpu_seconds_total (\S+)/m.exec(text)?.[1] ?? NaN);
  let kube = 0;
  const operations = new Map<string, number>();
  for (const m of text.matchAll(/^metaops_dependency_calls_total\{([^}]*)\} (\d+)/gm)) {
    if (!m[1]!.includes('dependency="kube"')) continue;
    kube += Number(m[2]);
    const operation = /operation="([^"]*)"/.exec(m[1]!)?.[1] ?? '?';
    operations.set(operation, (operations.get(operation) ?? 0) + Number(m[2]));
  }
  return { calls, cpu, kube, operations };
}

/** The API server's write requests so far (POST, PUT, PATCH, DELETE), by resource. */
async function apiWrites(k: ControlPlane, byVerb = false): Promise<Map<string, number>> {
  const text = await k.kubectl(['get', '--raw', '/metrics']);
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^apiserver_request_total\{([^}]*)\} (\d+)/gm)) {
    const labels = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (!['POST', 'PUT', 'PATCH', 'DELETE', 'APPLY'].includes(labels['verb'] ?? '')) continue;
    const key =
      `${labels['resource']}${labels['subresource'] ? `/${labels['subresource']}` : ''}` +
      (byVerb ? ` ${labels['verb']} ${labels['code']}` : '');
    out.set(key, (out.get(key) ?? 0) + Number(m[2]));
  }
  return out;
}

/** Waits until no namespace is being deleted: a terminating namespace's objects are deleted again and again. */
async function noNamespaceTerminating(k: ControlPlane): Promise<void> {
  await waitFor(
    'no namespace terminating (what earlier scenarios deleted)',
    async () => (await k.json(['get', 'namespaces'])).items.every((n: any) => n.status?.phase !== 'Terminating'),
    5 * 60_000,
    2000,
  );
}

function delta(after: Map<string, number>, before: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [key, value] of after)
    if (value - (before.get(key) ?? 0) > 0) out.set(key, value - (before.get(key) ?? 0));
  return out;
}

const show = (m: Map<string, number>) => (m.size === 0 ? 'none' : [...m].map(([k, v]) => `${k} ${v}`).join(', '));

/** Creates pods in batches of 500 (kubectl create of a List). */
async function createPods(k: ControlPlane, ns: string, n: number, labels: Record<string, string>): Promise<void> {
  for (let from = 0; from < n; from += 500) {
    const items = Array.from({ length: Math.min(500, n - from) }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `p-${String(from + i).padStart(5, '0')}`, namespace: ns, labels },
      spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
    }));
    await k.kubectl(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
  }
}

/** How many pods of a namespace carry the tool's container (and the most any pod carries). */
async function carrying(k: ControlPlane, ns: string, container: string): Promise<{ pods: number; most: number }> {
  const text = await k.kubectl([
    'get',
    'pods',
    '-n',
    ns,
    '-o',
    'jsonpath={range .items[*]}{.spec.ephemeralContainers[*].name}{"\\n"}{end}',
  ]);
  let pods = 0;
  let most = 0;
  for (const line of text.split('\n')) {
    const names = line.split(' ').filter((x) => x === container);
    if (names.length > 0) pods += 1;
    most = Math.max(most, names.length);
  }
  return { pods, most };
}

const PODS = 4000;
const LIMIT = 64 * 1024;

export const podbuggertoolAtScale: Scenario = {
  name: `PodBuggerTool at scale: one tool selecting ${PODS} pods injects every one, every hook request below 64 KiB, its status honest while not done`,
  async run(k) {
    const notes: string[] = [];
    return asShipped(k, async (stats) => {
      await k.kubectl(['create', 'namespace', 'scale']);
      let t0 = Date.now();
      await createPods(k, 'scale', PODS, { app: 'big' });
      notes.push(`${PODS} pods created in ${secs(t0)}`);
      const tool = {
        apiVersion: 'debug.metaops.dev/v1alpha1',
        kind: 'PodBuggerTool',
        metadata: { name: 'big', namespace: 'scale' },
        spec: { label: 'app=big', image: 'busybox:1.36' },
      };
      t0 = Date.now();
      await writeTool(k, tool);
      // While not done, every status read says so, and never counts more than the pods really carry (read after it).
      const snapshots: string[] = [];
      const lies: string[] = [];
      let honest = 0;
      const done = await waitFor(
        `all ${PODS} pods carrying debug-big`,
        async () => {
          const t = await k.json(['get', 'pbt', 'big', '-n', 'scale']);
          const real = await carrying(k, 'scale', 'debug-big');
          if (real.most > 1) lies.push(`${secs(t0)}: a pod carries ${real.most} containers of the tool`);
          const s = t.status ?? {};
          const ready = condition(t, 'Ready');
          if (typeof s.matched === 'number') {
            if (s.injected > real.pods)
              lies.push(`${secs(t0)}: the status counts ${s.injected} injected, the pods carry ${real.pods}`);
            if (s.injected + s.outdated + s.pending + s.skipped + s.failed !== s.matched)
              lies.push(`${secs(t0)}: the counts do not add up to matched: ${JSON.stringify(s)}`);
            if (s.injected < PODS) {
              if (ready?.status === 'True') lies.push(`${secs(t0)}: Ready while ${s.injected} of ${PODS} carry it`);
              honest += 1;
            }
            if (snapshots.length < 12)
              snapshots.push(`${secs(t0)}: status ${s.injected}/${s.matched} ${ready?.reason}, pods ${real.pods}`);
          }
          return real.pods === PODS && s.injected === PODS && ready?.status === 'True' ? t : undefined;
        },
        15 * 60_000,
        3000,
      );
      assert.deepEqual(lies, [], 'the status was honest at every read');
      notes.push(`every pod injected, and the status Ready, ${secs(t0)} after the tool was created`);
      notes.push(`${honest} status reads while not done, each Ready=False: ${snapshots.join('; ')}`);
      assert.equal(condition(done, 'Ready').reason, 'Injected');
      assert.equal(done.status.matched, PODS);
      let largest = 0;
      for (const [path, s] of [...stats].sort()) {
        notes.push(`${path}: ${s.count} requests, largest ${s.max} B, mean ${Math.round(s.total / s.count)} B`);
        assert.ok(s.max < LIMIT, `${path}: largest request ${s.max} B, not below 64 KiB`);
        largest = Math.max(largest, s.max);
      }
      assert.ok(stats.has('/hooks/podbuggertool-injector/sync') && stats.has('/hooks/podbuggertool/sync'));
      notes.push(`largest hook request: ${largest} B (${(largest / 1024).toFixed(1)} KiB)`);
      await k.kubectl(['delete', 'namespace', 'scale', '--wait=false']);
      return notes;
    });
  },
};

export const podbuggertoolAtRest: Scenario = {
  name: 'PodBuggerTool where no tool selects: 1000 pods, a quiet minute and a rolling update, no API write',
  async run(k) {
    const notes: string[] = [];
    return asShipped(k, async () => {
      // No tool anywhere: whatever the hook server does now is for the pods no tool selects.
      await k.kubectl(['delete', 'podbuggertools', '--all', '--all-namespaces']);
      // Nor pods of the scenario before (its 4000 pods go with their namespace, whether it passed or not).
      await k.kubectl(['delete', 'namespace', 'scale', '--ignore-not-found', '--wait=false']);
      await waitFor(
        'the namespace of the scenario at scale gone',
        async () => !(await k.getOrUndefined(['namespace', 'scale'])),
        10 * 60_000,
        3000,
      );
      await k.kubectl(['create', 'namespace', 'quiet']);
      const deployment = {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'quiet', namespace: 'quiet' },
        spec: {
          replicas: 1000,
          selector: { matchLabels: { app: 'quiet' } },
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: '100%' } },
          template: {
            metadata: { labels: { app: 'quiet' } },
            spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
          },
        },
      };
      const count = async () =>
        (
          await k.kubectl([
            'get',
            'pods',
            '-n',
            'quiet',
            '--no-headers',
            '-o',
            'custom-columns=N:.metadata.name,D:.metadata.deletionTimestamp',
          ])
        )
          .split('\n')
          .filter((l) => l.trim() !== '' && l.trim().endsWith('<none>')).length;
      const settled = async (what: string) => {
        // Until the injector has had no call for 10 s.
        let last = -1;
        await waitFor(
          what,
          async () => {
            const now = (await hookCounters(k)).calls.get('podbuggertool-injector/sync') ?? 0;
            const still = now === last;
            last = now;
            return still;
          },
          5 * 60_000,
          10_000,
        );
      };
      let t0 = Date.now();
      await k.kubectl(['apply', '-f', '-'], JSON.stringify(deployment));
      await waitFor('1000 pods', async () => (await count()) === 1000, 5 * 60_000, 2000);
      await settled('the injector quiet after the pods were created');
      notes.push(`1000 pods created by a Deployment and seen by the injector in ${secs(t0)}`);

      // A quiet minute. Writes are counted by the API server for every client and namespace (what other scenarios left
      // may still move): the namespace's own pods are checked one by one.
      const versions = async () =>
        (
          await k.kubectl([
            'get',
            'pods',
            '-n',
            'quiet',
            '-o',
            'jsonpath={range .items[*]}{.metadata.name}={.metadata.resourceVersion}{"\\n"}{end}',
          ])
        )
          .split('\n')
          .filter((l) => l !== '')
          .sort()
          .join('\n');
      await noNamespaceTerminating(k);
      const podsBefore = await versions();
      const before = await hookCounters(k);
      const writesBefore = await apiWrites(k);
      const verbsBefore = await apiWrites(k, true);
      await new Promise((r) => setTimeout(r, 60_000));
      const after = await hookCounters(k);
      const writes = delta(await apiWrites(k), writesBefore);
      const podsAfter = await versions();
      const calls = delta(after.calls, before.calls);
      const quiet = `quiet minute: hook calls ${show(calls)}; hook server CPU ${(after.cpu - before.cpu).toFixed(3)} s; its Kubernetes API calls ${show(delta(after.operations, before.operations))}; API server writes ${show(writes)}`;
      notes.push(quiet);
      assert.equal(after.kube - before.kube, 0, `the hook server made no API call: ${quiet}`);
      assert.equal(podsAfter.split('\n').length, 1000);
      assert.equal(podsAfter, podsBefore, 'no pod of the namespace written in the quiet minute');
      const verbs = [...delta(await apiWrites(k, true), verbsBefore)].filter(([key]) =>
        key.startsWith('podbuggertools'),
      );
      assert.equal(
        writes.get('podbuggertools') ?? 0,
        0,
        `no PodBuggerTool written (by verb and code: ${show(new Map(verbs))})`,
      );

      // A rolling update: every pod replaced.
      t0 = Date.now();
      const rollBefore = await hookCounters(k);
      const rollWritesBefore = await apiWrites(k);
      await k.kubectl([
        'patch',
        'deployment',
        'quiet',
        '-n',
        'quiet',
        '--type=merge',
        '-p',
        '{"spec":{"template":{"metadata":{"annotations":{"rollout":"1"}}}}}',
      ]);
      await waitFor(
        'every pod replaced',
        async () => {
          const rs = await k.json(['get', 'deployment', 'quiet', '-n', 'quiet']);
          return rs.status?.updatedReplicas === 1000 && rs.status?.replicas === 1000 && (await count()) === 1000;
        },
        10 * 60_000,
        3000,
      );
      const replaced = secs(t0);
      await settled('the injector quiet after the rolling update');
      const rollAfter = await hookCounters(k);
      const rollWrites = delta(await apiWrites(k), rollWritesBefore);
      const rolled = `rolling update of 1000 pods (${replaced}): hook calls ${show(delta(rollAfter.calls, rollBefore.calls))}; hook server CPU ${(rollAfter.cpu - rollBefore.cpu).toFixed(3)} s; its Kubernetes API calls ${show(delta(rollAfter.operations, rollBefore.operations))}; API server writes ${show(rollWrites)}`;
      notes.push(rolled);
      assert.equal(
        rollAfter.kube - rollBefore.kube,
        0,
        `the hook server made no API call during the rolling update: ${rolled}`,
      );
      await k.kubectl(['delete', 'namespace', 'quiet', '--wait=false']);
      return notes;
    });
  },
};
