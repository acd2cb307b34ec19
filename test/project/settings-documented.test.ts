// Every METAOPS_* setting the code reads is in the settings table of docs/operating.md (README points there), and
// every one the Helm chart sets is named by its value in charts/metaops/values.yaml and in its row ("Helm: ...").
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';

const root = join(import.meta.dirname, '..', '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

/** The METAOPS_* names a text has as the start of a string literal (env['X'], a constant 'X', `X=...`). */
export function settingsIn(text: string): string[] {
  return [...text.matchAll(/['"`](METAOPS_[A-Z0-9_]*[A-Z0-9])(?![A-Z0-9_])/g)].map((m) => m[1]!);
}

function settingsRead(): Map<string, string> {
  const found = new Map<string, string>();
  for (const dir of ['lib', 'hooks', 'main'])
    for (const f of readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }))
      if (f.endsWith('.ts')) for (const name of settingsIn(read(join(dir, f)))) found.set(name, `${dir}/${f}`);
  return found;
}

/** The settings table's row of a setting (the lines before the first blank line that name it in backticks). */
function rowOf(doc: string, name: string): string | undefined {
  const table = doc.slice(0, doc.indexOf('\n\n', doc.indexOf('| variable |')));
  return table.split('\n').find((l) => l.startsWith('|') && l.includes(`\`${name}\``));
}

t.test('the scan finds settings in string literals only, each whole', async (t) => {
  t.same(
    settingsIn(
      "env['METAOPS_A'] \"METAOPS_B_C\" `METAOPS_D=${x}` METAOPS_CONSTANT 'METAOPS_PREFIX_' 'METAOPS_E_FILE' // METAOPS_F",
    ),
    ['METAOPS_A', 'METAOPS_B_C', 'METAOPS_D', 'METAOPS_E_FILE'],
  );
});

t.test('every METAOPS_* setting the code reads has its row in docs/operating.md', async (t) => {
  const settings = settingsRead();
  t.ok(settings.size >= 25, `the scan finds the settings (${settings.size})`);
  for (const known of ['METAOPS_POD_TOLERATIONS', 'METAOPS_ETCD_ALLOW_REFERENCES', 'METAOPS_ALLOW_STATIC_VOLUMES'])
    t.ok(settings.has(known), `${known} is found`);
  const doc = read('docs/operating.md');
  const missing = [...settings].filter(([name]) => !rowOf(doc, name)).map(([name, file]) => `${name} (${file})`);
  t.same(missing, [], 'settings read by the code without a row in the table');
});

t.test("every setting the Helm chart sets is named in values.yaml and its row says the chart's value", async (t) => {
  const deployment = read('charts/metaops/templates/deployment.yaml');
  const set = [...deployment.matchAll(/-\s+name:\s+(METAOPS_[A-Z0-9_]+)/g)].map((m) => m[1]!);
  t.ok(set.length >= 10, `the chart sets settings (${set.length})`);
  const read_ = settingsRead();
  const values = read('charts/metaops/values.yaml');
  const doc = read('docs/operating.md');
  for (const name of set) {
    t.ok(read_.has(name), `${name}: the chart sets a setting the code reads`);
    t.match(values, new RegExp(`\\b${name}\\b`), `${name}: named in values.yaml`);
    t.match(rowOf(doc, name) ?? '', /Helm: `/, `${name}: its row in docs/operating.md names the chart's value`);
  }
});
