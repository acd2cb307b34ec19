// Request bodies are not scanned for depth as they arrive (lib/json.ts parseHookBody: V8's JSON.parse does not
// recurse); nesting is bounded where code walks request data: the parent or object a hook is about (before the
// hook), every observed object handed back (keepObserved), and a stack overflow on any other part of a request
// nested past MAX_JSON_DEPTH is that request's 400. Whatever part of a request of any hook nests 200 000 levels,
// the answer is never a 5xx.
import { Type } from '@sinclair/typebox';
import fc from 'fast-check';
import t from 'tap';
import { buildApp } from '../../lib/app.js';
import { jsonDepthExceeds, MAX_JSON_DEPTH, valueDepthExceeds } from '../../lib/json.js';
import { defineComposite } from '../../lib/operator.js';
import { specParser } from '../../lib/spec.js';
import { resource as podsetResource } from '../../hooks/podset/schema.js';
import { operators } from '../../main/operators.js';
import { testApp } from '../fixtures/app.js';
import { dependenciesDown, down } from '../fixtures/dependencies-down.js';
import {
  debugInjectorRequest,
  debugToolRequest,
  etcdClusterRequest,
  example,
  FIXED_NOW,
} from '../fixtures/requests.js';

const DEEP = 200_000;
/** A body whose `"DEEP"` string is replaced by `levels` nested objects, as text (the value is never built). */
const nested = (req: unknown, levels: number) =>
  JSON.stringify(req).replace('"DEEP"', '{"a":'.repeat(levels) + '1' + '}'.repeat(levels));

t.test('valueDepthExceeds says what jsonDepthExceeds says of the same JSON, at any depth', async (t) => {
  fc.assert(
    fc.property(fc.json({ maxDepth: 6 }), fc.integer({ min: 0, max: 7 }), (text, limit) => {
      return valueDepthExceeds(JSON.parse(text), limit) === jsonDepthExceeds(text, limit);
    }),
    { numRuns: 500 },
  );
  const deep = JSON.parse('['.repeat(DEEP) + ']'.repeat(DEEP)) as unknown;
  t.equal(valueDepthExceeds(deep, MAX_JSON_DEPTH), true, `${DEEP} levels walked without recursion`);
  t.equal(valueDepthExceeds(JSON.parse('['.repeat(1000) + ']'.repeat(1000)), 1000), false, '1000 levels');
  t.equal(valueDepthExceeds(JSON.parse('['.repeat(1001) + ']'.repeat(1001)), 1000), true, '1001 levels');
  t.equal(valueDepthExceeds(JSON.parse('{"__proto__":{"a":{}}}'), 2), true, 'a __proto__ key is walked as data');
});

/** Every dependency answers, with a failure: the hooks answer what they do when one is down. */
const failing: any = new Proxy(
  {},
  {
    get: (_o, p) =>
      p === 'then' || p === 'endpoint'
        ? undefined
        : p === 'region'
          ? 'us-east-1'
          : p === 'withDeadline' || p === 'withSignal'
            ? () => failing
            : down,
  },
);
const app = testApp({
  services: { ...dependenciesDown.services, kube: () => failing },
  clients: { ...dependenciesDown.clients, s3: { aws: async () => failing } },
  hookDeadlineMs: 2000,
  allowUnauthenticated: true,
});
t.teardown(() => app.close());
const post = (url: string, payload: string) =>
  app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } });

t.test('a parent nested past the limit is a 400 before its hook runs, for every kind', async (t) => {
  for (const kind of ['memcached', 'podset', 'mysqlcluster']) {
    const req = example(`${kind}-sync`) as any;
    req.parent.spec.extra = 'DEEP';
    for (const [levels, expected] of [
      [MAX_JSON_DEPTH - 10, 200],
      [MAX_JSON_DEPTH + 10, 400],
      [DEEP, 400],
    ] as const) {
      const res = await post(`/hooks/${kind}/sync`, nested(req, levels));
      t.equal(res.statusCode, expected, `${kind}, spec ${levels} levels deep: ${res.statusCode}`);
      if (expected === 400) t.match(res.json().message, /nests deeper than 1000 levels/);
    }
  }
});

t.test('an observed child nested 200 000 levels that is only read is answered, for every kind', async (t) => {
  for (const kind of ['memcached', 'podset', 'mysqlcluster']) {
    const req = example(`${kind}-sync`) as any;
    const pods: Record<string, any> = ((req.children ??= {})['Pod.v1'] ??= {});
    const child =
      Object.values(pods)[0] ?? (pods['deep'] = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'deep' } });
    child.spec = { ...child.spec, affinity: 'DEEP' };
    const res = await post(`/hooks/${kind}/sync`, nested(req, DEEP));
    t.equal(res.statusCode, 200, `${kind}: ${res.statusCode}`);
    t.notOk(jsonDepthExceeds(res.body, MAX_JSON_DEPTH), `${kind}: the answer does not carry the nesting`);
  }
});

