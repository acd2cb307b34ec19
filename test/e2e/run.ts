// `npm run test:e2e`: builds (or reuses) the real components, starts a control plane on loopback, installs
// metaops's CRDs and controllers (webhooks pointed at http://127.0.0.1:<port>), runs the seeds' walkthroughs
// with kubectl, and tears everything down. Prints `e2e: N passed, N failed`; logs of every component are
// printed when a scenario fails.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { operators as hooks } from '../../main/operators.js';
import { renderController } from '../../scripts/render-manifests.js';
import { root } from '../fixtures/requests.js';
import { ControlPlane, E2E_RESYNC_SECONDS } from './cluster.js';
import { scenarios } from './scenarios/index.js';

function build(): string {
  const started = Date.now();
  const out = execFileSync('bash', [join(root, 'e2e', 'build.sh')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const bin = out.toString().trim().split('\n').pop()!;
  console.log(`e2e: components ready in ${((Date.now() - started) / 1000).toFixed(1)}s (${bin})`);
  return bin;
}

async function main(): Promise<number> {
  const bin = build();
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  const only = process.env['E2E_ONLY'];
  const plane = new ControlPlane(bin, root);
  let passed = 0;
  let failed = 0;
  const stop = async () => {
    await plane.down();
  };
  process.on('SIGINT', () => void stop().then(() => process.exit(130)));
  try {
    const started = Date.now();
    await plane.up((base) =>
      // Metacontroller v1.5.20 (the release the proxy serves) has no webhook `etag` field: leave it out.
      // Every controller resyncs every E2E_RESYNC_SECONDS, so that a scenario's quiet period covers resyncs.
      hooks
        .map((d) =>
          renderController(d, { target: { kind: 'url', base }, etag: false, resyncPeriodSeconds: E2E_RESYNC_SECONDS }),
        )
        .join('---\n'),
    );
    console.log(`e2e: control plane up in ${((Date.now() - started) / 1000).toFixed(1)}s (${plane.dir})`);
    for (const scenario of scenarios) {
      if (only && !scenario.name.toLowerCase().includes(only.toLowerCase())) continue;
      const t0 = Date.now();
      try {
        const notes = await scenario.run(plane);
        passed++;
        console.log(`ok - ${scenario.name} (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
        for (const note of notes ?? []) console.log(`    ${note}`);
      } catch (err) {
        failed++;
        console.log(`not ok - ${scenario.name} (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
        console.log(`    ${err instanceof Error ? err.stack : String(err)}`);
        console.log(plane.logs());
      }
    }
  } catch (err) {
    failed++;
    console.log(`not ok - control plane: ${err instanceof Error ? err.stack : String(err)}`);
    console.log(plane.logs());
  } finally {
    await stop();
  }
  console.log(`e2e: ${passed} passed, ${failed} failed`);
  return failed === 0 && passed > 0 ? 0 : 1;
}

process.exitCode = await main();
