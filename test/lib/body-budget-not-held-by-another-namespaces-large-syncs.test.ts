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
import { DEFAULT_BODY_BUDGET, reserveOf, serverBudget } from '../../lib/body-budget.js';
import type { EtcdClient } from '../../hooks/etcdcommon/etcd.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { testApp } from '../fixtures/app.js';
import { etcdParent, etcdPod } from '../fixtures/etcd.js';
import { otherTenantSyncs } from '../fixtures/other-tenant.js';

const TOKEN = 'body-budget-tenant-token-0123456789abcdef';
/** The etcd client's deadline of one call (hooks/etcdcommon/etcd.ts CALL_TIMEOUT_MS). */
const CALL_TIMEOUT_MS = 1500;

/** A's members: they accept and never answer; every call ends at the client's deadline. */
const silent = async (): Promise<never> => {
  await new Promise((r) => setTimeout(r, CALL_TIMEOUT_MS));
  throw Object.assign(new Error(`timed out after ${CALL_TIMEOUT_MS}ms`), { code: 'Timeout' });
};
const silentEtcd: EtcdClient = {
  memberList: silent,
  memberAdd: silent,
  memberRemove: silent,
  memberPromote: silent,
  health: async () => {
    await new Promise((r) => setTimeout(r, CALL_TIMEOUT_MS));
    return { healthy: false, error: `timed out after ${CALL_TIMEOUT_MS}ms` };
  },
};

/** `n` labels of 63-character keys and values: ~130 bytes each as JSON (an object of 1.5 MiB at most). */
const labels = (tag: string, n: number): Record<string, string> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`${tag}-${i}`.padEnd(63, 'k'), 'v'.repeat(63)]));

/** An EtcdRestore of A's namespace as its cluster's sync relates it: ~1.4 MiB of labels. */
const restore = (i: number): KubeObject => ({
  apiVersion: 'etcd.database.coreos.com/v1beta2',
  kind: 'EtcdRestore',
  metadata: { name: `r${i}`, namespace: 'ns', uid: `uid-r${i}`, labels: labels(`r${i}`, 10_500) },
  spec: { etcdCluster: { name: 'other' }, s3: { path: 'bucket/ns/snap.db', awsSecret: 'aws' } },
});

/** A sync of A's EtcdCluster `e` of three members, with these EtcdRestores of its namespace related. */
const syncOf = (restores: KubeObject[]): string =>
  JSON.stringify({
    controller: {},
    parent: etcdParent({ size: 3 }, { phase: 'Running' }),
    children: {
      'Pod.v1': Object.fromEntries([0, 1, 2].map((i) => [`e-${i}`, etcdPod(i)])),
      'Service.v1': {},
    },
    related: {
      'EtcdRestore.etcd.database.coreos.com/v1beta2': Object.fromEntries(
        restores.map((r) => [`ns/${r.metadata.name}`, r]),
      ),
    },
  });

/** The body limit (METAOPS_BODY_LIMIT's default), which is also the body budget's default. */
const BODY_LIMIT = 8 * 1024 * 1024;

/**
 * A's EtcdCluster `e` of three members, with the namespace's six EtcdRestores related, the last one's labels cut so
 * that the request is 64 bytes short of the body limit: nothing else fits beside it in the budget.
 */
function aSync(): string {
  const restores = Array.from({ length: 6 }, (_, i) => restore(i));
  const make = () => syncOf(restores);
  const last = restores[5]!.metadata.labels!;
  const keys = Object.keys(last);
  let body = make();
  // Each label is ~131 bytes of JSON: remove labels of the last restore until the request fits 64 bytes under the limit.
  while (body.length > BODY_LIMIT - 64) {
    const over = body.length - (BODY_LIMIT - 64);
    for (let n = Math.max(1, Math.floor(over / 131)); n > 0 && keys.length; n--) delete last[keys.pop()!];
    body = make();
  }
  // Then an annotation of the last restore takes up the rest, to the byte.
  restores[5]!.metadata.annotations = { note: '' };
  restores[5]!.metadata.annotations['note'] = 'x'.repeat(BODY_LIMIT - 64 - make().length);
  return make();
}

/** A's small sync: the same cluster with one EtcdRestore of ~200 KiB (under the reserve's small requests, 256 KiB). */
function aSmallSync(): string {
  const r = restore(0);
  r.metadata.labels = labels('s', 1500);
  return syncOf([r]);
}

t.test("another namespace's large, slow syncs do not keep a namespace's small syncs from being answered", async (t) => {
  const budget = serverBudget();
  const app = testApp({ auth: { bearer: TOKEN }, deps: { etcdClient: () => silentEtcd }, bodyBudget: budget });
  t.teardown(() => app.close());
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const body = aSync();
  const small = aSmallSync();
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
  const worker = (payload: string, tag: string) => async () => {
    while (probing) {
      const status = await fetch(`${base}/hooks/etcdcluster/sync`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        body: payload,
      }).then((r) => r.status);
      a[`${tag} ${status}`] = (a[`${tag} ${status}`] ?? 0) + 1;
    }
  };
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
