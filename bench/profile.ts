// `npm run bench:profile`: where a hook server's CPU goes on one request, by stage. The built server
// (dist/main/server.js, every feature on: request validation, status conditions, ETag, metrics, logging at its
// default level) runs under `node --cpu-prof` while autocannon sends it one realistic request (bench/bodies.ts)
// at Metacontroller's 5 workers; then each sample of the profile is given to the stage of the nearest frame of
// its stack that names one (read from the leaf up), and the shares of the busy time (idle excluded) are printed.
// PROFILE_KIND (podset), PROFILE_CHILDREN (100), PROFILE_SECONDS (10), PROFILE_CONNECTIONS (5); PROFILE_SERVER=peer
// profiles the hand-written peer (bench/peer.mjs) on the same request instead; PROFILE_TREE=<dir> the server built in
// another tree (another commit's worktree, for a profile before a change); PROFILE_READ=<file> only reads a profile
// taken before (PROFILE_REQUESTS: how many requests it served).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { freePort } from '../test/fixtures/net.js';
import { root } from '../test/fixtures/requests.js';
import { body, type Kind } from './bodies.js';

const kind = (process.env['PROFILE_KIND'] ?? 'podset') as Kind;
const children = Number(process.env['PROFILE_CHILDREN'] ?? 100);
const seconds = Number(process.env['PROFILE_SECONDS'] ?? 10);
const connections = Number(process.env['PROFILE_CONNECTIONS'] ?? 5);
// The peer has no SIGTERM handler of its own: it is given one that exits, so that its profile is written.
const server =
  process.env['PROFILE_SERVER'] === 'peer'
    ? [
        '--input-type=module',
        '-e',
        `process.on('SIGTERM', () => process.exit(0)); await import(${JSON.stringify(pathToFileURL(join(root, 'bench', 'peer.mjs')).href)});`,
      ]
    : [join(process.env['PROFILE_TREE'] ?? root, 'dist', 'main', 'server.js')];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * The stage a frame names, or undefined. A sample goes to the first stage named from its leaf up; samples under no
 * named frame go to metaops' framework (lib/) when a lib/ frame is on their stack, else to HTTP, Fastify and Node.
 */
function stageOf({ functionName: f, url }: ProfileNode['callFrame']): string | undefined {
  if (f === '(idle)') return 'idle';
  if (f === '(garbage collector)') return 'garbage collection';
  if (f === 'jsonDepthExceeds' || f === 'depthExceeds') return 'depth bound';
  if (f === 'parseJsonBody' || f === 'parseHookBody' || f === 'parseHookBodyInPieces' || f === 'parseJson')
    return 'JSON.parse';
  if (f === 'withoutManagedFields' || f === 'markedManagedFields' || f === 'parsedWithoutManagedFields')
    return 'managedFields markers or cut (lib/json.ts)';
  if (url.includes('/pino') || url.includes('/sonic-boom') || f === 'logAnswered') return 'logging';
  if (url.includes('/prom-client/') || url.endsWith('/lib/instrument.js') || url.endsWith('/lib/metrics.js'))
    return 'metrics';
  if (f === 'hash' && url.includes('crypto')) return 'ETag hash';
  if (url.includes('/dist/hooks/')) return 'hook';
  if (url.includes('/ajv/') || url.endsWith('fastify/lib/validation.js')) return 'validation';
  if (f === 'jsonBytes') return 'answer budget (JSON size)';
  if (f === 'writeUtf8String' || f === 'writeGeneric' || f === 'writev') return 'socket write';
  if (f === 'sendTagged') return 'Fastify send';
  if (url.includes('fast-json-stringify') || f === 'answered') return 'serialisation';
  if ((f === 'concat' || f === 'toString' || f === 'utf8Slice') && (url === 'node:buffer' || url === ''))
    return 'body read (Buffer.concat, toString)';
  if (url.endsWith('/bench/peer.mjs')) return 'the peer (JSON.parse, its sync, JSON.stringify)';
  if (url.startsWith('node:internal/modules') || url.includes('/esm/') || url.includes('/cjs/'))
    return 'start-up (module loading)';
  return undefined;
}

function shares(profile: Profile): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const resolved = new Map<number, string>();
  const resolve = (id: number): string => {
    const known = resolved.get(id);
    if (known) return known;
    let stage: string | undefined;
    let lib = false;
    for (let at: number | undefined = id; at !== undefined && !stage; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      stage = stageOf(frame);
      lib ||= frame.url.includes('/dist/lib/');
    }
    stage ??= lib ? 'metaops framework (lib/: conditions, budgets, routes)' : 'HTTP, Fastify and Node';
    resolved.set(id, stage);
    return stage;
  };
  const time = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const stage = resolve(id);
    time.set(stage, (time.get(stage) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return time;
}

async function main(): Promise<void> {
  const payload = JSON.stringify(body(kind, children));
  const dir = mkdtempSync(join(tmpdir(), 'metaops-profile-'));
  const port = await freePort();
  const proc = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...server], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}/hooks/${kind}/sync`;
  for (let i = 0; ; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/`);
      break;
    } catch {
      if (i > 100) throw new Error('the server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const res = await fetch(url, { method: 'POST', body: payload, headers: { 'content-type': 'application/json' } });
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  const result = await autocannon({
    url,
    method: 'POST',
    body: payload,
    headers: { 'content-type': 'application/json' },
    connections,
    duration: seconds,
  });
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await exited;
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile in ${dir}`);
  const requests = result.requests.total;
  console.log(
    `${kind}/sync, ${children} children, request ${payload.length} B, ${connections} connections, ${seconds} s: ` +
      `${requests} requests (profile: ${join(dir, file)})`,
  );
  report(join(dir, file), requests);
}

/** The stages' shares of a profile's busy time, and per request when the number of requests is known. */
function report(file: string, requests?: number): void {
  const time = shares(JSON.parse(readFileSync(file, 'utf8')) as Profile);
  time.delete('idle');
  const startUp = time.get('start-up (module loading)') ?? 0;
  time.delete('start-up (module loading)');
  const busy = [...time.values()].reduce((a, b) => a + b, 0);
  const per = (us: number) => (requests ? String(Math.round(us / requests)) : '');
  console.log(
    `busy ${Math.round(busy / 1000)} ms (${per(busy) || '?'} us a request), start-up ${Math.round(startUp / 1000)} ms left out`,
  );
  console.log('| stage | share of busy time | us per request |\n| --- | ---: | ---: |');
  for (const [stage, us] of [...time].sort((a, b) => b[1] - a[1]))
    console.log(`| ${stage} | ${((100 * us) / busy).toFixed(1)}% | ${per(us)} |`);
}

// PROFILE_READ=<file.cpuprofile>: the shares of a profile taken before (with PROFILE_REQUESTS, per request too).
if (process.env['PROFILE_READ'])
  report(process.env['PROFILE_READ'], Number(process.env['PROFILE_REQUESTS']) || undefined);
else await main();
