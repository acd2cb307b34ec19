// What each test process loads before its test file (.taprc `node-arg`), in place of `--import=tsx`: two in-thread
// hooks (module.registerHooks). resolve: a relative `./x.js` import is `./x.ts` when that file exists (tsc's NodeNext
// convention). load: a .ts file of ours is made JavaScript once per content, by Node.js's own type stripping (every
// line and column as written) or, for a file with syntax stripping cannot take, esbuild's transform (as tsx's and
// Stryker's runs do); the output is kept in a cache folder under the system's temporary folder, keyed by the SHA-256
// of the path and source, so a test process reads JavaScript and loads neither esbuild nor a loader thread. tsx's
// loader cost about 0.6 s of CPU more in each of the ~700 test processes (docs/testing.md "CI time"). The types are
// checked by `npm run typecheck`, as before.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

const cache = join(tmpdir(), `metaops-test-loader-${process.getuid?.() ?? 'user'}`);
const ours = (url) => url.startsWith('file:') && !url.includes('/node_modules/');
let esbuild;
/** Changes when what this file makes of a source does, so that nothing made before is read. */
const FORMAT = 'strip or esbuild (es2022 fields, imports as written), v1\0';

/**
 * `source` as JavaScript, from the cache when it was made before: Node.js's own type stripping (blanks in place of
 * the types: every line and column as written) where it can; esbuild's transform, with an inline source map, where the
 * source has syntax stripping cannot take (a parameter property: lib/ has some).
 */
function transformed(source, file) {
  const key = createHash('sha256').update(FORMAT).update(file).update('\0').update(source).digest('hex');
  const kept = join(cache, `${key}.mjs`);
  try {
    return readFileSync(kept, 'utf8');
  } catch {
    const code = stripped(source) ?? esbuildOf(source, file);
    mkdirSync(cache, { recursive: true });
    const temporary = `${kept}.${process.pid}`;
    writeFileSync(temporary, code);
    renameSync(temporary, kept);
    return code;
  }
}

/** Node.js's type stripping of `source`, or undefined when it has syntax stripping cannot take (said once a file). */
function stripped(source) {
  const emitWarning = process.emitWarning;
  process.emitWarning = () => {}; // "stripTypeScriptTypes is an experimental feature", once per process
  try {
    return nodeModule.stripTypeScriptTypes(source);
  } catch (err) {
    if (err?.code === 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX') return undefined;
    throw err;
  } finally {
    process.emitWarning = emitWarning;
  }
}

function esbuildOf(source, file) {
  esbuild ??= nodeModule.createRequire(import.meta.url)('esbuild');
  return esbuild.transformSync(source, {
    loader: 'ts',
    format: 'esm',
    target: 'node22',
    sourcemap: 'inline',
    // As tsconfig.json has them (target ES2022: class fields defined; every import kept as written).
    tsconfigRaw: { compilerOptions: { useDefineForClassFields: true, verbatimModuleSyntax: true } },
    sourcefile: file,
  }).code;
}

// Node.js before 22.15 (engines allows 22) has neither in-thread hooks nor type stripping: tsx's loader, as before.
if (typeof nodeModule.registerHooks !== 'function' || typeof nodeModule.stripTypeScriptTypes !== 'function') {
  await import('tsx');
} else {
  process.setSourceMapsEnabled(true);
  // V8's compiled code of every module loaded from here on (the test file, tap, lib/, fastify...) kept on disk and
  // read back by the next process that loads the same source (Node.js's compile cache, checked against the source's
  // hash; NODE_DISABLE_COMPILE_CACHE=1 turns it off): each of the ~700 test processes and the CLI processes the
  // fixtures start compiled the same modules again (docs/testing.md "CI time").
  nodeModule.enableCompileCache?.(join(cache, 'v8'));
  nodeModule.registerHooks({
    resolve(specifier, context, nextResolve) {
      if (
        (specifier.startsWith('./') || specifier.startsWith('../')) &&
        specifier.endsWith('.js') &&
        context.parentURL &&
        ours(context.parentURL)
      ) {
        const ts = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
        if (existsSync(fileURLToPath(ts))) return nextResolve(ts.href, context);
      }
      return nextResolve(specifier, context);
    },
    load(url, context, nextLoad) {
      if (!ours(url) || !url.endsWith('.ts')) return nextLoad(url, context);
      const file = fileURLToPath(url);
      return { format: 'module', source: transformed(readFileSync(file, 'utf8'), file), shortCircuit: true };
    },
  });
}
