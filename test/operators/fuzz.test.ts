// Property tests over every hook: random and mutated requests (wrong types, missing fields, huge sizes,
// unicode names, duplicate children) never get a 5xx, never crash the server, and a malformed spec never
// answers with fewer children than were observed.
import fc from 'fast-check';
import t from 'tap';
import { operators as hooks } from '../../main/operators.js';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { testApp as buildApp } from '../fixtures/app.js';
import { crd } from '../../lib/manifests.js';
import { dependenciesDown } from '../fixtures/dependencies-down.js';
import { example } from '../fixtures/requests.js';

// The opt-out: these cases are about what hooks do with hostile input, not about who calls them (test/lib/hostile-requests.test.ts).
const app = buildApp({ ...dependenciesDown, hookDeadlineMs: 3000, allowUnauthenticated: true });
t.teardown(() => app.close());

const name = fc.oneof(
  fc.constant('a'),
  fc.string({ minLength: 1, maxLength: 80 }),
  fc.constant('ünïcødé-名前'),
  fc.constant('x'.repeat(300)),
);
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
  fc.dictionary(
    fc.constantFrom(
      'size',
      'version',
      'image',
      'bucketName',
      'label',
      'selector',
      'etcdEndpoints',
      's3',
      'storage',
      'paused',
      'etcdCluster',
      'port',
      'command',
    ),
    badValue,
    { maxKeys: 5 },
  ),
  fc.anything(),
);

function observedChildren(names: string[]) {
  const map: Record<string, Record<string, unknown>> = {};
  names.forEach((n, i) => {
    for (const [kind, apiVersion] of [
      ['Pod', 'v1'],
      ['Service', 'v1'],
      ['Secret', 'v1'],
      ['StatefulSet', 'apps/v1'],
    ] as const) {
      const group = (map[`${kind}.${apiVersion}`] ??= {});
      // Duplicates: the same name under two keys (v1 and v2 keying at once).
      group[n] = {
        apiVersion,
        kind,
        metadata: { name: n, namespace: 'default', uid: `u${i}` },
        status: { phase: 'Running' },
      };
      if (i === 0) group[`default/${n}`] = group[n]!;
    }
  });
  return map;
}

const composite = hooks.filter((h) => h.type === 'composite');

/**
 * The spec schema of each kind's generated CRD, compiled by Ajv: an oracle that does not ask the hook. A spec it
 * rejects would be refused by the API server, so the hook (called directly) must refuse it too and keep every child.
 */
const crdSpecValid = new Map(
  composite.map((def) => {
    if (def.type !== 'composite') throw new Error('composite');
    const schema = (crd(def.resource) as any).spec.versions[0].schema.openAPIV3Schema.properties.spec;
    const ajv = new Ajv({ strict: false, allErrors: false });
    (addFormats as unknown as (a: Ajv) => void)(ajv);
    return [def.name, ajv.compile(schema)] as const;
  }),
);

t.test(
  'malformed specs: no 5xx; a spec the CRD schema rejects is InvalidSpec with every observed child kept',
  async (t) => {
    const failures: string[] = [];
    let rejected = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...composite),
        spec,
        fc.array(name, { minLength: 1, maxLength: 4 }),
        async (def, s, names) => {
          if (def.type !== 'composite') return true;
          const children = observedChildren([...new Set(names)]);
          const res = await app.inject({
            method: 'POST',
            url: `/hooks/${def.name}/sync`,
            payload: {
              controller: {},
              parent: {
                apiVersion: `${def.resource.group}/${def.resource.version}`,
                kind: def.resource.kind,
                metadata: { name: 'fuzz', namespace: 'default', generation: 2 },
                spec: s,
              },
              children,
            },
          });
          if (res.statusCode >= 500) failures.push(`${def.name}: ${res.statusCode} ${res.body.slice(0, 200)}`);
          if (res.statusCode !== 200) return true;
          const body = res.json();
          const ready = body.status?.conditions?.find((c: any) => c.type === 'Ready');
          const crdRejects = !(
            typeof s === 'object' &&
            s !== null &&
            !Array.isArray(s) &&
            crdSpecValid.get(def.name)!(structuredClone(s))
          );
          if (crdRejects) rejected++;
          if (crdRejects || ready?.reason === 'InvalidSpec') {
            if (crdRejects && ready?.reason !== 'InvalidSpec')
              failures.push(
                `${def.name}: a spec the CRD rejects was not InvalidSpec: ${JSON.stringify(s).slice(0, 120)}`,
              );
            // Objects keyed twice are one object: the answer lists each once.
            const unique = new Set(body.children.map((c: any) => `${c.kind}/${c.metadata.name}`)).size;
            const expected = new Set(
              Object.values(children).flatMap((g) => Object.values(g).map((o: any) => `${o.kind}/${o.metadata.name}`)),
            ).size;
            if (unique < expected)
              failures.push(`${def.name} dropped children on an invalid spec: ${unique} < ${expected}`);
          }
          return true;
        },
      ),
      { numRuns: 300 },
    );
    t.same(failures, []);
    t.ok(rejected > 50, `the oracle rejected ${rejected} of 300 specs (the property exercised the invalid path)`);
  },
);

