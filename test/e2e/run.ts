// `npm run test:e2e`: builds (or reuses) the real components, then, for each Metacontroller release
// (test/e2e/metacontroller.ts: v4.17.2, what users run, and v1.5.20; E2E_METACONTROLLER picks), starts a control
// plane on loopback, installs metaops's CRDs and controllers as shipped for that release (webhooks pointed at
// http://127.0.0.1:<port>), runs every scenario with kubectl, and tears everything down. The releases run at once,
// each on its own plane (E2E_SERIAL=1: one after the other). Prints one line per release and
// `e2e: N passed, N failed` for all; logs of every component are printed when a scenario fails.
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

const planes = new Set<ControlPlane>();
process.on('SIGINT', () => void Promise.all([...planes].map((p) => p.down())).then(() => process.exit(130)));

/**
 * Every scenario on one release's control plane. Each scenario's lines (result, notes, and on failure the stack and
 * the component logs) are printed together when it ends, so that two releases running at once do not mix them.
 */
async function runOn(
  bin: string,
  mc: MetacontrollerRelease,
): Promise<{ passed: number; failed: number; failures: string[] }> {
  const only = process.env['E2E_ONLY'];
  let passed = 0;
  let failed = 0;
  // One line per failure (the scenario and the first line of its error), printed again at the very end of the run:
  // a CI log cut to its tail still says what failed and why.
  const failures: string[] = [];
  const firstLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 300);
  const tag = `[mc ${mc.version}]`;
  console.log(`e2e: ${tag} Metacontroller ${mc.version}: ${mc.source}`);
  const plane = new ControlPlane(bin, root, { metacontroller: mc });
  planes.add(plane);
  try {
    const started = Date.now();
    await plane.up();
    console.log(
      `e2e: ${tag} control plane up in ${((Date.now() - started) / 1000).toFixed(1)}s (${plane.dir}); webhook etag ` +
        `${mc.features.etag ? 'on' : 'off'}, authorization ${mc.features.authorization ? 'Bearer token' : 'none (hook server opted out)'}`,
    );
    for (const scenario of scenarios) {
      if (only && !scenario.name.toLowerCase().includes(only.toLowerCase())) continue;
      const t0 = Date.now();
      const took = () => ((Date.now() - t0) / 1000).toFixed(1);
      try {
        // A component that died during an earlier scenario fails this one at once, saying which and why.
        plane.assertRunning();
        const notes = await scenario.run(plane);
        passed++;
        console.log([`ok - ${tag} ${scenario.name} (${took()}s)`, ...(notes ?? []).map((n) => `    ${n}`)].join('\n'));
      } catch (err) {
        failed++;
        failures.push(`not ok - ${tag} ${scenario.name.slice(0, 90)} (${took()}s): ${firstLine(err)}`);
        console.log(
          [
            `not ok - ${tag} ${scenario.name} (${took()}s)`,
            `    ${err instanceof Error ? err.stack : String(err)}`,
            plane.logs(),
          ].join('\n'),
        );
      }
    }
  } catch (err) {
    failed++;
    failures.push(`not ok - ${tag} control plane: ${firstLine(err)}`);
    console.log(`not ok - ${tag} control plane: ${err instanceof Error ? err.stack : String(err)}\n${plane.logs()}`);
  } finally {
    // A failed run keeps the plane's folder (component logs, etcd data); E2E_KEEP=1 keeps every one.
    await plane.down(failed > 0 || process.env['E2E_KEEP'] === '1');
    if (failed > 0) console.log(`e2e: ${tag} kept ${plane.dir}`);
    planes.delete(plane);
  }
  return { passed, failed, failures };
}

/**
 * The releases run at once, each on its own control plane (E2E_SERIAL=1: one after the other): most of a scenario's
 * time is spent waiting (for resyncs, quiet periods, Metacontroller's back-off), so two planes take little more
 * than one.
 */
async function main(): Promise<number> {
  const bin = build();
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  const started = Date.now();
  const list = releases(bin, root);
  const runOne = async (mc: MetacontrollerRelease) => {
    const t0 = Date.now();
    const r = await runOn(bin, mc);
    const line = `e2e on Metacontroller ${mc.version}: ${r.passed} passed, ${r.failed} failed in ${((Date.now() - t0) / 1000).toFixed(0)}s`;
    console.log(line);
    return { ...r, line };
  };
  const results = [];
  if (process.env['E2E_SERIAL'] === '1') for (const mc of list) results.push(await runOne(mc));
  else results.push(...(await Promise.all(list.map(runOne))));
  console.log('');
  const failures = results.flatMap((r) => r.failures);
  if (failures.length > 0) console.log(['e2e: what failed (each with its logs above):', ...failures].join('\n'));
  for (const r of results) console.log(r.line);
  const passed = results.reduce((n, r) => n + r.passed, 0);
  const failed = results.reduce((n, r) => n + r.failed, 0);
  const mode = process.env['E2E_SERIAL'] === '1' || list.length === 1 ? 'one after the other' : 'at once';
  console.log(`e2e: ${list.length} releases ${mode} in ${((Date.now() - started) / 1000).toFixed(0)}s`);
  console.log(`e2e: ${passed} passed, ${failed} failed`);
  return failed === 0 && passed > 0 ? 0 : 1;
}

process.exitCode = await main();
