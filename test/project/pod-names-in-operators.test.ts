// The framework's table of pod names (lib/podholders.ts) names no operator: each kind's pod names are declared in its
// own definition (`podNames`, lib/hook.ts), so that a kind is added or changed in its folder alone.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { operators } from '../../main/operators.js';

const root = join(import.meta.dirname, '..', '..');
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every word that names an operator: its folder, its route name, and its kind, plural and API group. */
const names = [
  ...readdirSync(join(root, 'hooks'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name),
  ...operators.flatMap((def) =>
    def.type === 'composite' ? [def.name, def.resource.kind, def.resource.plural, def.resource.group] : [def.name],
  ),
];

for (const file of ['podholders.ts', 'holders.ts']) {
  t.test(`lib/${file} names no kind, resource, API group or folder of hooks/`, async (t) => {
    const text = readFileSync(join(root, 'lib', file), 'utf8');
    t.ok(names.includes('PodSet') && names.includes('etcdclusters') && names.includes('database.example.com'));
    const named = [...new Set(names)].filter((name) => new RegExp(`\\b${escape(name)}\\b`, 'i').test(text));
    t.same(named, [], 'no operator named');
  });
}

t.test('each kind whose parents name pods declares it in its own definition', async (t) => {
  const declared = operators.flatMap((def) => (def.type === 'composite' && def.podNames ? [def.resource.kind] : []));
  t.same(declared.sort(), ['EtcdCluster', 'MySQLCluster', 'PodSet']);
});
