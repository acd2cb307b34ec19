// Memcached `a` and EtcdCluster `a-memcached` are made together (one `kubectl apply` of a folder: the same second; the
// EtcdCluster has the lower uid, so it is the one made first by lib/ownership.ts firstMade). Their children want one
// Service: the EtcdCluster's peer Service `a-memcached`, the Memcached's Service `a-memcached`. Each controller syncs
// its parent on its own; neither first sync sees the other (as test/fixtures/parents-made-together.ts plays it), and
// Metacontroller creates the Memcached's Service first (the EtcdCluster's first sync is the slower: it dials its
// members), the EtcdCluster's other children (its member pods, its client Service) after. Played as Metacontroller
// applies answers (a child answered and free is created for its parent, one another owner holds is not, an observed
// child left out of the answer is deleted), five rounds of syncs after the first. The first parent keeps working, the
// second says why it does not (issue 31, "Done when"). Before, a Memcached never released a child (lib/ownership.ts
// laterSide: "not judged for what it serves") and, holding every name it wants, was not held either: the
// EtcdCluster, made first, stayed ServiceNameTaken for good (its member pods made, its cluster never formed) and the
// Memcached's status said nothing of it. Now a Memcached none of whose pods was ever Ready (hooks/memcached/sync.ts
// served) yields as an EtcdCluster or a MySQLCluster does. Every pair of kinds:
// test/operators/parents-of-two-kinds-made-together-the-first-works.test.ts.
import t from 'tap';
import '../../main/operators.js';
import type { CompositeSyncResponse, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { etcdParent, quietEtcd } from '../fixtures/etcd.js';
import { etcdSync, memcachedSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';
import { ready } from '../fixtures/parents-made-together.js';
import { named, simpleWorld } from '../fixtures/applied-world.js';

const now = FIXED_NOW;

t.test(
  'a Memcached made with an EtcdCluster (the EtcdCluster first), its Service made first, does not keep the first from working',
  async (t) => {
    const etcd = etcdParent({ size: 3 });
    named(etcd, {
      name: 'a-memcached',
      namespace: 'shop',
      uid: 'uid-a-etcdcluster',
      creationTimestamp: '2026-01-02T03:00:00Z',
    });
    const mc = request('memcached', { size: 2 });
    named(mc.parent, {
      name: 'a',
      namespace: 'shop',
      uid: 'uid-b-memcached',
      creationTimestamp: '2026-01-02T03:00:00Z',
    });
    // The namespace, by Kind/name.
    const { world, ownerUid, apply, mine, others } = simpleWorld();

    // First syncs: neither sees the other's children yet; the Memcached's are created first.
    const e0 = await etcdSync({ controller: {}, parent: etcd, children: {}, related: {} }, { etcd: quietEtcd, now });
    const m0 = memcachedSync({ ...mc, children: {}, related: {} }, now);
    apply(m0, mc.parent);
    apply(e0, etcd);
    t.equal(
      ownerUid(world.get('Service/a-memcached')!),
      'uid-b-memcached',
      "the Memcached's Service was created first",
    );
    let etcdNow = { ...etcd, status: e0.status } as ParentObject;
    let mcNow = { ...mc.parent, status: m0.status } as ParentObject;
    let e!: CompositeSyncResponse;
    let m!: CompositeSyncResponse;
    for (let round = 0; round < 5; round++) {
      e = await etcdSync(
        {
          controller: {},
          parent: etcdNow,
          children: objectMap(mine(etcd)),
          related: objectMap([...others(etcd), mcNow as KubeObject]),
        },
        { etcd: quietEtcd, now },
      );
      apply(e, etcd);
      etcdNow = { ...etcdNow, status: e.status } as ParentObject;
      m = memcachedSync(
        {
          ...mc,
          parent: mcNow,
          children: objectMap(mine(mc.parent)),
          related: objectMap([...others(mc.parent), etcdNow as KubeObject]),
        },
        now,
      );
      apply(m, mc.parent);
      mcNow = { ...mcNow, status: m.status } as ParentObject;
    }
    t.comment(`EtcdCluster: ${ready(e)?.reason}: ${ready(e)?.message}`);
    t.comment(`Memcached: ${ready(m)?.reason}: ${ready(m)?.message}`);
    t.comment(`Service a-memcached belongs to ${ownerUid(world.get('Service/a-memcached')!)}`);
    t.not(
      ready(e)?.reason,
      'ServiceNameTaken',
      'the EtcdCluster, made first, is not held for its own peer Service for good',
    );
    t.equal(
      ownerUid(world.get('Service/a-memcached')!),
      'uid-a-etcdcluster',
      "the Service a-memcached is the EtcdCluster's in the end",
    );
    t.match(ready(m), { status: 'False' }, 'the Memcached, made second, is not Ready');
    t.match(ready(m)?.message ?? '', /EtcdCluster a-memcached/, 'and says why, naming the EtcdCluster');
    t.match(ready(m)?.message ?? '', /never served, so it yields/, 'that it yields, never having served');
    t.ok(
      mine(mc.parent).some((o) => o.kind === 'Deployment' && o.metadata.name === 'a'),
      'it keeps its Deployment (only the Service the first wants is released)',
    );
  },
);
