// Memcached and MySQLCluster tell `Created` ("created Deployment x of 3 pods and Service x-memcached", "created
// StatefulSet ...") at every sync that does not observe their workload yet (hooks/memcached/sync.ts memcachedEvents,
// hooks/mysqlcluster/sync.ts mysqlEvents: `!had`). When the API server refuses to create it (a ResourceQuota on
// `count/deployments.apps` or `count/statefulsets.apps`, an admission webhook, a policy engine), nothing was created,
// yet every sync says it was: `kubectl describe` shows "Normal Created ... created Deployment x" again and again (one
// Event per ten minutes with a growing count) for an object that does not exist, beside the Warning that says it is
// missing. An Event says what happened once: a creation that was not seen is not told again as done.
import t from 'tap';
import { memcached } from '../../hooks/memcached/index.js';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';
import type { EventSpec } from '../../lib/events.js';
import type { CompositeHookDefinition } from '../../lib/hook.js';
import type { CompositeSyncRequest } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import { FIXED_NOW, request } from '../fixtures/requests.js';

async function told(def: CompositeHookDefinition, req: CompositeSyncRequest, now: Date) {
  const events: EventSpec[] = [];
  const res = await runHook(def, 'sync', req, {
    now,
    services: { randomSecret: () => 'pw', events: () => ({ record: async (_p, e) => void events.push(...e) }) },
  });
  return { res, events };
}

for (const [kind, def, spec, workload] of [
  ['memcached', memcached, { size: 3 }, 'Deployment'],
  ['mysqlcluster', mysqlcluster, { size: 3, version: '8.0' }, 'StatefulSet'],
] as const) {
  t.test(`a ${kind} whose ${workload} is never created does not keep saying it created it`, async (t) => {
    const first = await told(def, request(kind, spec), FIXED_NOW);
    t.ok(
      first.events.some((e) => e.reason === 'Created'),
      'the first answer asks for it, and says so',
    );
    // The API server refused it: the next syncs observe no workload (Secrets and Services may exist; not needed).
    let status = first.res.status;
    const later: string[] = [];
    for (const minutes of [1, 15, 30]) {
      const req = request(kind, spec);
      req.parent.status = status as never;
      const next = await told(def, req, new Date(FIXED_NOW.getTime() + minutes * 60_000));
      status = next.res.status;
      later.push(...next.events.filter((e) => e.reason === 'Created').map((e) => `${minutes} min: ${e.note}`));
    }
    t.same(later, [], `no later sync says the ${workload} was created: ${JSON.stringify(later)}`);
  });
}
