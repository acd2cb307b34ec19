// The layers: lib/ (the framework) imports no operator and not the composition root; an operator imports lib/,
// its own folder and the etcd family's shared folder only (hooks/etcdcommon), never another operator; and no
// module imports itself back through others (type-only imports included: they are layering too).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import t from 'tap';

const root = join(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => normalize(join(dir, f)));
}

/** Every relative module a file imports (static, type-only, re-exports and dynamic), as repository paths. */
export function importsOf(file: string, text = readFileSync(join(root, file), 'utf8')): string[] {
  const out: string[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;
  for (const m of text.matchAll(pattern)) out.push(normalize(join(dirname(file), m[1]!.replace(/\.js$/, '.ts'))));
  return out;
}

const files = [...sources('lib'), ...sources('hooks'), ...sources('main')];
const graph = new Map(files.map((f) => [f, importsOf(f).filter((i) => files.includes(i))]));

t.test('the import scan finds every form of import', async (t) => {
  const text =
    "import a from './a.js';\nimport type { B } from '../b/b.js';\nexport { c } from './c.js';\nconst d = await import('./d.js');\nimport './e.js';";
  t.same(importsOf('lib/x.ts', text), ['lib/a.ts', 'b/b.ts', 'lib/c.ts', 'lib/d.ts', 'lib/e.ts']);
});

t.test('lib/ imports no operator and not the composition root', async (t) => {
  const upward = [...graph].flatMap(([f, deps]) =>
    f.startsWith('lib/') ? deps.filter((d) => !d.startsWith('lib/')).map((d) => `${f} -> ${d}`) : [],
  );
  t.same(upward, []);
});

t.test('no operator imports another (the etcd family shares hooks/etcdcommon)', async (t) => {
  const folder = (f: string) => f.split('/')[1];
  const across = [...graph].flatMap(([f, deps]) =>
    f.startsWith('hooks/')
      ? deps
          .filter(
            (d) =>
              d.startsWith('main/') ||
              (d.startsWith('hooks/') && folder(d) !== folder(f) && folder(d) !== 'etcdcommon'),
          )
          .map((d) => `${f} -> ${d}`)
      : [],
  );
  t.same(across, []);
  const common = [...graph].flatMap(([f, deps]) =>
    f.startsWith('hooks/etcdcommon/')
      ? deps.filter((d) => d.startsWith('hooks/') && !d.startsWith('hooks/etcdcommon/'))
      : [],
  );
  t.same(common, [], 'the shared folder imports no operator either');
});

t.test('no import cycle', async (t) => {
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (f: string, path: string[]) => {
    if (state.get(f) === 'done') return;
    if (state.get(f) === 'open') {
      cycles.push([...path.slice(path.indexOf(f)), f].map((p) => relative(root, join(root, p))).join(' -> '));
      return;
    }
    state.set(f, 'open');
    for (const d of graph.get(f) ?? []) visit(d, [...path, f]);
    state.set(f, 'done');
  };
  for (const f of files) visit(f, []);
  t.same(cycles, []);
  t.ok(graph.size > 40, `the scan saw the code (${graph.size} modules)`);
});
