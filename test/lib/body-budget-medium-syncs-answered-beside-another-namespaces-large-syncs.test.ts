// The body budget's reserve (lib/body-budget.ts) keeps tenant B's small syncs (256 KiB at most) answered while
// tenant A's large, slow syncs hold the whole budget; B's syncs above that size still take their turns in arrival
// order behind A's. A's EtcdCluster syncs are each 64 bytes under the body limit (the namespace's EtcdRestores are
// related to every one of them) and slow (its members, running A's image, accept and never answer): Metacontroller's
// five workers of the EtcdCluster controller keep four of them waiting at any time. B's PodSet of 80 pods, whose
// sync (every observed pod in it, ~5.7 KiB each with its managed fields) is ~450 KiB, waits behind them and
// is answered 429 after half the hook deadline, for as long as A keeps its syncs coming: B's PodSet is never synced.
// A request of up to half the reserve now takes its turn from it (a namespace holds at most half of it once read).
import t from 'tap';
import { budgetServer, podSetBesideALargeSyncs, podSetSync, post } from '../fixtures/slow-tenant-syncs.js';

const TOKEN = 'body-budget-medium-token-0123456789abcdef';

t.test(
  "another namespace's large, slow syncs do not keep a namespace's medium-sized syncs from being answered",
  async (t) => {
    const { budget, base } = await budgetServer(t, TOKEN);
    const { body, file } = podSetSync(80);
    t.ok(
      body.length > 256 * 1024 && body.length <= budget.small,
      `B's sync is ${body.length} bytes: over 256 KiB (a quarter of the reserve), within half of it`,
    );
    t.equal(await post(base, TOKEN, 'podset/sync', body), 200, "B's sync alone is answered");

    const { a, statuses } = await podSetBesideALargeSyncs(t, base, TOKEN, file);
    t.comment(`A's syncs: ${JSON.stringify(a)}; B's syncs: ${JSON.stringify(statuses)}`);
    t.same(Object.keys(statuses), ['200'], "every one of B's syncs is answered, none told to retry");
    t.equal(budget.used, 0, 'every turn given back');
  },
);
