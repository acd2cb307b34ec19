// A parent being deleted is finalized whatever else is gone. Metacontroller (v1.5.20 and v4.17.2,
// pkg/controller/composite/controller.go syncParentObject) looks up the related objects customize asks for before
// it calls finalize, and a failed look-up fails the sync: at uninstall an EtcdCluster relating the EtcdRestores of
// its namespace, whose CRD was removed first, kept its finalizer and its CRD for good. So customize asks for
// nothing once the parent is being deleted, for every operator that finalizes (finalize reads only the children),
// but the pods a finalize waits for (core v1, which no uninstall removes: a Memcached's, its relatedAtDeletion).
import t from 'tap';
import { Type } from '@sinclair/typebox';
import type { CustomizeRequest } from '../../lib/metacontroller.js';
import { defineComposite } from '../../lib/operator.js';
import { specParser } from '../../lib/spec.js';
import { operators } from '../../main/operators.js';

const DELETED = '2026-11-26T01:20:16Z';

function parentOf(
  apiVersion: string,
  kind: string,
  deletionTimestamp?: string,
): NonNullable<CustomizeRequest['parent']> {
  return {
    apiVersion,
    kind,
    metadata: {
      name: 'left',
      namespace: 'team',
      uid: 'u1',
      generation: 2,
      ...(deletionTimestamp ? { deletionTimestamp } : {}),
    },
    // A cluster with TLS asks for its Secrets as well as its namespace's EtcdRestores.
    spec: {
      size: 1,
      TLS: { static: { member: { peerSecret: 'peer', serverSecret: 'server' }, operatorSecret: 'etcd-client' } },
    },
  } as never;
}

t.test(
  'every shipped operator with a finalize asks for no related objects once its parent is being deleted',
  async (t) => {
    const finalizing = operators.filter((d) => d.type === 'composite' && d.finalize && d.customize);
    t.ok(
      finalizing.some((d) => d.name === 'etcdcluster'),
      'EtcdCluster has both hooks, and relates a kind of its own',
    );
    for (const def of finalizing) {
      const { group, version, kind } = (def as any).resource;
      const apiVersion = `${group}/${version}`;
      const call = (parent: unknown) => (def.customize as any)({ controller: {}, parent }, {}).relatedResources;
      const live = call(parentOf(apiVersion, kind));
      t.ok(live.length > 0, `${def.name}: a live parent's related objects are asked for`);
      if (def.name === 'etcdcluster')
        t.ok(
          live.some((r: any) => r.resource === 'etcdrestores'),
          'etcdcluster: among them EtcdRestores, a kind of metaops whose CRD an uninstall removes with it',
        );
      const deleting = call(parentOf(apiVersion, kind, DELETED));
      if (def.name === 'memcached')
        t.ok(
          deleting.length > 0 && deleting.every((r: any) => r.apiVersion === 'v1' && r.resource === 'pods'),
          'memcached: only its pods for a parent being deleted (its finalize waits for them)',
        );
      else t.same(deleting, [], `${def.name}: none for a parent being deleted`);
    }
  },
);

t.test('the framework: a parent being deleted is asked nothing only where a finalize hook releases it', async (t) => {
  const rule = { apiVersion: 'v1', resource: 'configmaps', namespace: 'team', names: ['x'] };
  const base = {
    name: 'toy',
    resource: {
      group: 'toy.metaops.dev',
      version: 'v1',
      kind: 'Toy',
      plural: 'toys',
      singular: 'toy',
      schema: Type.Object({}),
    },
    childResources: [],
    spec: specParser(Type.Object({})),
    sync: () => ({ status: {}, children: [] }),
    customize: () => ({ relatedResources: [rule] }),
  } as any;
  const withFinalize = defineComposite({ ...base, finalize: () => ({ status: {}, children: [], finalized: true }) });
  const without = defineComposite(base);
  const ask = (def: any, parent: unknown) => def.customize({ controller: {}, parent }, {}).relatedResources;
  const live = parentOf('toy.metaops.dev/v1', 'Toy');
  const deleted = parentOf('toy.metaops.dev/v1', 'Toy', DELETED);
  t.same(ask(withFinalize, live), [rule], 'a live parent: the operator answers');
  t.same(ask(withFinalize, deleted), [], 'being deleted, with a finalize hook: nothing');
  t.same(ask(without, deleted), [rule], 'without a finalize hook nothing holds the parent: the operator answers');
  t.same(ask(withFinalize, undefined), [rule], 'a request without a parent: the operator answers');
  const pods = { apiVersion: 'v1', resource: 'pods', namespace: 'team', labelSelector: { matchLabels: { a: 'b' } } };
  const readsPods = defineComposite({
    ...base,
    finalize: () => ({ status: {}, children: [], finalized: true }),
    relatedAtDeletion: () => [rule, pods],
  });
  t.same(ask(readsPods, deleted), [pods], 'relatedAtDeletion: its pods only, no other kind');
});
