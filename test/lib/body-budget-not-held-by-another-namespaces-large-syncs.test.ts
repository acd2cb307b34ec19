// The body budget (METAOPS_BODY_BUDGET, lib/body-budget.ts, 8 MiB by default) is one queue for every hook request of
// every namespace, taken before the body is read, in arrival order ("a small request passes no large one"), and held
// until the hook has answered. Tenant A decides how large its own requests are and how long its hooks run:
//   - an EtcdCluster's sync carries every EtcdRestore of its namespace (its customize asks for them by namespace),
//     so a few EtcdRestores of ~1.4 MiB (labels: the API server takes an object of 1.5 MiB) make each of A's
//     EtcdCluster syncs ~7.5 MiB, which takes the whole budget alone;
//   - A's members run the image A names (spec.repository): members that accept and never answer hold each sync for
//     the client's call deadline (CALL_TIMEOUT_MS, 1.5 s), the body still counted.
// Metacontroller runs 5 workers per controller: five such syncs of A are in hand one after another, and tenant B's
// Memcached sync (a few KiB, a pure hook) queued behind them is answered 429 once it has waited half the hook
// deadline: B's objects are not synced for as long as A keeps its syncs coming (each edit of A's objects is one more).
// The server keeps a reserve for small requests beside the budget (an eighth of it), which a small request takes when
// the budget has no room, never waiting behind a large one; once its body is read, its namespace holds at most a
// quarter of the reserve: A's small slow syncs (other clusters of A, each carrying one EtcdRestore of ~200 KiB) do
// not fill the reserve either. The bytes in hand stay within the budget and its reserve.
import t from 'tap';
import { DEFAULT_BODY_BUDGET, reserveOf } from '../../lib/body-budget.js';
import { otherTenantSyncs } from '../fixtures/other-tenant.js';
import { aWorker, BODY_LIMIT, budgetServer, largeSync, smallSync } from '../fixtures/slow-tenant-syncs.js';

const TOKEN = 'body-budget-tenant-token-0123456789abcdef';

t.test("another namespace's large, slow syncs do not keep a namespace's small syncs from being answered", async (t) => {
  const { budget, base } = await budgetServer(t, TOKEN);
  const body = largeSync();
  const small = smallSync();
  t.ok(body.length <= BODY_LIMIT, `A's sync is within the body limit (${body.length} bytes of ${BODY_LIMIT})`);
  t.ok(
    small.length > 150 * 1024 && small.length <= budget.small,
    `A's small sync (${small.length} bytes) may take its turn from the reserve (at most ${budget.small})`,
  );
  let probing = true;
  const b = otherTenantSyncs(t, base, TOKEN, 9000).finally(() => (probing = false));
  // Metacontroller's five workers of the EtcdCluster controller, each syncing one of A's many clusters after another
  // (A edits them, or has enough of them that a retry of one is another's turn) while B's worker syncs B's Memcached;
  // and as many more of A's small syncs, of other clusters of A's, as slow (a second controller's workers, or the
  // first's between the large ones).
  const a: Record<string, number> = {};
  const worker = (payload: string, tag: string) => aWorker(base, TOKEN, payload, tag, a, () => probing);
  await Promise.all([
    ...Array.from({ length: 5 }, worker(body, 'large')),
    ...Array.from({ length: 10 }, worker(small, 'small')),
  ]);
  const { slowest, statuses } = await b;
  t.comment(`A's syncs: ${JSON.stringify(a)}; B's syncs: ${JSON.stringify(statuses)}, the slowest in ${slowest} ms`);
  t.same(Object.keys(statuses), ['200'], "every one of B's syncs is answered, none told to retry");
  t.ok((a['large 200'] ?? 0) > 0, "A's large syncs are answered too, in their turn");
  t.ok((a['small 200'] ?? 0) > 0, "A's small syncs are answered too, within A's share of the reserve");
  t.equal(budget.reserve, reserveOf(DEFAULT_BODY_BUDGET), 'the reserve is an eighth of the budget (1 MiB)');
  t.ok(
    budget.peak <= budget.bytes + budget.reserve,
    `the bytes in hand stay within the budget and its reserve (at most ${budget.peak} of ${budget.bytes + budget.reserve})`,
  );
  t.equal(budget.used, 0, 'every turn given back');
});
