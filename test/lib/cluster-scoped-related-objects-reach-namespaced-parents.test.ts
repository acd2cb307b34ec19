// A namespaced parent whose customize asks for a cluster-scoped object (the StorageClass its claims name) gets it only
// where Metacontroller sends it. Metacontroller v4.17.2 lists it, but under hook version v1 it builds a namespaced
// parent's sync request from the related objects of the parent's namespace alone (pkg/controller/common/api/v2/
// common.go `Convert`, L159-164): the class's group arrived empty, and a MySQLCluster or EtcdCluster naming a class
// waited for good (`StorageClassNotSeen`, no StatefulSet, no member claim). Version v2 sends every related object keyed
// `namespace/name`, a cluster-scoped one by its name. So every controller whose customize asks for a cluster-scoped
// resource has its sync and finalize at version v2 (as shipped; v1.5.20, which has no version, sends the class without
// it), and its sync makes the claims of a class sent so. The end-to-end scenario "named storage class" runs it on both
// releases.
import t from 'tap';
import { operators } from '../../main/operators.js';
import { controller } from '../../lib/manifests.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';
import { fastClass } from '../fixtures/storage-classes.js';

/** Kubernetes' cluster-scoped resources a customize rule could name. */
const CLUSTER_SCOPED = new Set([
  'storageclasses',
  'persistentvolumes',
  'nodes',
  'namespaces',
  'csidrivers',
  'volumeattachments',
  'priorityclasses',
  'clusterroles',
  'clusterrolebindings',
  'customresourcedefinitions',
]);

/** The richest spec each kind's customize reads (as test/operators/customize-per-parent.test.ts). */
const SPEC = {
  size: 3,
  version: '8.0',
  storage: { size: '1Gi', storageClassName: 'fast' },
  pod: {
    persistentVolumeClaimSpec: {
      storageClassName: 'fast',
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '1Gi' } },
    },
  },
};

const target = { kind: 'url' as const, base: 'http://127.0.0.1:1' };

t.test('a controller whose customize asks for a cluster-scoped object syncs at hook version v2', async (t) => {
  const asking: string[] = [];
  for (const def of operators as any[]) {
    if (!def.customize || def.type !== 'composite') continue;
    const { group, version, kind } = def.resource;
    const parent = {
      apiVersion: `${group}/${version}`,
      kind,
      metadata: { name: 'x', namespace: 'team-a', uid: 'u-x', generation: 1 },
      spec: SPEC,
    };
    const rules = def.customize({ controller: {}, parent }, {}).relatedResources as Array<{ resource: string }>;
    if (!rules.some((r) => CLUSTER_SCOPED.has(r.resource))) continue;
    asking.push(def.name);
    const hooks = (controller(def, { target }) as any).spec.hooks;
    t.equal(hooks.sync?.version, 'v2', `${def.name}: sync at v2`);
    if (hooks.finalize) t.equal(hooks.finalize.version, 'v2', `${def.name}: finalize at v2`);
    t.equal(
      hooks.customize?.version,
      undefined,
      `${def.name}: customize as before (v1: rules listed in its namespace)`,
    );
    const legacy = (controller(def, { target, hookVersions: false }) as any).spec.hooks;
    t.notOk('version' in legacy.sync, `${def.name}: no version for a release without the field (v1.5.x)`);
  }
  t.same(asking.sort(), ['etcdcluster', 'mysqlcluster'], 'the kinds that ask for the StorageClass their claims name');
});

t.test('a MySQLCluster makes its StatefulSet of the class as v2 sends it, and waits as v1 sent it', async (t) => {
  const spec = { size: 1, version: '8.0', storage: { size: '1Gi', storageClassName: 'fast' } };
  const templateClass = (res: { children: unknown[] }) =>
    (res.children.find((c: any) => c.kind === 'StatefulSet') as any)?.spec?.volumeClaimTemplates?.[0]?.spec
      ?.storageClassName;
  // v2 (UniformObjectMap): a cluster-scoped object keyed by its name.
  const v2 = request('mysqlcluster', spec) as any;
  v2.related = { ...v2.related, 'StorageClass.storage.k8s.io/v1': { fast: fastClass } };
  t.equal(templateClass(mysqlSync(v2, FIXED_NOW)), 'fast', 'v2: the claim template names the class');
  // v1 on v4.17.2 (Convert): the group initialised, the class left out.
  const v1 = request('mysqlcluster', spec) as any;
  v1.related = { ...v1.related, 'StorageClass.storage.k8s.io/v1': {} };
  const held = mysqlSync(v1, FIXED_NOW);
  t.equal(templateClass(held), undefined, 'v1: no StatefulSet');
  t.match(
    (held.status as any).conditions.find((c: any) => c.type === 'Ready'),
    { status: 'False', reason: 'StorageClassNotSeen' },
    'v1: the cluster waits for the class',
  );
});
