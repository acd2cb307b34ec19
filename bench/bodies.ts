// Realistic hook request bodies for the benchmark and the soak.
import { Value } from '@sinclair/typebox/value';
import { hooks } from '../hooks/index.js';
import { sync as memcachedSync } from '../hooks/memcached/sync.js';
import { sync as mysqlSync } from '../hooks/mysqlcluster/sync.js';
import { sync as podsetSync } from '../hooks/podset/sync.js';
import type { CompositeSyncRequest, ObjectMap } from '../lib/metacontroller.js';
import { asObserved, objectMap, readyPod, request } from '../test/fixtures/requests.js';

/**
 * The spec as Metacontroller sends it: the API server has filled in the CRD's defaults (generated from the same
 * schema the hook reads; test/manifests.test.ts checks that both default a spec alike).
 */
function served(kind: Kind, spec: Record<string, unknown>): Record<string, unknown> {
  const def = hooks.find((h) => h.name === kind);
  if (def?.type !== 'composite') throw new Error(kind);
  return Value.Default(def.resource.spec, spec) as Record<string, unknown>;
}

export type Kind = 'memcached' | 'podset' | 'mysqlcluster';
const now = new Date('2026-01-01T00:00:00Z');

/**
 * The maps in the order Metacontroller sends them: it encodes the request with Go's encoding/json, which
 * writes map keys sorted (by bytes; every key here is ASCII, so JavaScript's string order is the same).
 */
function goOrder(map: ObjectMap | undefined): ObjectMap {
  const sorted: ObjectMap = {};
  for (const group of Object.keys(map ?? {}).sort()) {
    const inner = map![group]!;
    sorted[group] = Object.fromEntries(Object.keys(inner).sort().map((k) => [k, inner[k]!]));
  }
  return sorted;
}

/** A realistic request with `n` children (PodSet: n pods) or `n` related pods (Memcached, MySQLCluster). */
export function body(kind: Kind, n: number): CompositeSyncRequest {
  const pods = (prefix: string) =>
    Array.from({ length: n }, (_, i) =>
      asObserved(
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `${prefix}-${i}`, namespace: 'default', labels: { 'app.kubernetes.io/instance': prefix } },
          spec: { containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'] }], restartPolicy: 'Always' },
        },
        readyPod,
      ),
    );
  let base: CompositeSyncRequest;
  if (kind === 'podset') {
    base = request('podset', served('podset', { size: n }), { children: goOrder(objectMap(pods('podset-sample'))) });
  } else {
    base = request(kind, served(kind, kind === 'memcached' ? { size: n } : { size: n, version: '8.0' }));
    const first = syncOf(kind, base);
    base.children = goOrder(objectMap(first.children.map((c) => asObserved(c, { replicas: n, readyReplicas: n, updatedReplicas: n }))));
    base.related = goOrder(objectMap(pods(kind === 'memcached' ? 'memcached-sample' : 'my-mysql')));
  }
  // A resync: the parent carries the status its previous sync wrote for these very children (Metacontroller
  // resyncs every parent periodically, and most syncs of a settled cluster are such resyncs).
  base.parent.status = syncOf(kind, base).status;
  return base;
}

/** The kind's sync function on a request, at the benchmark's fixed clock (MySQLCluster's password source fixed too). */
export function syncOf(kind: Kind, req: CompositeSyncRequest) {
  if (kind === 'podset') return podsetSync(req, now);
  return kind === 'memcached' ? memcachedSync(req, now) : mysqlSync(req, now, () => 'pw');
}

