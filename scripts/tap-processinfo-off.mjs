// Loaded first in every test process (.taprc `test-env`: NODE_OPTIONS) and so in every Node.js process a test starts
// with its environment. tap loads its @tapjs/processinfo into each of them, which records every module loaded (reading
// it again and measuring its lines) for coverage and `tap --changed`, neither used here (.taprc `disable-coverage`):
// about 0.15 s of CPU of each test process (docs/testing.md "CI time"). With its exclusion matching every file it
// records none, and never starts its bookkeeping (no wrapper of child processes, no file in .tap/processinfo). tap's
// runner sets that exclusion itself after `test-env`, so it is set here, before processinfo's own import reads it.
import process from 'node:process';

process.env['_TAPJS_PROCESSINFO_EXCLUDE_'] = '/./';
// .taprc names this file relative to the project, where tap starts the test processes: absolute for the processes
// they start elsewhere.
process.env['NODE_OPTIONS'] = (process.env['NODE_OPTIONS'] ?? '').replace(
  '--import=./scripts/tap-processinfo-off.mjs',
  `--import=${import.meta.url}`,
);
