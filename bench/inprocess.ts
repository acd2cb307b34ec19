// The pure sync functions in-process from 1 to 10 000 children (median ms per call), printed as JSON. Run by
// bench/run.ts in a process of its own. Each request is encoded and parsed first, as the hook server receives
// it: JSON.parse makes objects of many keys V8 dictionaries, and that is what a hook walks.
import { performance } from 'node:perf_hooks';
import { body, syncOf, type Kind } from './bodies.js';

const parsed = (kind: Kind, n: number) => JSON.parse(JSON.stringify(body(kind, n)));

/** Median time of `fn`, after 3 warm-up calls, over enough runs to fill ~1 s (at least 15). */
function timeIt(fn: () => unknown): number {
  for (let i = 0; i < 3; i++) fn();
  const samples: number[] = [];
  const until = performance.now() + 1000;
  while (samples.length < 15 || (performance.now() < until && samples.length < 500)) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

/**
 * V8's own share: collecting the values of the parsed map of n pods with for..in, and reading each one's name,
 * which every hook has to do at least once. No hook can grow more slowly than this.
 */
function walk(map: Record<string, { metadata: { name?: string } }>): number {
  let names = 0;
  for (const key in map) if (map[key]!.metadata.name) names++;
  return names;
}

const rows = [];
for (const n of [1, 10, 100, 1000, 10000]) {
  // One request alive at a time, so that each measurement has the heap to itself.
  const podset = parsed('podset', n);
  const podsetMs = timeIt(() => syncOf('podset', podset));
  const mapWalkMs = timeIt(() => walk(podset.children!['Pod.v1']!));
  const memcachedMs = timeIt(
    (
      (r) => () =>
        syncOf('memcached', r)
    )(parsed('memcached', n)),
  );
  const mysqlclusterMs = timeIt(
    (
      (r) => () =>
        syncOf('mysqlcluster', r)
    )(parsed('mysqlcluster', n)),
  );
  rows.push({ children: n, podsetMs, memcachedMs, mysqlclusterMs, mapWalkMs });
}
process.stdout.write(JSON.stringify(rows) + '\n');
