// A MySQLCluster deleted and made again under its name (`kubectl replace --force -f db.yaml`, or a delete and an apply
// from CI, its old data not wanted): the garbage collector deletes the old cluster's Secret `db-mysql`, StatefulSet
// `db-mysql` and Services, but the new cluster's first sync can still see them (being deleted, or in Metacontroller's
// informer cache a moment longer): held for them, rightly (never another uid's children taken over). Once they are
// gone the names are free and nothing else wants them. Its customize never asks for a MySQLCluster of its own name
// (lib/holders.ts holderRules drops the parent's own name), so the old cluster recorded in status.heldBy is never sent;
// it cannot exist beside the new one (one object per name): it is the one replaced, gone, and the names are the new
// cluster's at the next sync, not after HOLDER_UNSEEN_SECONDS (30 minutes with no StatefulSet, no Service, no Secret).
import t from 'tap';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { mysqlSync } from '../fixtures/hooks.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';

const API = 'database.example.com/v1alpha1';
const ready = (res: CompositeSyncResponse) => ((res.status as any).conditions as any[]).find((c) => c.type === 'Ready');
const at = (seconds: number) => new Date(FIXED_NOW.getTime() + seconds * 1000);

function cluster(related: KubeObject[], status?: unknown) {
  const r = request('mysqlcluster', { size: 1, version: '8.0.40' });
  r.parent.metadata = {
    ...r.parent.metadata,
    name: 'db',
    namespace: 'shop',
    uid: 'uid-db-again',
    generation: 1,
    creationTimestamp: '2026-01-02T03:04:00Z',
  };
  if (status) r.parent.status = status as Record<string, unknown>;
  r.related = objectMap(related);
  return r;
}

/** A child of the MySQLCluster `db` that was deleted (uid `uid-db-before`), the garbage collector deleting it. */
const oldChild = (kind: string, apiVersion: string, name: string): KubeObject =>
  ({
    apiVersion,
    kind,
    metadata: {
      name,
      namespace: 'shop',
      uid: `uid-old-${kind}-${name}`,
      deletionTimestamp: '2026-01-02T03:04:00Z',
      ownerReferences: [{ apiVersion: API, kind: 'MySQLCluster', name: 'db', uid: 'uid-db-before', controller: true }],
    },
    ...(kind === 'Secret' ? { data: {} } : { spec: {} }),
  }) as unknown as KubeObject;

t.test("a MySQLCluster made again under its name serves once the old cluster's children are gone", async (t) => {
  const parentApi = cluster([]).parent.apiVersion;
  t.equal(parentApi, API, 'the parent is a MySQLCluster of this API');
  let res = mysqlSync(
    cluster([
      oldChild('Secret', 'v1', 'db-mysql'),
      oldChild('StatefulSet', 'apps/v1', 'db-mysql'),
      oldChild('Service', 'v1', 'db-mysql'),
      oldChild('Service', 'v1', 'db-mysql-headless'),
      oldChild('Service', 'v1', 'db-mysql-read'),
    ]),
    at(0),
  );
  t.match(ready(res), { status: 'False', reason: /NameTaken$/ }, 'held while the old children are there');
  t.notOk(
    res.children.some((c) => c.metadata.name === 'db-mysql'),
    "nothing of the old cluster's names is answered while they are there",
  );
  let status = res.status;
  const rules = (mysqlcluster.customize as any)({ controller: {}, parent: cluster([], status).parent }, {})
    .relatedResources as Array<{ resource: string; names?: string[] }>;
  t.notOk(
    rules.some((r) => r.resource === 'mysqlclusters' && (r.names ?? []).includes('db')),
    'customize does not ask for MySQLCluster db (its own name): the old one recorded is never sent',
  );
  // The old children are gone; the syncs that follow see none of them.
  for (const seconds of [5, 60, 300]) {
    res = mysqlSync(cluster([], status), at(seconds));
    status = res.status;
  }
  t.same(
    res.children
      .filter((c) => c.metadata.name?.startsWith('db-mysql'))
      .map((c) => `${c.kind}/${c.metadata.name}`)
      .sort(),
    [
      'Secret/db-mysql',
      'Service/db-mysql',
      'Service/db-mysql-headless',
      'Service/db-mysql-read',
      'StatefulSet/db-mysql',
    ],
    `five minutes after the old children went, its StatefulSet, Services and Secret are answered (Ready: ${ready(res).reason})`,
  );
});
