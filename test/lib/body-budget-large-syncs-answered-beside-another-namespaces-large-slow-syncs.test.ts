// The body budget's turns (lib/body-budget.ts) are shared between namespaces: tenant A's large, slow syncs, one in
// hand and four waiting at any time, do not keep tenant B's syncs of any size the server takes from being answered.
// A's EtcdCluster syncs are each just under the body limit (the namespace's EtcdRestores ride along with every one of
// them) and slow (its members, A's image, accept and never answer), and Metacontroller's five workers keep them
// coming. B's PodSet's sync carries every observed pod (~5.7 KiB each with the managed fields the API server keeps):
// 150 pods are ~850 KiB (over half the reserve, which only requests up to 512 KiB take), 600 pods ~3.4 MB. In
// arrival order B's sync waited behind every one of A's waiting syncs and was told to retry (429) on 1 to 2 of its 3
// tries in 9 s with 150 pods, 2 of 3 with 600 (an attack of 2026-11-29, on the loaded 2-core machine); now the next
// turn of the budget goes to the namespace whose last turn is the oldest, so B waits for A's sync in hand at most.
import t from 'tap';
import { budgetServer, podSetBesideALargeSyncs, podSetSync, post } from '../fixtures/slow-tenant-syncs.js';

const TOKEN = 'body-budget-large-b-token-0123456789abcdef';
for (const PODS of [150, 600] as const)
  t.test(
    `another namespace's large, slow syncs do not keep a namespace's sync of ${PODS} pods from being answered`,
    async (t) => {
      const { budget, base } = await budgetServer(t, TOKEN);
      const { body, file } = podSetSync(PODS);
      t.ok(
        body.length > budget.small && body.length < budget.bytes / 2,
        `B's sync is ${body.length} bytes: over half the reserve (${budget.small}), under half the budget`,
      );
      t.equal(await post(base, TOKEN, 'podset/sync', body), 200, "B's sync alone is answered");

      const { a, statuses } = await podSetBesideALargeSyncs(t, base, TOKEN, file);
      t.comment(`A's syncs: ${JSON.stringify(a)}; B's syncs: ${JSON.stringify(statuses)}`);
      t.same(Object.keys(statuses), ['200'], "every one of B's syncs is answered, none told to retry");
      t.ok((a['large 200'] ?? 0) > 0, "A's large syncs are answered too, in their turns");
      t.ok(
        budget.peak <= budget.bytes + budget.reserve,
        `the bytes in hand stay within the budget and its reserve (at most ${budget.peak})`,
      );
      t.equal(budget.used, 0, 'every turn given back');
      t.equal(budget.heads, 0, "every body's start read ahead given back");
    },
  );
