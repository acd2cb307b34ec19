// A refused request is logged by its path alone (lib/guard.ts safeUrl): a caller may put anything in the query, the
// fragment or the user information of an absolute-form target, and none of it reaches the log; a path is bounded.
// Refusals are logged at a rate (RefusalLog: a bucket of `burst` lines refilled at `perSecond`), the rest counted
// and said in one line a second later. The functions are called directly: about a second a run.
import t from 'tap';
import { RefusalLog, safeUrl } from '../../lib/guard.js';

t.test('a target is logged as its path: no query, fragment, scheme, user information or host', async (t) => {
  for (const [target, path] of [
    ['/hooks/etcdcluster/sync', '/hooks/etcdcluster/sync'],
    ['/hooks/etcdcluster/sync?token=secret', '/hooks/etcdcluster/sync'],
    ['/nope#secret', '/nope'],
    ['/nope?a=1#b', '/nope'],
    ['/nope?secret\nmore-secret', '/nope'],
    ['/nope#secret\r\nmore', '/nope'],
    ['http://user:pw@evil.example:99/nope?q=1', '/nope'],
    ['https://evil.example/nope', '/nope'],
    ['HTTPS://EVIL.example/nope', '/nope'],
    ['git+ssh://evil.example/nope', '/nope'],
    ['a-b.c://evil.example/nope', '/nope'],
    // User information with a `/` in it is no path; an `@` after the query is no user information.
    ['http://user:pa/ss@evil.example/nope', '/nope'],
    ['http://a@b@evil.example/nope', '/nope'],
    ['http://evil.example?x@y/z', ''],
    ['http://evil.example#x@y/z', ''],
    ['http://evil.example', ''],
    // No scheme at the start: the target is a path, whatever it holds.
    ['/x/http://evil.example/nope', '/x/http://evil.example/nope'],
    ['/a@b/c', '/a@b/c'],
    ['1http://evil.example/nope', '1http://evil.example/nope'],
    ['http:/evil.example/nope', 'http:/evil.example/nope'],
  ] as const)
    t.equal(safeUrl(target), path, target);
});

t.test('a path is logged up to 200 characters, a longer one cut and marked', async (t) => {
  const of = (n: number) => '/' + 'p'.repeat(n - 1);
  t.equal(safeUrl(of(200)), of(200));
  t.equal(safeUrl(of(201)), `${of(200)}...`);
  t.equal(safeUrl(`${of(201)}?${'q'.repeat(50)}`), `${of(200)}...`);
  t.equal(safeUrl(`http://evil.example${of(200)}`), of(200), 'the bound counts the path only');
});

function counted(rate: { perSecond: number; burst: number }) {
  let now = 1_000_000;
  const lines: Array<{ fields: unknown; msg: string }> = [];
  const log = new RefusalLog(
    rate,
    { warn: ((fields: unknown, msg: string) => lines.push({ fields, msg })) as never },
    () => now,
  );
  return { log, lines, advance: (ms: number) => (now += ms) };
}

t.test('refusals are logged up to a burst, then at the rate, never more than the burst after a pause', async (t) => {
  const { log, lines, advance } = counted({ perSecond: 2, burst: 3 });
  t.same(
    Array.from({ length: 5 }, () => log.take()),
    [true, true, true, false, false],
    'the burst, then none',
  );
  // Half a second at 2 a second is exactly one line.
  advance(500);
  t.same([log.take(), log.take()], [true, false], 'one line after half a second');
  advance(250);
  t.equal(log.take(), false, 'half a line is none');
  advance(250);
  t.equal(log.take(), true, 'the two halves make one');
  // A long pause refills the burst, no more.
  advance(60_000);
  t.same(
    Array.from({ length: 4 }, () => log.take()),
    [true, true, true, false],
    'a minute later: the burst again',
  );
  log.flush();
  t.same(lines, [
    {
      fields: { notLogged: 5 },
      msg: '5 more refused requests were not logged (at most 2 lines a second)',
    },
  ]);
  log.flush();
  t.equal(lines.length, 1, 'nothing more to say: no line');
});

t.test('the refusals not logged are said in one line a second after the first of them', async (t) => {
  const { log, lines } = counted({ perSecond: 1, burst: 1 });
  t.equal(log.take(), true);
  t.equal(log.take(), false);
  t.equal(log.take(), false);
  t.same(lines, [], 'not at once');
  await new Promise((r) => setTimeout(r, 1300));
  t.same(lines, [
    { fields: { notLogged: 2 }, msg: '2 more refused requests were not logged (at most 1 lines a second)' },
  ]);
  // Said: the next refusal held back is said a second after it, again.
  t.equal(log.take(), false);
  await new Promise((r) => setTimeout(r, 1300));
  t.same(lines.at(-1), {
    fields: { notLogged: 1 },
    msg: '1 more refused requests were not logged (at most 1 lines a second)',
  });
  t.equal(lines.length, 2);
});
