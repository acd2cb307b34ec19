// A pod name two parents of different kinds want (PodSet `web` and EtcdCluster `web-pod`: `web-pod-<i>`; MySQLCluster
// `db` and EtcdCluster `db-mysql`: `db-mysql-<i>`) belongs to the parent that held it first. The one held remembers
// the holder (status.heldBy) and stays held while the holder exists (same UID) and still wants the name, also when
// the holder's pod is gone for a moment (evicted, node lost, deleted by hand): otherwise it would create its own pod
// under that name, and the holder would find its member taken. A holder deleted and made again under the same name
// (a new UID) is not the holder remembered; a holder that no longer wants the name (scaled down, member replaced)
// lets it go. `kubectl describe` tells who holds the name (condition and Warning Event).
import t from 'tap';
import type {
  CompositeSyncRequest,
  CompositeSyncResponse,
  KubeObject,
  ParentObject,
} from '../../lib/metacontroller.js';
import type { EventSpec } from '../../lib/events.js';
import { runHook } from '../../lib/operator.js';
import { podHolderRules } from '../../lib/podholders.js';
import { etcdcluster } from '../../hooks/etcdcluster/index.js';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';
import { podset } from '../../hooks/podset/index.js';
import { etcdParent, watchedEtcd } from '../fixtures/etcd.js';
import { etcdSync, mysqlSync, podsetPodsSync as podsetSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const ready = (res: CompositeSyncResponse) => ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');
const heldBy = (res: CompositeSyncResponse) => (res.status as any).heldBy;

const PODSET_API = 'apps.jicki.cn/v1alpha1';
const ETCD_API = 'etcd.database.coreos.com/v1beta2';
const MYSQL_API = 'database.example.com/v1alpha1';

function podsetWeb(size = 3, uid = 'uid-web'): ParentObject {
  return {
    apiVersion: PODSET_API,
    kind: 'PodSet',
    metadata: { name: 'web', namespace: 'ns', uid, generation: 1 },
    spec: { size, image: 'busybox', command: ['sleep', '3600'] },
  };
}
function podsetRequest(related: KubeObject[], status?: Record<string, unknown>): CompositeSyncRequest {
  const req = request('podset', { size: 3 });
  req.parent = { ...podsetWeb(), ...(status ? { status } : {}) };
  req.related = objectMap(related);
  return req;
}
/** EtcdCluster web-pod, its status listing `members` (web-pod-<i>). */
function etcdWebPod(members: number[] = [], uid = 'uid-web-pod', status: Record<string, unknown> = {}): ParentObject {
  const parent = etcdParent(
    { size: 3 },
    {
      ...(members.length ? { memberList: members.map((i) => ({ name: `web-pod-${i}`, healthy: true })) } : {}),
      ...status,
    },
  );
  parent.metadata = { ...parent.metadata, name: 'web-pod', uid };
  return parent;
}
function pod(name: string, owner: { apiVersion: string; kind: string; name: string; uid: string }): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, ownerReferences: [{ ...owner, controller: true }] },
  } as KubeObject;
}
const PODSET_OWNER = { apiVersion: PODSET_API, kind: 'PodSet', name: 'web', uid: 'uid-web' };
const ETCD_OWNER = { apiVersion: ETCD_API, kind: 'EtcdCluster', name: 'web-pod', uid: 'uid-web-pod' };
const record = (name: string, holder: typeof PODSET_OWNER) => ({
  child: { apiVersion: 'v1', kind: 'Pod', name },
  holder,
});

function etcdRequest(parent: ParentObject, related: KubeObject[]): CompositeSyncRequest {
  return { controller: {}, parent, children: {}, related: objectMap(related) };
}

t.test('PodSet web holds web-pod-*: EtcdCluster web-pod held remembers it (status.heldBy)', async (t) => {
  const pods = [0, 1, 2].map((i) => pod(`web-pod-${i}`, PODSET_OWNER));
  const events: EventSpec[] = [];
  const res = await etcdSync(etcdRequest(etcdWebPod(), [podsetWeb(), ...pods]), {
    etcd: watchedEtcd(t),
    now: FIXED_NOW,
    note: (e) => events.push(e),
  });
  t.match(ready(res), { status: 'False', reason: 'PodNameTaken', message: /^Pod web-pod-0 belongs to PodSet web/ });
  t.same(heldBy(res)?.[0], record('web-pod-0', PODSET_OWNER), 'the holder is remembered');
  t.same(res.children, []);
  t.match(
    events.find((e) => e.reason === 'PodNameTaken'),
    { type: 'Warning', note: /Pod web-pod-0 belongs to PodSet web/ },
    'kubectl describe shows a Warning naming the holder',
  );
});

