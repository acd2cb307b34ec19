// The author stamp names who created the tool: the admission policy stamps a create only, and refuses every update
// that changes the spec. A tool whose spec changed since its creation all the same (while the validating policy was
// not in force, or by any other path) carries a spec its stamp's user never wrote: the API server raised its
// metadata.generation past 1 (2 once its deletion began, a finalizer holding it). Such a tool is AuthorUnverified,
// and no author is asked about: it acts as nobody.
import t from 'tap';
import { AuthorCache, AuthorCheck, specChanged } from '../../hooks/podbuggertool/author.js';
import { FakeApi, tool } from '../fixtures/pbt.js';

const check = (api: FakeApi) => new AuthorCheck(api, new AuthorCache(() => Date.parse('2026-01-03T00:00:00Z')));
const stamped = tool('a', { label: 'app=web', image: 'busybox' });
const at = (generation: number | undefined, deletionTimestamp?: string) => ({
  ...stamped,
  metadata: {
    ...stamped.metadata,
    generation,
    ...(deletionTimestamp !== undefined ? { deletionTimestamp } : {}),
  },
});

t.test('a tool at generation 1: its creator is asked about, and it acts', async (t) => {
  const api = new FakeApi();
  t.same(await check(api).verify(at(1)), { allowed: true, author: 'alice' });
  t.equal(api.reviews.length, 1);
});

t.test('a tool whose spec changed since its creation: AuthorUnverified, no review', async (t) => {
  for (const [why, changed, said] of [
    ['generation 2', at(2), /it is at generation 2, not 1/],
    ['generation 7', at(7), /it is at generation 7, not 1/],
    ['no generation', at(undefined), /it has no generation/],
    ['generation 3, being deleted', at(3, '2026-01-02T12:00:00Z'), /it is at generation 3, being deleted, not 2/],
  ] as const) {
    const api = new FakeApi();
    const verdict = await check(api).verify(changed);
    t.match(
      verdict,
      {
        allowed: false,
        reason: 'AuthorUnverified',
        message: new RegExp(
          `spec was changed after it was created \\(${said.source}\\).*delete it and create it again`,
        ),
      },
      why,
    );
    t.equal(api.reviews.length, 0, `${why}: nobody asked about`);
    t.ok(specChanged(changed), `${why}: specChanged says so`);
  }
});

t.test('a tool being deleted (a finalizer holding it): generation 2 is its creation spec', async (t) => {
  const api = new FakeApi();
  t.same(await check(api).verify(at(2, '2026-01-02T12:00:00Z')), { allowed: true, author: 'alice' });
  t.equal(specChanged(at(2, '2026-01-02T12:00:00Z')), undefined);
  t.equal(specChanged(at(1)), undefined);
});
