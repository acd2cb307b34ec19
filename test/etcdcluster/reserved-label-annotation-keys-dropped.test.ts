// spec.pod.labels and spec.pod.annotations are copied onto every member pod. Keys under the prefixes metaops reads or
// writes (metaops.io, metaops.dev and their subdomains, etcd-operator's etcd.database.coreos.com) never come from the
// tenant: a label mysqlcluster.metaops.io/instance or memcached.metaops.io/instance would make another parent's
// Service select the member pod; an annotation debug.metaops.dev/author or metaops.dev/owner would forge a record
// metaops trusts. They are dropped from the member pods, and PodAnnotationsAccepted=False names them.
import t from 'tap';
import { ownKey } from '../../hooks/etcdcluster/members.js';
import { running } from '../fixtures/etcd-loop.js';

const condition = (res: any, type: string) => res.status.conditions.find((c: any) => c.type === type);

t.test('keys metaops owns are its own; others are the tenant’s', async (t) => {
  for (const k of [
    'debug.metaops.dev/author',
    'debug.metaops.dev/failures',
    'metaops.dev/owner',
    'memcached.metaops.io/instance',
    'mysqlcluster.metaops.io/instance',
    'etcd.metaops.io/upgraded-from',
    'etcd.database.coreos.com/restore-uid',
    'Debug.MetaOps.Dev/author',
  ])
    t.ok(ownKey(k), k);
  for (const k of ['app', 'team', 'example.com/x', 'notmetaops.io/x', 'metaops.io.evil.com/x', 'prometheus.io/scrape'])
    t.notOk(ownKey(k), k);
});

t.test(
  'member pods carry none of the tenant’s keys under metaops prefixes, and the condition names them',
  async (t) => {
    const loop = await running({
      size: 3,
      pod: {
        labels: { team: 'a', 'mysqlcluster.metaops.io/instance': 'db', 'memcached.metaops.io/instance': 'cache' },
        annotations: { note: 'x', 'debug.metaops.dev/author': '{"user":"admin"}', 'metaops.dev/owner': 'b/other' },
      },
    });
    await loop.step();
    for (const pod of loop.children.filter((c) => c.kind === 'Pod')) {
      t.match(pod.metadata.labels, { team: 'a' }, `${pod.metadata.name}: the tenant's own label`);
      t.match(pod.metadata.annotations, { note: 'x' }, `${pod.metadata.name}: the tenant's own annotation`);
      for (const k of ['mysqlcluster.metaops.io/instance', 'memcached.metaops.io/instance'])
        t.notOk(k in (pod.metadata.labels ?? {}), `${pod.metadata.name}: no label ${k}`);
      for (const k of ['debug.metaops.dev/author', 'metaops.dev/owner'])
        t.notOk(k in (pod.metadata.annotations ?? {}), `${pod.metadata.name}: no annotation ${k}`);
    }
    t.match(condition(loop.last, 'PodAnnotationsAccepted'), {
      status: 'False',
      reason: 'OwnAnnotationsDropped',
      message: /annotation debug\.metaops\.dev\/author.*label mysqlcluster\.metaops\.io\/instance/,
    });
  },
);
