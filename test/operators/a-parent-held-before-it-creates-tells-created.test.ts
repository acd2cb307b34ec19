// Issue 31 item 7: Events for Memcached and MySQLCluster "(created, scaled, failures)", so that kubectl describe says
// what happened. Their `Created` Event is told once (creationAsked, lib/replicas.ts): not when the previous status
// says Progressing=True `Creating`, read as "the workload was asked for before and refused". A parent held for a name
// (lib/ownership.ts heldForTakenNames) asks for nothing, yet its held status carries the sync's Progressing=True
// Creating. So a parent that is held first and then creates its workload never tells `Created`. The commonest case is
// one this issue names: a parent deleted and made again under its name (kubectl replace --force, a delete and an
// apply from CI), whose first sync sees the old parent's children being deleted (held, rightly, `<Kind>NameTaken`),
// and whose next sync creates everything: kubectl describe shows the Warning `DeploymentNameTaken` and nothing after
// it, no `Created`.
import t from 'tap';
import { memcached } from '../../hooks/memcached/index.js';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';
import type { EventSpec } from '../../lib/events.js';
import type {
  CompositeSyncRequest,
  CompositeSyncResponse,
  KubeObject,
  ParentObject,
} from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import { FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const at = (s: number) => new Date(FIXED_NOW.getTime() + s * 1000);

async function told(hook: any, req: CompositeSyncRequest, now: Date) {
  const events: EventSpec[] = [];
  const res = await runHook(hook, 'sync', req, {
    now,
    ...(hook.settings ? { settings: hook.settings({ env: {} }) } : {}),
    services: {
      randomSecret: () => 'pw',
      events: () => ({ record: async (_p: unknown, e: EventSpec[]) => void events.push(...e) }),
    },
  } as never);
  return { res, events };
}

/** A child of the parent `web` deleted before (uid `uid-old`), the garbage collector deleting it. */
const oldChild = (parent: ParentObject, kind: string, apiVersion: string, name: string): KubeObject =>
  ({
    apiVersion,
    kind,
    metadata: {
      name,
      namespace: parent.metadata.namespace,
      uid: `uid-old-${kind}-${name}`,
      deletionTimestamp: '2026-01-02T03:04:05Z',
      ownerReferences: [
        {
          apiVersion: parent.apiVersion,
          kind: parent.kind,
          name: parent.metadata.name,
          uid: 'uid-old',
          controller: true,
        },
      ],
    },
    ...(kind === 'Secret' ? { data: {} } : { spec: {} }),
  }) as unknown as KubeObject;

for (const [kind, hook, spec, olds] of [
  [
    'memcached',
    memcached,
    { size: 2 },
    [
      ['Deployment', 'apps/v1', 'web'],
      ['Service', 'v1', 'web-memcached'],
    ],
  ],
  [
    'mysqlcluster',
    mysqlcluster,
    { size: 1, version: '8.0.40' },
    [
      ['Secret', 'v1', 'web-mysql'],
      ['StatefulSet', 'apps/v1', 'web-mysql'],
      ['Service', 'v1', 'web-mysql'],
      ['Service', 'v1', 'web-mysql-headless'],
      ['Service', 'v1', 'web-mysql-read'],
    ],
  ],
] as const) {
  t.test(`${kind} made again under its name: held, then created, tells Created`, async (t) => {
    const named = (status?: unknown) => {
      const r = request(kind, spec);
      r.parent.metadata = {
        ...r.parent.metadata,
        name: 'web',
        namespace: 'ns',
        uid: 'uid-new',
        generation: 1,
        creationTimestamp: '2026-01-02T03:04:05Z',
      };
      if (status) r.parent.status = status as never;
      return r;
    };
    const first = named();
    first.related = objectMap(olds.map(([k, a, n]) => oldChild(first.parent, k, a, n)));
    const a = await told(hook, first, at(0));
    t.match(
      (a.res.status as any).conditions.find((c: any) => c.type === 'Ready'),
      { status: 'False', reason: /NameTaken$/ },
      'held while the old children are there',
    );
    // The old children are gone: everything is created.
    const b = await told(hook, named(a.res.status), at(5));
    t.ok(
      (b.res as CompositeSyncResponse).children.some(
        (c: KubeObject) => c.kind === (kind === 'memcached' ? 'Deployment' : 'StatefulSet'),
      ),
      'the workload is answered (created)',
    );
    t.ok(
      [...a.events, ...b.events].some((e) => e.reason === 'Created'),
      `a Created Event is told (told: ${JSON.stringify([...a.events, ...b.events].map((e) => e.reason))})`,
    );
  });
}