t.test('PodSet web holds web-pod-*, its pods gone for a moment: EtcdCluster web-pod stays held', async (t) => {
  const parent = etcdWebPod([], 'uid-web-pod', { heldBy: [record('web-pod-0', PODSET_OWNER)] });
  // Every pod of the PodSet is gone (a node lost, `kubectl delete pods -l app=web`): the names are free.
  const res = await etcdSync(etcdRequest(parent, [podsetWeb()]), { etcd: watchedEtcd(t), now: FIXED_NOW });
  t.match(ready(res), {
    status: 'False',
    reason: 'PodNameTaken',
    message: /^Pod web-pod-0 belongs to PodSet web \(uid uid-web\), which still exists and wants it/,
  });
  t.same(res.children, [], 'no member pod under the PodSet name, no Service');
  // Remembered, with the cluster's other names the PodSet (made first: the lower uid, no creationTimestamp here)
  // still wants (lib/ownership.ts keptByEarlier); the next sync answers the same.
  const records = [0, 1, 2].map((i) => record(`web-pod-${i}`, PODSET_OWNER));
  t.same(heldBy(res), records, 'still remembered');
  const again = await etcdSync(etcdRequest({ ...parent, status: res.status as never }, [podsetWeb()]), {
    etcd: watchedEtcd(t),
    now: FIXED_NOW,
  });
  t.same(heldBy(again), records, 'the same records at the next sync');
  t.same(again.children, []);
});

t.test('the PodSet that held the name deleted and made again (a new UID) is not the holder remembered', async (t) => {
  const parent = etcdWebPod([], 'uid-web-pod', { heldBy: [record('web-pod-0', PODSET_OWNER)] });
  // Made again after the cluster (a PodSet made before it that wants the names would keep them, records or not).
  parent.metadata = { ...parent.metadata, creationTimestamp: '2020-01-01T00:00:00Z' };
  const remade = podsetWeb(3, 'uid-web-new');
  remade.metadata = { ...remade.metadata, creationTimestamp: '2020-01-01T01:00:00Z' };
  const res = await etcdSync(etcdRequest(parent, [remade]), {
    etcd: watchedEtcd(t),
    now: FIXED_NOW,
  });
  t.not(ready(res)?.reason, 'PodNameTaken');
  t.ok(
    res.children.some((c) => c.kind === 'Pod' && c.metadata.name === 'web-pod-0'),
    'the free name is the cluster seed member',
  );
  t.notOk(heldBy(res), 'no longer held: nothing remembered');
});

t.test('the PodSet that held the name scaled to 0 no longer wants it: EtcdCluster web-pod takes it', async (t) => {
  const parent = etcdWebPod([], 'uid-web-pod', { heldBy: [record('web-pod-0', PODSET_OWNER)] });
  const res = await etcdSync(etcdRequest(parent, [podsetWeb(0)]), { etcd: watchedEtcd(t), now: FIXED_NOW });
  t.not(ready(res)?.reason, 'PodNameTaken');
  t.ok(res.children.some((c) => c.kind === 'Pod' && c.metadata.name === 'web-pod-0'));
});

t.test('the PodSet that held the name being deleted is not judged a holder', async (t) => {
  const parent = etcdWebPod([], 'uid-web-pod', { heldBy: [record('web-pod-0', PODSET_OWNER)] });
  const going = podsetWeb();
  going.metadata.deletionTimestamp = FIXED_NOW.toISOString();
  const res = await etcdSync(etcdRequest(parent, [going]), { etcd: watchedEtcd(t), now: FIXED_NOW });
  t.not(ready(res)?.reason, 'PodNameTaken');
});

