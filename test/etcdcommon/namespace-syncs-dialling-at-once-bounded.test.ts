// A namespace's share of calls to etcd (TENANT_MAX_CALLS, 48 in flight) is counted in calls, and a sync of a small
// cluster makes few: a sync of one member needs 5 (4 a member and a member list). Counted only by its own calls,
// 9 syncs of a namespace's single-member clusters held their room at once, more than Metacontroller's 5 workers,
// which every namespace shares: members that never answer (or answer just within the deadline) held all of them.
// Each view of a tenant now takes at least a TENANT_MAX_SYNCS-th of the share (24): at most 2 of a namespace's syncs
// dial at once whatever their clusters' sizes, the others find no room (answered 429 by the sync), and another
// namespace's share is its own.
import t from 'tap';
import { HttpEtcdClient, TENANT_MAX_CALLS, TENANT_MAX_SYNCS, type DialScope } from '../../hooks/etcdcommon/etcd.js';

function view(client: HttpEtcdClient, tenant: string, members: number) {
  const scope: DialScope = {
    signal: new AbortController().signal,
    allows: () => true,
    lookupName: (host) => host,
    tenant,
    maxCalls: 4 * members + 1,
  };
  return client.scoped(scope);
}

t.test("a namespace's syncs of single-member clusters hold its share at most TENANT_MAX_SYNCS at a time", async (t) => {
  t.equal(TENANT_MAX_SYNCS, 2);
  t.ok(TENANT_MAX_CALLS / TENANT_MAX_SYNCS >= 5, 'a sync of one member needs less than its reservation');
  const client = new HttpEtcdClient();
  const a = Array.from({ length: 9 }, () => view(client, 'ns-a', 1));
  const held = a.map((v) => v.hold());
  t.same(held, [true, true, false, false, false, false, false, false, false], "two of A's nine syncs dial");
  t.ok(view(client, 'ns-b', 1).hold(), "another namespace's sync has its own share");
  a[0]!.release();
  t.ok(a[2]!.hold(), "a sync of A finds room once one of A's syncs gave it back");
  t.notOk(a[3]!.hold(), 'and no more');
});

t.test("a sync of a 9-member cluster still dials alone in its namespace's share", async (t) => {
  const client = new HttpEtcdClient();
  const large = view(client, 'ns-a', 9);
  t.ok(large.hold());
  t.notOk(view(client, 'ns-a', 1).hold(), "a small cluster's sync finds no room beside it");
  large.release();
  const small = [view(client, 'ns-a', 1), view(client, 'ns-a', 1)];
  t.same(
    small.map((v) => v.hold()),
    [true, true],
  );
  t.notOk(view(client, 'ns-a', 9).hold(), "a 9-member cluster's sync finds no room beside two small ones");
});

t.test("a view's calls without a hold take the same reservation at their first call", async (t) => {
  const client = new HttpEtcdClient({ resolve: () => 'http://127.0.0.1:9/' });
  const holders = [view(client, 'ns-a', 1), view(client, 'ns-a', 1)];
  for (const v of holders) t.ok(v.hold());
  // The third view's call finds no room: it fails at once, nothing sent.
  const third = await view(client, 'ns-a', 1).health('http://m-0.e.ns-a.svc:2379');
  t.match(third, { healthy: false, error: /no room for this sync's calls in its share/ });
});
