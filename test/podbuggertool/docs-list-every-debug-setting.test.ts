// docs/podbuggertool.md's table of the server's settings ("| variable | default | meaning |") lists every
// METAOPS_DEBUG_* variable the hook server reads (match.ts policyFromEnv), each with its default: the docs match the
// code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { root } from '../fixtures/requests.js';

const read = (path: string) => readFileSync(join(root, path), 'utf8');

t.test("the podbuggertool docs' settings table has a row for every METAOPS_DEBUG_* variable", async (t) => {
  const names = [
    ...new Set(
      [...read('hooks/podbuggertool/match.ts').matchAll(/env\['(METAOPS_DEBUG_[A-Z_]+)'\]/g)].map((m) => m[1]!),
    ),
  ];
  t.ok(names.length >= 5, `the server reads ${names.join(', ')}`);
  const rows = read('docs/podbuggertool.md')
    .split('\n')
    .filter((line) => /^\| `METAOPS_DEBUG_[A-Z_]+` \|/.test(line));
  for (const name of names)
    t.ok(
      rows.some((row) => row.startsWith(`| \`${name}\` |`)),
      `docs/podbuggertool.md's settings table has a row for ${name}`,
    );
});