/** A request of every route of every operator, as far as the tests know how to make one. */
function requests(): Array<{ url: string; body: any }> {
  const out: Array<{ url: string; body: any }> = [];
  for (const def of operators) {
    for (const hook of ['sync', 'finalize', 'customize'] as const) {
      if (hook === 'finalize' && !def.finalize) continue;
      if (hook === 'customize' && !def.customize) continue;
      const url = `/hooks/${def.name}/${hook}`;
      if (def.type === 'decorator') {
        out.push({ url, body: { ...debugInjectorRequest(), finalizing: hook === 'finalize' } });
        continue;
      }
      const known: Record<string, () => any> = {
        memcached: () => example('memcached-sync'),
        podset: () => example('podset-sync'),
        mysqlcluster: () => example('mysqlcluster-sync'),
        etcdcluster: etcdClusterRequest,
        podbuggertool: debugToolRequest,
      };
      const body = known[def.name]?.() ?? {
        controller: {},
        parent: {
          apiVersion: `${def.resource.group}/${def.resource.version}`,
          kind: def.resource.kind,
          metadata: { name: 'n', namespace: 'default', uid: 'u', generation: 1 },
          spec: {},
        },
        children: {},
        related: {},
      };
      out.push({ url, body: { ...body, finalizing: hook === 'finalize' } });
    }
  }
  return out;
}

t.test('a part of any hook request nested 200 000 levels is never a 5xx', async (t) => {
  const places: Record<string, (body: any) => void> = {
    controller: (b) => (b.controller = { spec: 'DEEP' }),
    'an unknown top-level field': (b) => (b.extra = 'DEEP'),
    // A field of the parent (or object) that its schema leaves open: its status.
    'the parent or object': (b) => ((b.parent ?? b.object).status = { deep: 'DEEP' }),
    'an observed child': (b) => {
      const group = (b.children ??= b.attachments ?? {});
      group['ConfigMap.v1'] = {
        deep: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'deep' }, data: 'DEEP' },
      };
    },
    'a related object': (b) =>
      ((b.related ??= {})['ConfigMap.v1'] = {
        deep: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'deep', namespace: 'default' }, data: 'DEEP' },
      }),
  };
  let served = 0;
  for (const { url, body } of requests()) {
    for (const [where, place] of Object.entries(places)) {
      const req = structuredClone(body);
      place(req);
      const shallow = await post(url, nested(req, 1));
      t.ok(shallow.statusCode < 500, `${url}, ${where}, one level: ${shallow.statusCode} ${shallow.body}`);
      const res = await post(url, nested(req, DEEP));
      t.ok(res.statusCode < 500, `${url}, ${where}: ${res.statusCode} ${res.statusCode >= 500 ? res.body : ''}`);
      if (res.statusCode === 400) t.match(res.json().message, /nests deeper than 1000 levels|invalid hook request/);
      served++;
    }
  }
  t.ok(served >= 40, `${served} requests`);
});

t.test(
  'a stack overflow is the request’s 400 when it nests past the limit, and stays a 500 when it does not',
  async (t) => {
    // An operator that walks its observed children recursively, and one whose hook overflows the stack on anything (a
    // bug): only the first is the request's fault.
    const op = (name: string, sync: (observed: unknown) => void) =>
      defineComposite({
        name,
        resource: { ...podsetResource, kind: name, plural: `${name}s`, singular: name },
        spec: specParser(Type.Object({})),
        childResources: [],
        sync: ({ observed }) => {
          sync(observed);
          return { status: {}, children: [] };
        },
      });
    const forever = (n: number): number => forever(n + 1) + 1;
    const walk = (value: unknown): number =>
      value !== null && typeof value === 'object' ? 1 + Math.max(0, ...Object.values(value).map(walk)) : 0;
    const cloning = op('cloning', (observed) => walk(observed));
    const looping = op('looping', () => forever(0));
    const served = buildApp({ operators: [cloning, looping], services: { now: () => FIXED_NOW } });
    t.teardown(() => served.close());
    const req = (name: string, data: unknown) => ({
      controller: {},
      parent: { apiVersion: 'x/v1', kind: name, metadata: { name: 'p', namespace: 'default' }, spec: {} },
      children: { 'ConfigMap.v1': { c: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data } } },
    });
    const send = (url: string, payload: string) =>
      served.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } });

    const deep = await send('/hooks/cloning/sync', nested(req('cloning', 'DEEP'), DEEP));
    t.equal(deep.statusCode, 400, 'a child nested 200 000 levels that the hook walks: 400');
    t.match(deep.json().message, /nests deeper than 1000 levels/);
    t.equal((await send('/hooks/cloning/sync', nested(req('cloning', 'DEEP'), 500))).statusCode, 200, '500 levels');
    const bug = await send('/hooks/looping/sync', JSON.stringify(req('looping', 'x')));
    t.equal(bug.statusCode, 500, 'a hook that overflows the stack on a shallow request is a bug: 500');
  },
);