t.test('EtcdCluster web-pod holds web-pod-*: PodSet web held remembers it (status.heldBy)', async (t) => {
  const members = [0, 1, 2].map((i) => pod(`web-pod-${i}`, ETCD_OWNER));
  const res = podsetSync(podsetRequest([etcdWebPod([0, 1, 2]), ...members]), FIXED_NOW);
  t.match(ready(res), {
    status: 'False',
    reason: 'PodNameTaken',
    message: /^Pod web-pod-0 belongs to EtcdCluster web-pod/,
  });
  t.same(
    heldBy(res),
    [0, 1, 2].map((i) => record(`web-pod-${i}`, ETCD_OWNER)),
  );
  t.same(res.children, []);
});

t.test('EtcdCluster web-pod holds web-pod-*, its member pods gone for a moment: PodSet web stays held', async (t) => {
  const status = { heldBy: [0, 1, 2].map((i) => record(`web-pod-${i}`, ETCD_OWNER)) };
  const res = podsetSync(podsetRequest([etcdWebPod([0, 1, 2])], status), FIXED_NOW);
  t.match(ready(res), {
    status: 'False',
    reason: 'PodNameTaken',
    message: /^Pod web-pod-0 belongs to EtcdCluster web-pod \(uid uid-web-pod\), which still exists and wants it/,
  });
  t.same(res.children, [], 'no pod under a member name');
  t.equal(heldBy(res)?.length, 3);
});

t.test(
  'PodSet web held, one member pod gone, the member replaced under a new name: the others keep it held',
  async (t) => {
    const status = { heldBy: [0, 1, 2].map((i) => record(`web-pod-${i}`, ETCD_OWNER)) };
    // Member web-pod-1 was replaced by web-pod-3: the cluster no longer wants web-pod-1; web-pod-0 and -2 are gone
    // for a moment.
    const res = podsetSync(podsetRequest([etcdWebPod([0, 2, 3])], status), FIXED_NOW);
    t.match(ready(res), { reason: 'PodNameTaken', message: /^Pod web-pod-0 belongs to EtcdCluster web-pod/ });
    // Its pods do not depend on one another: the name the cluster let go is made, the two it still wants are not.
    t.same(
      res.children.map((c) => c.metadata.name),
      ['web-pod-1'],
    );
    // Every member name released (the cluster's members all replaced, or the cluster made again): the PodSet runs.
    const free = podsetSync(podsetRequest([etcdWebPod([3, 4, 5])], status), FIXED_NOW);
    t.not(ready(free)?.reason, 'PodNameTaken');
    t.same(
      free.children.map((c) => c.metadata.name),
      ['web-pod-0', 'web-pod-1', 'web-pod-2'],
    );
    t.notOk(heldBy(free));
    const remade = podsetSync(podsetRequest([etcdWebPod([0, 1, 2], 'uid-web-pod-new')], status), FIXED_NOW);
    t.not(ready(remade)?.reason, 'PodNameTaken', 'an EtcdCluster made again (a new UID) is not the holder remembered');
  },
);

t.test('PodSet web held tells kubectl describe who holds the name (a Warning Event)', async (t) => {
  const status = { heldBy: [record('web-pod-0', ETCD_OWNER)] };
  const events: EventSpec[] = [];
  await runHook(podset, 'sync', podsetRequest([etcdWebPod([0])], status), {
    now: FIXED_NOW,
    services: { events: () => ({ record: async (_p: unknown, e: EventSpec[]) => void events.push(...e) }) },
  });
  t.match(
    events.find((e) => e.reason === 'PodNameTaken'),
    { type: 'Warning', note: /Pod web-pod-0 belongs to EtcdCluster web-pod \(uid uid-web-pod\)/ },
  );
});

