// The mutation testing configuration cannot drift from its list: every module scripts/mutation-changed.ts guards
// (scripts/mutation-modules.ts) is mutated by `npm run test:mutation`, against every test file that guards it, and
// every test file named exists in the fast suite.
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { MODULES } from '../../scripts/mutation-modules.js';

const config = JSON.parse(readFileSync('stryker.config.json', 'utf8')) as {
  mutate: string[];
  tap: { testFiles: string[] };
};

t.test('stryker.config.json mutates every guarded module, against every test file that guards one', async (t) => {
  for (const [file, m] of Object.entries(MODULES)) {
    t.ok(config.mutate.includes(file), `${file} is mutated`);
    t.ok(existsSync(file), `${file} exists`);
    // 80: issue 35's floor for every module measured whole (the modules added since).
    t.ok([70, 80, 85].includes(m.target), `${file}: a target of the issues (${m.target}%)`);
    for (const test of m.tests) {
      t.ok(config.tap.testFiles.includes(test), `${file}: ${test} is run`);
      t.ok(existsSync(test) && test.startsWith('test/') && !test.startsWith('test/real/'), `${test}: a fast test file`);
    }
  }
  for (const test of config.tap.testFiles) t.ok(existsSync(test), `${test} exists`);
});
