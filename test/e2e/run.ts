// `npm run test:e2e`: builds (or reuses) the real components, then, for each Metacontroller release
// (test/e2e/metacontroller.ts: v4.17.2, what users run, and v1.5.20; E2E_METACONTROLLER picks), starts a control
// plane on loopback, installs metaops's CRDs and controllers as shipped for that release (webhooks pointed at
// http://127.0.0.1:<port>), runs every scenario with kubectl, and tears everything down. Prints one line per
// release and `e2e: N passed, N failed` for all; logs of every component are printed when a scenario fails.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { root } from '../fixtures/requests.js';
import { ControlPlane } from './cluster.js';
import { releases, type MetacontrollerRelease } from './metacontroller.js';
import { scenarios } from './scenarios/index.js';

function build(): string {
  const started = Date.now();
  const out = execFileSync('bash', [join(root, 'e2e', 'build.sh')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const bin = out.toString().trim().split('\n').pop()!;
  console.log(`e2e: components ready in ${((Date.now() - started) / 1000).toFixed(1)}s (${bin})`);
  return bin;
}

let current: ControlPlane | undefined;
process.on('SIGINT', () => void (current?.down() ?? Promise.resolve()).then(() => process.exit(130)));

async function runOn(bin: string, mc: MetacontrollerRelease): Promise<{ passed: number; failed: number }> {
  const only = process.env['E2E_ONLY'];
  let passed = 0;
  let failed = 0;
  const tag = `[mc ${mc.version}]`;
  console.log(`\ne2e: Metacontroller ${mc.version}: ${mc.source}`);
  const plane = new ControlPlane(bin, root, { metacontroller: mc });
  current = plane;
  try {
    const started = Date.now();
    await plane.up();
    console.log(
      `e2e: control plane up in ${((Date.now() - started) / 1000).toFixed(1)}s (${plane.dir}); webhook etag ` +
        `${mc.features.etag ? 'on' : 'off'}, authorization ${mc.features.authorization ? 'Bearer token' : 'none (hook server opted out)'}`,
    );
    for (const scenario of scenarios) {
      if (only && !scenario.name.toLowerCase().includes(only.toLowerCase())) continue;
      const t0 = Date.now();
      try {
        const notes = await scenario.run(plane);
        passed++;
        console.log(`ok - ${tag} ${scenario.name} (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
        for (const note of notes ?? []) console.log(`    ${note}`);
      } catch (err) {
        failed++;
        console.log(`not ok - ${tag} ${scenario.name} (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
        console.log(`    ${err instanceof Error ? err.stack : String(err)}`);
        console.log(plane.logs());
      }
    }
  } catch (err) {
    failed++;
    console.log(`not ok - ${tag} control plane: ${err instanceof Error ? err.stack : String(err)}`);
    console.log(plane.logs());
  } finally {
    await plane.down();
    current = undefined;
  }
  return { passed, failed };
}

async function main(): Promise<number> {
  const bin = build();
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  const results: string[] = [];
  let passed = 0;
  let failed = 0;
  for (const mc of releases(bin, root)) {
    const t0 = Date.now();
    const r = await runOn(bin, mc);
    passed += r.passed;
    failed += r.failed;
    const line = `e2e on Metacontroller ${mc.version}: ${r.passed} passed, ${r.failed} failed in ${((Date.now() - t0) / 1000).toFixed(0)}s`;
    results.push(line);
    console.log(line);
  }
  console.log('');
  for (const line of results) console.log(line);
  console.log(`e2e: ${passed} passed, ${failed} failed`);
  return failed === 0 && passed > 0 ? 0 : 1;
}

process.exitCode = await main();
