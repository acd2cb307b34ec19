// A restore's check pod is `<cluster>-restore-check`. A pod of that name that is not the cluster's (made by hand, a
// debugging pod, one left behind by an EtcdCluster of that name deleted with --cascade=orphan) cannot be created over:
// Metacontroller's create fails and tells the hook nothing. As for every other child name (lib/ownership.ts), the
// cluster asks customize for it by name, so that sync sees the holder and says so (PodNameTaken naming it), instead
// of waiting on a check pod that never comes and ending the restore with a reason that is not the cause. The sync
// already judges such a pod when it is handed one; customize never asks for it, so on a real control plane it never is.
import t from 'tap';
import { etcdcluster } from '../../hooks/etcdcluster/index.js';
import type { KubeObject, RelatedResourceRule } from '../../lib/metacontroller.js';
import { restoreObject, running } from '../fixtures/etcd-loop.js';

t.test('customize asks for the restore check pod by name, in the cluster namespace', async (t) => {
  const loop = await running({ size: 3 });
  const rules = (etcdcluster.customize as any)({ controller: {}, parent: loop.parent() }, {})
    .relatedResources as RelatedResourceRule[];
  const pods = rules.filter((r) => r.apiVersion === 'v1' && r.resource === 'pods');
  t.ok(
    pods.some((r) => r.namespace === 'ns' && (r.names ?? []).includes('e-restore-check')),
    'a pods rule names e-restore-check',
  );
});

t.test('a restore whose check pod name another owner holds: the holder is asked for and named', async (t) => {
  const loop = await running({ size: 3 });
  const foreign = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'e-restore-check',
      namespace: 'ns',
      uid: 'uid-debug',
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'debug', uid: 'uid-job-debug', controller: true }],
    },
    status: { phase: 'Running' },
  } as KubeObject;
  // What Metacontroller hands sync as related: only the objects customize asked for.
  const rules = (etcdcluster.customize as any)({ controller: {}, parent: loop.parent() }, {})
    .relatedResources as RelatedResourceRule[];
  const asked = rules.some(
    (r) => r.resource === 'pods' && (r.names === undefined || r.names.includes('e-restore-check')) && !r.labelSelector,
  );
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z'), ...(asked ? [foreign] : [])];
  const res = await loop.step();
  // Metacontroller cannot create the answered check pod over the one that exists.
  loop.children = loop.children.filter((c) => c.metadata.name !== 'e-restore-check');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the members kept');
  const said = ((res.status as any).conditions as Array<Record<string, unknown>>).find((c) =>
    /NameTaken/.test(String(c['reason'])),
  );
  t.ok(said, 'a condition says the check pod name is taken');
  t.match(String(said?.['message']), /Job debug/, 'naming the holder');
});
