// `tsx scripts/image-check.ts <mounted image root>` (run by scripts/image.sh): what the image's /app holds,
// against package-lock.json. Fails, listing them, on a dev dependency installed, a production dependency missing
// or not in the lock, TypeScript source (a .ts that is not a declaration) or the sources' folders, and on a
// missing compiled entrypoint.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

interface LockEntry {
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
  link?: boolean;
}

const mounted = process.argv[2];
if (!mounted) throw new Error('usage: tsx scripts/image-check.ts <mounted image root>');
const app = join(mounted, 'app');
const repo = join(import.meta.dirname, '..');
const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

/** Every installed package, as the lock names it: `node_modules/a`, `node_modules/@s/b/node_modules/c`. */
function installed(dir: string, prefix = ''): string[] {
  const nm = join(dir, 'node_modules');
  if (!existsSync(nm)) return [];
  const out: string[] = [];
  for (const name of readdirSync(nm)) {
    if (name.startsWith('.')) continue; // .bin, .package-lock.json
    const names = name.startsWith('@') ? readdirSync(join(nm, name)).map((n) => `${name}/${n}`) : [name];
    for (const n of names) {
      const path = `${prefix}node_modules/${n}`;
      out.push(path);
      out.push(...installed(join(nm, n), `${path}/`));
    }
  }
  return out;
}

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path, { throwIfNoEntry: false });
    if (st?.isDirectory()) out.push(...files(path));
    else out.push(path);
  }
  return out;
}

const problems: string[] = [];
const present = new Set(installed(app));
const entries = Object.entries(lock.packages).filter(([path]) => path !== '');
const dev = entries.filter(([, e]) => e.dev || e.devOptional).map(([p]) => p);
const prod = entries.filter(([, e]) => !e.dev && !e.devOptional);
for (const path of dev) if (present.has(path)) problems.push(`dev dependency installed: ${path}`);
for (const [path, e] of prod) {
  // An optional package is left out on a platform it is not for (os/cpu in the lock).
  if (!present.has(path) && !e.optional) problems.push(`production dependency missing: ${path}`);
}
const known = new Set(entries.map(([p]) => p));
for (const path of present) if (!known.has(path)) problems.push(`installed but not in package-lock.json: ${path}`);

const all = files(app).map((f) => relative(app, f));
const source = /\.(ts|mts|cts|tsx)$/;
const declaration = /\.d\.(ts|mts|cts)$/;
const ours = all.filter((f) => !f.startsWith('node_modules/'));
for (const f of ours.filter((f) => source.test(f) && !declaration.test(f)))
  problems.push(`TypeScript source: /app/${f}`);
for (const dir of ['lib', 'hooks', 'main', 'test', 'scripts', 'bench', 'src'])
  if (existsSync(join(app, dir))) problems.push(`source folder /app/${dir}`);
for (const f of ['tsconfig.json', 'tsconfig.build.json', '.npmrc'])
  if (existsSync(join(app, f))) problems.push(`/app/${f} is inside`);
if (!existsSync(join(app, 'dist', 'main', 'server.js'))) problems.push('/app/dist/main/server.js is missing');
const theirs = all.filter((f) => f.startsWith('node_modules/') && source.test(f) && !declaration.test(f));

console.error(
  `image-check: /app holds ${present.size} packages (lock: ${prod.length} production, ${dev.length} dev), ` +
    `${ours.length} files of its own (${ours.filter((f) => f.startsWith('dist/')).length} in dist/); ` +
    `TypeScript files that production packages ship (theirs, not metaops's): ${theirs.length}`,
);
for (const p of problems) console.error(`image-check: ${p}`);
process.exitCode = problems.length === 0 ? 0 : 1;
