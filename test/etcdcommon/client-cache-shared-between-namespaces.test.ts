// The etcd clients the server keeps (hooks/etcdcommon/clientcache.ts): least recently used first, a namespace held to
// its share, and past the bound over all the namespace that holds the most gives way.
import t from 'tap';
import {
  MAX_ETCD_CLIENTS,
  MAX_ETCD_CLIENTS_PER_NAMESPACE,
  NamespaceShares,
} from '../../hooks/etcdcommon/clientcache.js';
import { etcdClients } from '../../hooks/etcdcommon/index.js';

t.test('a use keeps an entry: the least recently used goes first', async (t) => {
  const cache = new NamespaceShares<number>(8, 3);
  cache.set('a', 'one', 1);
  cache.set('a', 'two', 2);
  cache.set('a', 'three', 3);
  t.equal(cache.get('a', 'one'), 1, 'the oldest used again');
  cache.set('a', 'four', 4);
  t.equal(cache.held('a'), 3, 'the namespace holds its share');
  t.equal(cache.get('a', 'two'), undefined, 'the least recently used dropped');
  t.equal(cache.get('a', 'one'), 1, 'the one used kept');
});

t.test("a namespace at its share drops its own, never another's", async (t) => {
  const cache = new NamespaceShares<number>(8, 3);
  cache.set('b', 'b1', 1);
  for (let i = 0; i < 100; i++) cache.set('a', `a${i}`, i);
  t.equal(cache.held('a'), 3, 'A holds its share, whatever it makes');
  t.equal(cache.get('b', 'b1'), 1, "B's entry kept");
  t.same(
    ['a97', 'a98', 'a99'].map((k) => cache.get('a', k)),
    [97, 98, 99],
    "A's most recent kept",
  );
  t.equal(cache.size, 4);
});

t.test('past the bound over all, the namespace that holds the most gives way', async (t) => {
  const cache = new NamespaceShares<number>(6, 3);
  for (const ns of ['a', 'b']) for (let i = 0; i < 3; i++) cache.set(ns, `${ns}${i}`, i);
  cache.get('a', 'a0');
  cache.set('c', 'c0', 0);
  t.equal(cache.size, 6, 'the bound holds');
  t.equal(cache.held('c'), 1, "the newcomer's entry kept");
  t.equal(cache.get('a', 'a1'), undefined, 'the first of the largest, its least recently used, dropped');
  t.equal(cache.get('a', 'a0'), 0, 'its recently used kept');
  t.equal(cache.held('b'), 3, 'the other untouched');
  cache.set('c', 'c1', 1);
  t.equal(cache.held('b'), 2, 'then the next largest gives way');
  cache.set('c', 'c2', 2);
  t.same([cache.held('a'), cache.held('b'), cache.held('c')], [2, 2, 2], 'until the shares are even');
  cache.set('c', 'c3', 3);
  t.same([cache.held('a'), cache.held('b'), cache.held('c')], [2, 2, 2], 'then the newcomer drops its own');
  t.equal(cache.get('c', 'c0'), undefined);
});

t.test("the server's etcd clients: per namespace and identity, a namespace held to its share", async (t) => {
  t.ok(MAX_ETCD_CLIENTS_PER_NAMESPACE < MAX_ETCD_CLIENTS, 'a share is part of the bound');
  const clients = etcdClients();
  const identity = (i: number) => ({ ca: `CA${i}`, cert: 'CERT', key: 'KEY' });
  const b = clients.etcd(identity(0), 'tenant-b');
  const plain = clients.etcd();
  const firstA = clients.etcd(identity(0), 'tenant-a');
  t.not(firstA, b, "one identity in two namespaces: two clients (no namespace's sessions are another's)");
  for (let i = 1; i < MAX_ETCD_CLIENTS_PER_NAMESPACE; i++) clients.etcd(identity(i), 'tenant-a');
  t.equal(clients.etcd(identity(0), 'tenant-a'), firstA, "A's first client, used again, is kept");
  for (let i = MAX_ETCD_CLIENTS_PER_NAMESPACE; i < 4 * MAX_ETCD_CLIENTS; i++) clients.etcd(identity(i), 'tenant-a');
  t.not(clients.etcd(identity(0), 'tenant-a'), firstA, "A's first client dropped after A's share of others");
  t.equal(clients.etcd(identity(0), 'tenant-b'), b, "B's client kept");
  t.equal(clients.etcd(), plain, 'the plain client is one, always kept');
});
