// A MySQL replica connects to its primary, and member 0's start-up check to its peers, at names the hook writes into
// the StatefulSet (PRIMARY_HOST, PEER_HOST_FORMAT): `<sts>-<i>.<sts>-headless`, one dot. The pod's resolver
// (`search <ns>.svc.cluster.local svc.cluster.local cluster.local`, ndots:5) finds the member under its own
// namespace first while the member's pod exists; while it does not (deleted, evicted, rescheduled: exactly when a
// replica reconnects and member 0 looks for peers), that name is NXDOMAIN and the next try,
// `<sts>-0.<sts>-headless.svc.cluster.local`, is Service `<sts>-0` of namespace `<sts>-headless`
// (<service>.<namespace>.svc). The tenant of a namespace named `orders-mysql-headless` then is the primary of
// namespace team-a's MySQLCluster `orders`: its replicas authenticate to it (MySQL 8 with GET_SOURCE_PUBLIC_KEY=1
// sends the replication password encrypted to the impostor's own key), replicate its data, and serve it through
// `orders-mysql-read`; member 0's check sends it root's login and reads its answer as a peer's history.
// Every member name a pod dials must be fully qualified.
import t from 'tap';
import { mysqlSync } from '../fixtures/hooks.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';

t.test('a MySQL member dials its primary and peers at fully qualified names in its own namespace', async (t) => {
  const req = request('mysqlcluster', { size: 3, version: '8.0' });
  const parent = req.parent;
  const ns = parent.metadata.namespace ?? 'default';
  const res = mysqlSync(req, FIXED_NOW, () => 'pw');
  const sts = res.children.find((c) => c.kind === 'StatefulSet') as any;
  t.ok(sts, 'a StatefulSet is made');
  const pod = sts.spec.template.spec;
  const env: Array<{ name: string; value?: string }> = [...(pod.initContainers ?? []), ...pod.containers].flatMap(
    (c: any) => c.env ?? [],
  );
  const hosts = env.filter((e) => e.name === 'PRIMARY_HOST' || e.name === 'PEER_HOST_FORMAT');
  t.ok(hosts.length >= 2, 'PRIMARY_HOST and PEER_HOST_FORMAT are set');
  for (const e of hosts) {
    const host = (e.value ?? '').replace('%s', '1');
    t.ok(
      host.endsWith(`.${ns}.svc.cluster.local`),
      `${e.name} ${e.value} names namespace ${ns} in the cluster domain (a relative name is answered by namespace "${host.split('.')[1]}" once the member's pod is gone)`,
    );
  }
});

t.test(
  "member names are qualified in the server's cluster domain, and a setting that is no domain stops the server",
  async (t) => {
    const { mysqlcluster } = await import('../../hooks/mysqlcluster/index.js');
    const { runPure } = await import('../../lib/operator.js');
    const env = { METAOPS_ETCD_CLUSTER_DOMAIN: 'Corp.Example.' };
    const req = request('mysqlcluster', { size: 3, version: '8.0' });
    req.parent.metadata.namespace = 'team-a';
    const res = runPure(mysqlcluster, 'sync', req, {
      now: FIXED_NOW,
      services: { randomSecret: () => 'pw' },
      settings: mysqlcluster.settings!({ env }),
    });
    const sts = res.children.find((c) => c.kind === 'StatefulSet') as any;
    const replication = sts.spec.template.spec.containers.find((c: any) => c.name === 'replication');
    const value = (name: string) => replication.env.find((e: any) => e.name === name).value;
    const n = sts.metadata.name;
    t.equal(value('PRIMARY_HOST'), `${n}-0.${n}-headless.team-a.svc.corp.example`);
    t.equal(value('PEER_HOST_FORMAT'), `${n}-%s.${n}-headless.team-a.svc.corp.example`);
    t.same(mysqlcluster.configProblems!(env), []);
    t.match(mysqlcluster.configProblems!({ METAOPS_ETCD_CLUSTER_DOMAIN: 'corp example' }), [/not one/]);
  },
);