t.test('random bodies and envelopes: 4xx, never 5xx', async (t) => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...hooks.map((h) => `/hooks/${h.name}/sync`)),
      fc.anything(),
      async (url, body) => {
        const res = await app.inject({
          method: 'POST',
          url,
          payload: JSON.stringify(body),
          headers: { 'content-type': 'application/json' },
        });
        if (res.statusCode >= 500) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
        return true;
      },
    ),
    { numRuns: 300 },
  );
  const huge = await app.inject({
    method: 'POST',
    url: '/hooks/podset/sync',
    payload: {
      controller: {},
      parent: {
        apiVersion: 'apps.jicki.cn/v1alpha1',
        kind: 'PodSet',
        metadata: { name: 'p' },
        spec: { size: 2 ** 31 },
      },
    },
  });
  t.equal(huge.statusCode, 200);
  t.match(huge.json().status.conditions[0], { reason: 'InvalidSpec' });
});

t.test('a body over the limit is a 413', async (t) => {
  const small = buildApp({ bodyLimit: 1000 });
  t.teardown(() => small.close());
  const res = await small.inject({
    method: 'POST',
    url: '/hooks/podset/sync',
    payload: { controller: {}, pad: 'x'.repeat(2000) },
  });
  t.equal(res.statusCode, 413);
});

// Ways around authentication: the hook paths percent-encoded at random, in absolute form with random hosts,
// with doubled slashes, dot segments, queries and fragments, sent as written over a real socket. With a token
// configured and none sent, no spelling may be served.
t.test('spellings of a hook path never reach the hook without the token (real socket)', async (t) => {
  const { connect } = await import('node:net');
  const guarded = buildApp({ ...dependenciesDown, auth: { bearer: 'fuzz-token-0123456789abcdef' } });
  t.teardown(() => guarded.close());
  await guarded.listen({ port: 0, host: '127.0.0.1' });
  const port = (guarded.server.address() as { port: number }).port;
  const send = (target: string, body: string) =>
    new Promise<number>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      socket.on('data', (d) => (text += d.toString('latin1')));
      socket.on('error', reject);
      socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
      socket.end(
        `POST ${target} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
      );
    });
  const encode = (path: string, mask: boolean[]) =>
    [...path]
      .map((c, i) => (mask[i % mask.length] && c !== '/' ? `%${c.charCodeAt(0).toString(16).padStart(2, '0')}` : c))
      .join('');
  const served: string[] = [];
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...hooks.flatMap((h) => ['sync', 'finalize', 'customize'].map((x) => `/hooks/${h.name}/${x}`))),
      fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }),
      fc.constantFrom('', 'http://127.0.0.1', 'http://evil.example:80', 'https://x', '/', '/.', '/a/..'),
      fc.constantFrom('', '/', '?a=1', '#f', '?/healthz', ';x'),
      fc.boolean(),
      async (path, mask, prefix, suffix, upper) => {
        const encoded = encode(path, mask);
        const target = `${prefix}${upper ? encoded.toUpperCase().replace(/%([0-9A-F]{2})/g, (m) => m) : encoded}${suffix}`;
        const status = await send(
          target.startsWith('/') || target.startsWith('http') ? target : `/${target}`,
          JSON.stringify(example('memcached-sync')),
        );
        if (status >= 200 && status < 400) served.push(`${target}: ${status}`);
        return true;
      },
    ),
    { numRuns: 200 },
  );
  t.same(served, [], 'no spelling was served without the token');
});

// Keys that plain objects know, inserted at random places of valid requests of every hook (every observed
// object's labels, annotations, spec and data maps, and the child maps themselves): valid data, never a 5xx, never
// refused as invalid JSON.
t.test('prototype-named keys anywhere in a request: never a 5xx, never "not valid JSON"', async (t) => {
  const keys = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineSetter__'];
  const failures: string[] = [];
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...composite),
      fc.constantFrom(...keys),
      fc.constantFrom('labels', 'annotations', 'spec', 'childKey', 'parentName', 'childName'),
      async (def, key, where) => {
        if (def.type !== 'composite') return true;
        const apiVersion = `${def.resource.group}/${def.resource.version}`;
        const children = observedChildren(['fuzz', 'fuzz-0']);
        const parent: any = {
          apiVersion,
          kind: def.resource.kind,
          metadata: {
            name: 'fuzz',
            namespace: 'default',
            generation: 1,
            labels: { MARK: 'MARK' },
            annotations: { MARK: 'MARK' },
          },
          spec: { size: 1, MARK: 'MARK' },
        };
        if (where === 'parentName') parent.metadata.name = key;
        if (where === 'childName')
          for (const g of Object.values(children)) for (const o of Object.values(g) as any[]) o.metadata.name = key;
        let text = JSON.stringify({
          controller: {},
          parent,
          children: where === 'childKey' ? { ...children, MARK: { MARK: 'MARK' } } : children,
        });
        const marker =
          where === 'labels' || where === 'annotations' || where === 'spec' || where === 'childKey'
            ? '"MARK":"MARK"'
            : undefined;
        if (marker) text = text.replaceAll(marker, `${JSON.stringify(key)}:"x"`);
        else text = text.replaceAll('"MARK":"MARK"', '"m":"m"');
        const res = await app.inject({
          method: 'POST',
          url: `/hooks/${def.name}/sync`,
          payload: text,
          headers: { 'content-type': 'application/json' },
        });
        if (res.statusCode >= 500 || /not valid JSON/.test(res.body))
          failures.push(`${def.name} ${where}=${key}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        return true;
      },
    ),
    { numRuns: 300 },
  );
  t.same(failures, []);
});

