// Mutation testing of the decision code changed since a base commit (docs/mutation.md): the lines of the modules
// below that differ from the base are mutated, against the test files that guard each module, and each module's
// score on those lines must reach its target (85% for the modules that guard data and access, 70% elsewhere).
//
//   npx tsx scripts/mutation-changed.ts [base]     base: MUTATION_BASE, else HEAD~1
//   npx tsx scripts/mutation-changed.ts --list [base]   only print the line ranges that would be mutated
//   npx tsx scripts/mutation-changed.ts hooks/s3/policy.ts ...   whole modules (npm run test:mutation:module -- <file>)
//   npx tsx scripts/mutation-changed.ts <base> hooks/s3/policy.ts ...   only those modules' lines changed since base
//
// Prints `mutation: N passed, N failed` (one per module mutated) and exits 1 when a module misses its target;
// prints `mutation: no decision code changed since <base>` and exits 0 when there is nothing to mutate.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as prettier from 'prettier';
import { MODULES } from './mutation-modules.js';

function git(...args: string[]): string {
  return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
}

/**
 * The line ranges of `file` whose code differs from `base`, formatting aside: the base version is first formatted
 * with this tree's prettier configuration, so a commit that only reformats (quotes, wrapping, trailing commas)
 * brings no lines to mutate, while any change of a token does. A file new since `base` is changed everywhere.
 */
async function changedRanges(base: string, file: string): Promise<Array<[number, number]>> {
  let before: string;
  try {
    before = git('show', `${base}:${file}`);
  } catch {
    before = '';
  }
  if (before !== '') {
    const options = (await prettier.resolveConfig(file)) ?? {};
    before = await prettier.format(before, { ...options, filepath: file });
  }
  const dir = mkdtempSync(join(tmpdir(), 'metaops-diff-'));
  writeFileSync(join(dir, 'base.ts'), before);
  const diff = spawnSync('git', ['diff', '--no-index', '--unified=0', join(dir, 'base.ts'), file], {
    encoding: 'utf8',
  });
  rmSync(dir, { recursive: true, force: true });
  const out: Array<[number, number]> = [];
  for (const line of diff.stdout.split('\n')) {
    const m = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (!m) continue;
    const start = Number(m[1]);
    const count = m[2] === undefined ? 1 : Number(m[2]);
    if (count > 0) out.push([start, start + count - 1]);
  }
  return out;
}

const args = process.argv.slice(2).filter((a) => a !== '--list');
const listOnly = process.argv.includes('--list');
const named = args.filter((a) => Object.hasOwn(MODULES, a));
for (const a of args)
  if (a.endsWith('.ts') && !named.includes(a))
    throw new Error(`${a} is not one of the modules in scripts/mutation-changed.ts`);
const given = args.find((a) => !a.endsWith('.ts'));
const base = given ?? process.env['MUTATION_BASE'] ?? 'HEAD~1';
// Modules named without a base are mutated whole; with a base, only their lines changed since it.
const whole = given === undefined ? named : [];
if (whole.length === 0) {
  try {
    git('rev-parse', '--verify', '--quiet', `${base}^{commit}`);
  } catch {
    console.log(`mutation: no base commit ${base} in this clone; nothing to compare with`);
    process.exit(0);
  }
}

const mutate: string[] = [];
const tests = new Set<string>();
const modules: string[] = [];
for (const [file, m] of Object.entries(MODULES)) {
  if (named.length > 0 && !named.includes(file)) continue;
  const ranges = whole.length > 0 ? [] : await changedRanges(base, file);
  if (whole.length === 0 && ranges.length === 0) continue;
  modules.push(file);
  if (whole.length > 0) mutate.push(file);
  for (const [a, b] of ranges) mutate.push(`${file}:${a}-${b}`);
  for (const t of m.tests) tests.add(t);
}
if (modules.length === 0) {
  console.log(`mutation: no decision code changed since ${base}`);
  process.exit(0);
}

if (listOnly) {
  console.log(mutate.join('\n'));
  process.exit(0);
}

const config = JSON.parse(readFileSync('stryker.config.json', 'utf8')) as Record<string, any>;
delete config['$schema'];
const dir = mkdtempSync(join(tmpdir(), 'metaops-mutation-'));
const report = join(dir, 'mutation.json');
Object.assign(config, {
  mutate,
  tap: { ...config['tap'], testFiles: [...tests].sort() },
  // progress-append-only: a line of mutants tested so far every 10 s in the log (a long run is not silent to its end).
  reporters: ['clear-text', 'json', 'progress-append-only'],
  jsonReporter: { fileName: report },
  thresholds: { high: 85, low: 70, break: null },
});
// MUTATION_CONCURRENCY: fewer test runners than the configuration's 2 on a machine others load.
if (process.env['MUTATION_CONCURRENCY']) config['concurrency'] = Number(process.env['MUTATION_CONCURRENCY']);
writeFileSync(join(dir, 'stryker.config.json'), JSON.stringify(config, null, 2));
console.log(
  `mutation: ${modules.join(', ')} (${whole.length > 0 ? 'whole modules' : `lines changed since ${base}`}), tests: ${[...tests].join(', ')}`,
);
const started = Date.now();
// Stryker's tap runner does not read .taprc: its timeout per test file (900 s) is given as tap's environment setting,
// else a file of megabyte texts (lib/json.ts's) passes tap's 30 s default on a loaded machine and the initial run fails.
// MUTATION_INCREMENTAL=<report>: Stryker's --incremental against a previous run's report (this script's JSON report,
// printed below, or Stryker's own incremental file): mutants of unchanged code whose covering tests are unchanged keep
// their result; the rest run. The report is rewritten with this run's results.
const incremental = process.env['MUTATION_INCREMENTAL'];
const run = spawnSync(
  'npx',
  [
    'stryker',
    'run',
    join(dir, 'stryker.config.json'),
    ...(incremental ? ['--incremental', '--incrementalFile', incremental] : []),
  ],
  {
    stdio: 'inherit',
    env: { ...process.env, TAP_TIMEOUT: process.env['TAP_TIMEOUT'] ?? '900' },
  },
);
if (run.status !== 0) {
  console.log('mutation: Stryker failed');
  console.log('mutation: 0 passed, 1 failed');
  process.exit(1);
}
const files = (
  JSON.parse(readFileSync(report, 'utf8')) as { files: Record<string, { mutants: Array<{ status: string }> }> }
).files;
let passed = 0;
let failed = 0;
for (const file of modules) {
  const mutants = files[file]?.mutants ?? [];
  const killed = mutants.filter((x) => x.status === 'Killed' || x.status === 'Timeout').length;
  const valid = killed + mutants.filter((x) => x.status === 'Survived' || x.status === 'NoCoverage').length;
  const score = valid === 0 ? 100 : (100 * killed) / valid;
  const ok = score >= MODULES[file]!.target;
  if (ok) passed++;
  else failed++;
  console.log(
    `mutation: ${file}: ${score.toFixed(1)}% of ${valid} mutants${whole.length > 0 ? '' : ' on the changed lines'} (target ${MODULES[file]!.target}%): ${ok ? 'ok' : 'BELOW TARGET'}`,
  );
}
console.log(`mutation: ${Math.round((Date.now() - started) / 1000)} s, report ${report}`);
console.log(`mutation: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
