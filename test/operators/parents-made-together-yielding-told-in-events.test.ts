// Two parents made together whose children want the same names (MySQLCluster `shop`, EtcdCluster `shop-mysql`, as in
// parents-made-together-the-later-yields-only-when-it-never-served). The one made second, never served, yields: it
// releases the children the first wants (Metacontroller deletes them); the first waits (`<Kind>NameReleasing`).
// `kubectl describe` of each says so in an Event, a Warning naming the other parent: once when it starts (also when
// the yielding one was held before it saw the other parent, its Ready reason unchanged), not at every sync.
import t from 'tap';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';
import type { EventSpec } from '../../lib/events.js';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import { etcdParent, quietEtcd } from '../fixtures/etcd.js';
import { etcdSync } from '../fixtures/hooks.js';
import { created, NS, ready } from '../fixtures/parents-made-together.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';
import { named } from '../fixtures/applied-world.js';

async function mysqlSyncTold(req: ReturnType<typeof request>, now: Date, events: EventSpec[]) {
  return runHook(mysqlcluster, 'sync', req, {
    now,
    services: { randomSecret: () => 'secret', events: () => ({ record: async (_p, e) => void events.push(...e) }) },
  });
}

/**
 * Both made in one second (the EtcdCluster's lower uid makes it first): six rounds of syncs, each parent's status
 * fed back. Until round `parentsSentFrom`, neither is sent the other parent (a customize answer asked before it
 * existed): each sees only the other's children.
 */
async function collide(parentsSentFrom: number) {
  const made = '2026-01-02T03:00:00Z';
  const etcd = etcdParent({ size: 3 });
  named(etcd, { name: 'shop-mysql', namespace: NS, uid: 'uid-a-etcd', creationTimestamp: made });
  const mysqlReq = request('mysqlcluster', { size: 3, version: '8.0' });
  named(mysqlReq.parent, { name: 'shop', namespace: NS, uid: 'uid-b-mysql', creationTimestamp: made });
  const etcdFirst = await etcdSync(
    { controller: {}, parent: etcd, children: {}, related: {} },
    { etcd: quietEtcd, now: FIXED_NOW },
  );
  const mysqlFirst = await mysqlSyncTold(mysqlReq, FIXED_NOW, []);
  const mysqlMade = mysqlFirst.children.map((c) => created(c, mysqlReq.parent));
  const etcdMade = etcdFirst.children
    .filter((c) => !(c.kind === 'Service' && c.metadata.name === 'shop-mysql'))
    .map((c) => created(c, etcd));
  let etcdNow = { ...etcd, status: etcdFirst.status } as ParentObject;
  let mysqlNow = { ...mysqlReq.parent, status: mysqlFirst.status } as ParentObject;
  const rounds: Array<{ etcd: EventSpec[]; mysql: EventSpec[]; etcdReady: string; mysqlReady: string }> = [];
  for (let round = 0; round < 6; round++) {
    const now = new Date(FIXED_NOW.getTime() + (round + 1) * 30_000);
    const sent = round >= parentsSentFrom;
    const etcdEvents: EventSpec[] = [];
    const mysqlEvents: EventSpec[] = [];
    const etcdAgain = await etcdSync(
      {
        controller: {},
        parent: etcdNow,
        children: objectMap(etcdMade),
        related: objectMap([...mysqlMade, ...(sent ? [mysqlNow as KubeObject] : [])]),
      },
      { etcd: quietEtcd, now, note: (e) => etcdEvents.push(e) },
    );
    const again = request('mysqlcluster', { size: 3, version: '8.0' });
    again.parent = mysqlNow;
    again.children = objectMap(mysqlMade);
    again.related = objectMap([...etcdMade, ...(sent ? [etcdNow as KubeObject] : [])]);
    const mysqlAgain = await mysqlSyncTold(again, now, mysqlEvents);
    etcdNow = { ...etcdNow, status: etcdAgain.status } as ParentObject;
    mysqlNow = { ...mysqlNow, status: mysqlAgain.status } as ParentObject;
    rounds.push({
      etcd: etcdEvents,
      mysql: mysqlEvents,
      etcdReady: ready(etcdAgain).reason,
      mysqlReady: ready(mysqlAgain).reason,
    });
  }
  return rounds;
}

for (const from of [0, 2]) {
  t.test(
    `each parent tells once, in a Warning naming the other, that it yields or waits (parents sent from round ${from})`,
    async (t) => {
      const rounds = await collide(from);
      t.comment(JSON.stringify(rounds.map((r) => [r.etcdReady, r.mysqlReady])));
      const last = rounds[rounds.length - 1]!;
      t.equal(last.etcdReady, 'ServiceNameReleasing', 'the EtcdCluster, made first, waits');
      t.equal(last.mysqlReady, 'PodNameTaken', 'the MySQLCluster, made second and never served, is held');
      const yielded = rounds.map((r) => r.mysql.filter((e) => e.reason === 'NamesYielded'));
      t.equal(yielded.flat().length, 1, `the MySQLCluster tells once that it yields: ${JSON.stringify(yielded)}`);
      t.match(yielded.flat()[0], {
        type: 'Warning',
        note: /yields to EtcdCluster shop-mysql \(uid uid-a-etcd\).*releases/,
        related: { kind: 'EtcdCluster', name: 'shop-mysql' },
      });
      const waits = rounds.map((r) =>
        r.etcd.filter((e) => e.type === 'Warning' && e.reason === 'ServiceNameReleasing'),
      );
      t.equal(waits.flat().length, 1, `the EtcdCluster tells once that it waits: ${JSON.stringify(waits)}`);
      t.match(waits.flat()[0]!.note, /MySQLCluster shop \(uid uid-b-mysql\)/, 'naming the MySQLCluster');
      t.same(
        rounds.slice(-2).map((r) => [...r.etcd, ...r.mysql]),
        [[], []],
        'at rest (the statuses fed back), nothing more is told',
      );
    },
  );
}
