// Property tests over every hook: random and mutated requests (wrong types, missing fields, huge sizes,
// unicode names, duplicate children) never get a 5xx, never crash the server, and a malformed spec never
// answers with fewer children than were observed.
import fc from 'fast-check';
import t from 'tap';
import { hooks } from '../hooks/index.js';
import { buildApp } from '../lib/app.js';
import type { Deps } from '../lib/deps.js';
import { FIXED_NOW } from './fixtures/requests.js';

const down = () => Promise.reject(new Error('dependency down'));
const unreachable: Partial<Deps> = {
  now: () => FIXED_NOW,
  etcdClient: () => ({ memberList: down, memberAdd: down, memberRemove: down, memberPromote: down, health: async () => ({ healthy: false }) }),
  aws: async () => {
    const api: any = new Proxy({}, { get: (_o, p) => (p === 'withDeadline' ? () => api : p === 'region' ? 'us-east-1' : p === 'endpoint' || p === 'then' ? undefined : down) });
    return api;
  },
  kube: () => ({ get: down, addEphemeralContainers: down }),
};

const app = buildApp({ deps: unreachable, hookDeadlineMs: 3000 });
t.teardown(() => app.close());

const name = fc.oneof(fc.constant('a'), fc.string({ minLength: 1, maxLength: 80 }), fc.constant('ünïcødé-名前'), fc.constant('x'.repeat(300)));
const badValue = fc.oneof(
  fc.constant(null),
  fc.integer({ min: -1_000_000_000, max: -1 }),
  fc.constant(Number.MAX_SAFE_INTEGER),
  fc.constant(1e308),
  fc.double(),
  fc.string(),
  fc.boolean(),
  fc.array(fc.anything(), { maxLength: 3 }),
  fc.object({ maxDepth: 2 }),
);
const spec = fc.oneof(
  fc.dictionary(fc.constantFrom('size', 'version', 'image', 'bucketName', 'label', 'selector', 'etcdEndpoints', 's3', 'storage', 'paused', 'etcdCluster', 'port', 'command'), badValue, { maxKeys: 5 }),
  fc.anything(),
);

function observedChildren(names: string[]) {
  const map: Record<string, Record<string, unknown>> = {};
  names.forEach((n, i) => {
    for (const [kind, apiVersion] of [['Pod', 'v1'], ['Service', 'v1'], ['Secret', 'v1'], ['StatefulSet', 'apps/v1']] as const) {
      const group = (map[`${kind}.${apiVersion}`] ??= {});
      // Duplicates: the same name under two keys (v1 and v2 keying at once).
      group[n] = { apiVersion, kind, metadata: { name: n, namespace: 'default', uid: `u${i}` }, status: { phase: 'Running' } };
      if (i === 0) group[`default/${n}`] = group[n]!;
    }
  });
  return map;
}

const composite = hooks.filter((h) => h.type === 'composite');

t.test('malformed specs: no 5xx, every observed child kept', async (t) => {
  let cases = 0;
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...composite), spec, fc.array(name, { minLength: 1, maxLength: 4 }), async (def, s, names) => {
      if (def.type !== 'composite') return true;
      const children = observedChildren([...new Set(names)]);
      const observedCount = Object.values(children).reduce((n, g) => n + new Set(Object.values(g)).size, 0);
      const res = await app.inject({
        method: 'POST',
        url: `/hooks/${def.name}/sync`,
        payload: {
          controller: {},
          parent: { apiVersion: `${def.resource.group}/${def.resource.version}`, kind: def.resource.kind, metadata: { name: 'fuzz', namespace: 'default', generation: 2 }, spec: s },
          children,
        },
      });
      cases++;
      if (res.statusCode >= 500) throw new Error(`${def.name}: ${res.statusCode} ${res.body}`);
      if (res.statusCode !== 200) return true;
      const body = res.json();
      const ready = body.status?.conditions?.find((c: any) => c.type === 'Ready');
      if (ready?.reason === 'InvalidSpec' && body.children.length < observedCount - 0) {
        // Objects keyed twice are one object: the answer lists each once.
        const unique = new Set(body.children.map((c: any) => `${c.kind}/${c.metadata.name}`)).size;
        const expected = new Set(Object.values(children).flatMap((g) => Object.values(g).map((o: any) => `${o.kind}/${o.metadata.name}`))).size;
        if (unique < expected) throw new Error(`${def.name} dropped children on an invalid spec: ${unique} < ${expected}`);
      }
      return true;
    }),
    { numRuns: 300 },
  );
  t.ok(cases >= 300, `${cases} requests`);
});

t.test('random bodies and envelopes: 4xx, never 5xx', async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...hooks.map((h) => `/hooks/${h.name}/sync`)), fc.anything(), async (url, body) => {
      const res = await app.inject({ method: 'POST', url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      if (res.statusCode >= 500) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
      return true;
    }),
    { numRuns: 300 },
  );
  const huge = await app.inject({
    method: 'POST',
    url: '/hooks/podset/sync',
    payload: { controller: {}, parent: { apiVersion: 'apps.jicki.cn/v1alpha1', kind: 'PodSet', metadata: { name: 'p' }, spec: { size: 2 ** 31 } } },
  });
  t.equal(huge.statusCode, 200);
  t.match(huge.json().status.conditions[0], { reason: 'InvalidSpec' });
  t.pass('300 random bodies');
});

t.test('a body over the limit is a 413', async (t) => {
  const small = buildApp({ bodyLimit: 1000 });
  t.teardown(() => small.close());
  const res = await small.inject({ method: 'POST', url: '/hooks/podset/sync', payload: { controller: {}, pad: 'x'.repeat(2000) } });
  t.equal(res.statusCode, 413);
});