t.test('sizes around the stated maxima: served up to the maximum, InvalidSpec past it', async (t) => {
  const { MAX_SIZES: MAX_SIZE } = await import('../fixtures/hooks.js');
  const wrong: string[] = [];
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...(Object.keys(MAX_SIZE) as Array<keyof typeof MAX_SIZE>)),
      fc.integer({ min: -3, max: 3 }),
      async (kind, delta) => {
        const max = MAX_SIZE[kind];
        const size = max + delta;
        const req = example(`${kind}-sync`) as any;
        req.parent.spec.size = size;
        const res = await app.inject({ method: 'POST', url: `/hooks/${kind}/sync`, payload: req });
        const reason = res.json().status?.conditions?.find((c: any) => c.type === 'Ready')?.reason;
        if (res.statusCode !== 200 || size > max !== (reason === 'InvalidSpec'))
          wrong.push(`${kind} size ${size}: ${res.statusCode} ${reason}`);
        return true;
      },
    ),
    { numRuns: 60 },
  );
  t.same(wrong, []);
});

// Oversized dependency answers: a server answering any size, with or without Content-Length, chunked or not; the
// call succeeds exactly when the answer fits the limit, and never buffers more than a little past it.
t.test(
  'dependency answers of random sizes around the limit: read when they fit, refused when they do not',
  async (t) => {
    const { createServer } = await import('node:http');
    const { call, AnswerTooLargeError } = await import('../../lib/http.js');
    let plan = { size: 0, declare: false, chunk: 1024 };
    let sent = 0;
    const server = createServer((_req, res) => {
      sent = 0;
      res.writeHead(200, plan.declare ? { 'content-length': String(plan.size) } : {});
      const write = () => {
        while (sent < plan.size) {
          const n = Math.min(plan.chunk, plan.size - sent);
          sent += n;
          if (!res.write(Buffer.alloc(n, 0x61))) return void res.once('drain', write);
        }
        res.end();
      };
      res.on('close', () => res.removeAllListeners('drain'));
      write();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    t.teardown(() => server.close());
    const url = new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
    const wrong: string[] = [];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 200_000 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 65_536 }),
        fc.integer({ min: 1000, max: 100_000 }),
        async (size, declare, chunk, limit) => {
          plan = { size, declare, chunk };
          const result = await call(url, {
            method: 'GET',
            timeoutMs: 10_000,
            timeoutError: () => new Error('timeout'),
            maxBytes: limit,
          }).then(
            (r) => r.body.length,
            (e: unknown) => e,
          );
          if (size <= limit && result !== size) wrong.push(`size ${size} limit ${limit}: ${String(result)}`);
          if (size > limit && !(result instanceof AnswerTooLargeError))
            wrong.push(`size ${size} limit ${limit}: not refused (${String(result)})`);
          return true;
        },
      ),
      { numRuns: 150 },
    );
    t.same(wrong, []);
  },
);
