// A Memcached deleted and made again under its name (`kubectl replace --force -f memcached.yaml`, or a delete and an
// apply from CI): the garbage collector deletes the old Memcached's Deployment `web` and Service `web-memcached`, but
// the new Memcached's first sync can still see them (being deleted, or in Metacontroller's informer cache a moment
// longer): held for them, rightly. Once they are gone the names are free and nothing else wants them. Its customize
// never asks for a Memcached of its own name (lib/holders.ts holderRules drops the parent's own name), so the old
// Memcached it recorded in status.heldBy is never sent: it must not be taken for a holder that exists but is not sent
// (HOLDER_UNSEEN_SECONDS: 30 minutes with no Deployment and no Service, the cache down).
import t from 'tap';
import type { CompositeSyncResponse, KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { memcachedSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';
import { memcached } from '../../hooks/memcached/index.js';

const API = 'cache.example.com/v1alpha1';
const ready = (res: CompositeSyncResponse) => ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');
const at = (seconds: number) => new Date(FIXED_NOW.getTime() + seconds * 1000);

const parent = (uid: string, status?: unknown): ParentObject =>
  ({
    apiVersion: API,
    kind: 'Memcached',
    metadata: { name: 'web', namespace: 'ns', uid, generation: 1, creationTimestamp: '2026-01-02T03:04:05Z' },
    spec: { size: 2 },
    ...(status ? { status } : {}),
  }) as ParentObject;

/** A child of the Memcached `web` that was deleted (uid `uid-old`), the garbage collector deleting it. */
const oldChild = (kind: string, apiVersion: string, name: string): KubeObject =>
  ({
    apiVersion,
    kind,
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-old-${name}`,
      deletionTimestamp: '2026-01-02T03:04:05Z',
      ownerReferences: [{ apiVersion: API, kind: 'Memcached', name: 'web', uid: 'uid-old', controller: true }],
    },
    spec: {},
  }) as KubeObject;

t.test("a Memcached made again under its name serves once the old Memcached's children are gone", async (t) => {
  const base = request('memcached', {});
  let res = await memcachedSync(
    {
      ...base,
      parent: parent('uid-new'),
      children: {},
      related: objectMap([oldChild('Deployment', 'apps/v1', 'web'), oldChild('Service', 'v1', 'web-memcached')]),
    },
    at(0),
  );
  t.match(ready(res), { status: 'False', reason: 'DeploymentNameTaken' }, 'held while the old children are there');
  let status = res.status;
  const rules = (memcached.customize as any)({ controller: {}, parent: parent('uid-new', status) }, {})
    .relatedResources as Array<{ resource: string; names?: string[] }>;
  t.notOk(
    rules.some((r) => r.resource === 'memcacheds' && (r.names ?? []).includes('web')),
    'customize does not ask for Memcached web (its own name): the old one recorded is never sent',
  );
  // The old Deployment and Service are gone; the syncs that follow see neither.
  for (const seconds of [5, 60, 300]) {
    res = await memcachedSync({ ...base, parent: parent('uid-new', status), children: {}, related: {} }, at(seconds));
    status = res.status;
  }
  t.same(
    res.children.map((c) => `${c.kind}/${c.metadata.name}`).sort(),
    ['Deployment/web', 'NetworkPolicy/web-memcached', 'Service/web-memcached'],
    `five minutes after the old children went, its Deployment, Service and NetworkPolicy are answered (Ready: ${ready(res).reason})`,
  );
});
