// The server process when a bug escapes: an unhandled promise rejection or an uncaught exception is logged as one
// `fatal` line of the JSON log (the error, its stack and where it came from), and the process exits with code 1 so
// that the kubelet restarts it in a known state (Metacontroller retries the hook meanwhile). A bug is planted by a
// preloaded module that raises one when the process gets SIGUSR2, once the server answers.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { freePort } from '../fixtures/net.js';
import { root } from '../fixtures/requests.js';

const dir = mkdtempSync(join(tmpdir(), 'metaops-crash-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const plant = join(dir, 'plant.mjs');
writeFileSync(
  plant,
  `process.on('SIGUSR2', () => {
  if (process.env.PLANT === 'reject') void Promise.reject(new Error('a planted bug: a rejection nobody handles'));
  else setImmediate(() => { throw new Error('a planted bug: an exception nobody catches'); });
});
`,
);

function healthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
    });
    req.on('error', () => resolve(false));
    req.end();
  });
}

async function crash(
  kind: 'reject' | 'throw',
): Promise<{ code: number | null; lines: Array<Record<string, unknown>> }> {
  const port = await freePort();
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', pathToFileURL(plant).href, join(root, 'main', 'server.ts')],
    {
      cwd: root,
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', PLANT: kind },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  let up = false;
  for (let i = 0; i < 200 && !up; i++) {
    up = await healthy(port);
    if (!up) await new Promise((r) => setTimeout(r, 100));
  }
  if (!up) {
    proc.kill('SIGKILL');
    throw new Error(`server did not start: ${out}`);
  }
  proc.kill('SIGUSR2');
  const code = await Promise.race([exited, new Promise<'alive'>((r) => setTimeout(() => r('alive'), 10_000))]);
  if (code === 'alive') {
    proc.kill('SIGKILL');
    return { code: -1, lines: [] };
  }
  const lines = out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { code, lines };
}

for (const [kind, words] of [
  ['reject', 'a rejection nobody handles'],
  ['throw', 'an exception nobody catches'],
] as const) {
  t.test(
    `${kind === 'reject' ? 'an unhandled rejection' : 'an uncaught exception'} is logged as fatal, then the server exits 1`,
    async (t) => {
      const { code, lines } = await crash(kind);
      t.equal(code, 1, 'exits with code 1');
      const fatal = lines.find((l) => l['level'] === 60);
      t.ok(fatal, `one fatal line in the JSON log (lines: ${JSON.stringify(lines)})`);
      const err = fatal?.['err'] as { message?: string; stack?: string } | undefined;
      t.match(err?.message, words, 'naming the error');
      t.match(err?.stack, /plant\.mjs/, 'with its stack');
      t.equal(
        fatal?.['origin'],
        kind === 'reject' ? 'unhandledRejection' : 'uncaughtException',
        'and where it came from',
      );
      t.match(String(fatal?.['msg']), /exiting/, 'saying the process exits');
    },
  );
}