t.test(
  'MySQLCluster db and EtcdCluster db-mysql: the one held stays held while the holder is gone for a moment',
  async (t) => {
    const etcd = etcdParent({ size: 1 }, { memberList: [{ name: 'db-mysql-0', healthy: true }] });
    etcd.metadata = { ...etcd.metadata, name: 'db-mysql', namespace: 'shop', uid: 'uid-db-mysql' };
    const owner = { apiVersion: ETCD_API, kind: 'EtcdCluster', name: 'db-mysql', uid: 'uid-db-mysql' };
    const member = {
      ...pod('db-mysql-0', owner),
      metadata: { ...pod('db-mysql-0', owner).metadata, namespace: 'shop' },
    };
    const mysql = () => {
      const req = request('mysqlcluster', { size: 1, version: '8.0' });
      req.parent.metadata = { ...req.parent.metadata, name: 'db', namespace: 'shop', uid: 'uid-db' };
      return req;
    };
    // The member exists: the MySQLCluster is held, and remembers the EtcdCluster.
    const first = mysqlSync({ ...mysql(), related: objectMap([etcd, member]) }, FIXED_NOW);
    t.match(ready(first), { reason: 'PodNameTaken', message: /^Pod db-mysql-0 belongs to EtcdCluster db-mysql/ });
    t.same(heldBy(first), [record('db-mysql-0', owner)]);
    // The member's pod gone for a moment: no StatefulSet (it would make db-mysql-0 at once).
    const req = mysql();
    req.parent.status = { heldBy: heldBy(first) };
    const res = mysqlSync({ ...req, related: objectMap([etcd]) }, FIXED_NOW);
    t.match(ready(res), { reason: 'PodNameTaken', message: /which still exists and wants it/ });
    t.notOk(
      res.children.some((c) => c.kind === 'StatefulSet'),
      'no StatefulSet',
    );

    // And the other way: EtcdCluster db-mysql held by MySQLCluster db's member, gone for a moment.
    const mysqlOwner = { apiVersion: MYSQL_API, kind: 'MySQLCluster', name: 'db', uid: 'uid-db' };
    const held = etcdParent({ size: 1 }, { heldBy: [record('db-mysql-0', mysqlOwner)] });
    held.metadata = { ...held.metadata, name: 'db-mysql', namespace: 'shop', uid: 'uid-db-mysql' };
    const db = { ...mysql().parent, spec: { size: 1, version: '8.0' } };
    const back = await etcdSync(etcdRequest(held, [db]), { etcd: watchedEtcd(t), now: FIXED_NOW });
    t.match(ready(back), {
      reason: 'PodNameTaken',
      message: /^Pod db-mysql-0 belongs to MySQLCluster db \(uid uid-db\)/,
    });
    t.same(back.children, []);
  },
);

t.test('customize asks for the parents whose pods can take a pod name, by name, in the namespace', async (t) => {
  const rules = (hooks: typeof podset | typeof etcdcluster | typeof mysqlcluster, parent: ParentObject) =>
    hooks.customize!({ controller: {}, parent } as any, {} as never).relatedResources;
  t.same(podHolderRules(podsetWeb()), [
    { apiVersion: PODSET_API, resource: 'podsets', namespace: 'ns', names: ['web-pod'] },
    { apiVersion: ETCD_API, resource: 'etcdclusters', namespace: 'ns', names: ['web', 'web-pod'] },
    { apiVersion: MYSQL_API, resource: 'mysqlclusters', namespace: 'ns', names: ['web', 'web-pod'] },
  ]);
  t.same(
    podHolderRules(etcdWebPod()),
    [
      { apiVersion: PODSET_API, resource: 'podsets', namespace: 'ns', names: ['web', 'web-pod'] },
      { apiVersion: MYSQL_API, resource: 'mysqlclusters', namespace: 'ns', names: ['web-pod'] },
    ],
    'an EtcdCluster asks for no other EtcdCluster (their members never share a name)',
  );
  for (const [hooks, parent] of [
    [podset, podsetWeb()],
    [etcdcluster, etcdWebPod()],
    [mysqlcluster, { ...request('mysqlcluster', { size: 1 }).parent, metadata: { name: 'db', namespace: 'shop' } }],
  ] as const) {
    const asked = rules(hooks, parent as ParentObject);
    // One rule per kind: the pod holders' names among those of the other child names' holders (lib/holders.ts).
    for (const r of podHolderRules(parent as ParentObject))
      t.ok(
        asked.some(
          (a) =>
            a.apiVersion === r.apiVersion &&
            a.resource === r.resource &&
            a.namespace === r.namespace &&
            (a.names === undefined || r.names!.every((n) => a.names!.includes(n))),
        ),
        `${r.resource} ${r.names!.join(',')} asked for`,
      );
  }
});
