// The hook server under attack: ways around authentication, side effects for strangers, valid Kubernetes data
// that plain objects choke on (`__proto__`, `constructor`), nesting, sizes at and past the stated limits, and what
// the log says about it. Each case was an outside finding against the server; each assertion fails without its fix.
import { connect } from 'node:net';
import t from 'tap';
import { failingClient, testApp as buildApp } from '../fixtures/app.js';
import type { AppOptions } from '../../lib/app.js';
import { captureLogs } from '../fixtures/logs.js';
import {
  debugInjectorRequest,
  debugToolRequest,
  etcdClusterRequest,
  example,
  FIXED_NOW,
} from '../fixtures/requests.js';

const TOKEN = 'attack-test-token-0123456789';

/** Starts the app on a free loopback port; its port. */
async function listening(app: ReturnType<typeof buildApp>): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as { port: number }).port;
}

/** Sends `head` + body over a fresh TCP connection exactly as written; resolves with the status code. */
function raw(port: number, head: string, body = ''): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => (text += d.toString('latin1')));
    // A server that answers before reading the body closes the connection under the writer: the answer counts.
    socket.on('error', (err) => (/^HTTP\/1\.1 \d{3}/.test(text) ? undefined : reject(err)));
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
    socket.end(
      `${head}\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}

t.test(
  'a configured token cannot be walked around by spelling the request target differently (real socket)',
  async (t) => {
    const app = buildApp({ auth: { bearer: TOKEN }, services: { now: () => FIXED_NOW } });
    t.teardown(() => app.close());
    const port = await listening(app);
    const body = JSON.stringify(example('memcached-sync'));
    t.equal(
      await raw(port, `POST /hooks/memcached/sync HTTP/1.1\r\nauthorization: Bearer ${TOKEN}`, body),
      200,
      'the plain path with the token',
    );
    const targets = [
      '/hooks/memcached/sync',
      '/%68ooks/memcached/sync',
      '/%68%6f%6f%6b%73/memcached/sync',
      '/hooks/%6demcached/sync',
      '/hooks/memcached/%73ync',
      `http://127.0.0.1:${port}/hooks/memcached/sync`,
      'http://evil.example/hooks/memcached/sync',
      '//hooks/memcached/sync',
      '/hooks//memcached/sync',
      '/./hooks/memcached/sync',
      '/x/../hooks/memcached/sync',
      '/hooks/memcached/sync/',
      '/hooks/memcached/sync?x=/healthz',
      '/hooks/memcached/sync;a=b',
      '/HOOKS/memcached/sync',
      '/hooks%2Fmemcached%2Fsync',
    ];
    for (const target of targets) {
      const status = await raw(port, `POST ${target} HTTP/1.1`, body);
      t.ok(status === 401 || status === 404 || status === 400, `POST ${target} without the token: ${status}`);
    }
    for (const target of [
      '/%68ooks/memcached/sync',
      `http://127.0.0.1:${port}/hooks/memcached/sync`,
      '/hooks/memcached/sync?a=1',
    ]) {
      t.equal(
        await raw(port, `POST ${target} HTTP/1.1\r\nauthorization: Bearer wrong-token-xxxxxxxx`, body),
        401,
        `${target}: a wrong token is 401`,
      );
    }
  },
);

/** Clients that record every call, so a test can say that nothing reached the API server, etcd or AWS. */
function recordingDeps(calls: string[]): Pick<AppOptions, 'services' | 'clients'> {
  const recorder = (dependency: string) => failingClient(calls, dependency, 'recorded');
  return {
    services: {
      now: () => FIXED_NOW,
      kube: () => {
        calls.push('kube');
        return recorder('kube');
      },
    },
    clients: {
      etcdcluster: {
        etcd: () => {
          calls.push('etcdClient');
          return recorder('etcd');
        },
      },
      s3: {
        aws: async () => {
          calls.push('aws');
          return recorder('aws');
        },
      },
    },
  };
}

const etcdCluster = etcdClusterRequest;

const s3 = (finalizing = false) => ({
  controller: {},
  parent: {
    apiVersion: 'systek.no/v1',
    kind: 'S3',
    metadata: { name: 'bucket', namespace: 'default', uid: 'u-s3', generation: 1 },
    spec: { bucketName: 'metaops-attack-bucket', deletionPolicy: 'Delete', forceDelete: true },
    status: { bucketName: 'metaops-attack-bucket' },
  },
  children: { 'Secret.v1': {} },
  related: {},
  finalizing,
});

const tool = debugToolRequest;

const sideEffecting: Array<[string, () => unknown]> = [
  ['/hooks/etcdcluster/sync', etcdCluster],
  ['/hooks/s3/sync', () => s3()],
  ['/hooks/s3/finalize', () => s3(true)],
  ['/hooks/podbuggertool/sync', tool],
  ['/hooks/podbuggertool-injector/sync', debugInjectorRequest],
];

t.test('without credentials, hooks that act on the world answer 401 and call nothing; pure hooks answer', async (t) => {
  const calls: string[] = [];
  const app = buildApp(recordingDeps(calls));
  t.teardown(() => app.close());
  for (const [url, body] of sideEffecting) {
    const res = await app.inject({ method: 'POST', url, payload: body() as object });
    t.equal(res.statusCode, 401, `${url}: 401`);
    t.match(res.json().message, /METAOPS_AUTH_TOKEN/, `${url}: says how to configure credentials`);
  }
  t.same(calls, [], 'no call to the API server, etcd or AWS');
  for (const name of ['memcached-sync', 'podset-sync', 'mysqlcluster-sync']) {
    const res = await app.inject({ method: 'POST', url: `/hooks/${name.replace('-', '/')}`, payload: example(name) });
    t.equal(res.statusCode, 200, `${name}: a pure hook still answers without credentials`);
  }
  const customize = await app.inject({
    method: 'POST',
    url: '/hooks/etcdcluster/customize',
    payload: { controller: {}, parent: etcdCluster().parent },
  });
  t.equal(customize.statusCode, 200, 'a customize hook is pure');
});

t.test('with credentials, or the explicit opt-out, the same hooks act', async (t) => {
  for (const [label, options, headers] of [
    ['token', { auth: { bearer: TOKEN } }, { authorization: `Bearer ${TOKEN}` }],
    ['opt-out', { allowUnauthenticated: true }, {}],
  ] as const) {
    const calls: string[] = [];
    const app = buildApp({ ...options, ...recordingDeps(calls) });
    for (const [url, body] of sideEffecting) {
      const res = await app.inject({ method: 'POST', url, payload: body() as object, headers });
      t.not(res.statusCode, 401, `${label}: ${url} is served`);
    }
    t.ok(
      calls.includes('etcdClient') && calls.includes('aws'),
      `${label}: the hooks reached their clients (${calls.length} calls)`,
    );
    await app.close();
  }
  const calls: string[] = [];
  const app = buildApp({ auth: { bearer: TOKEN }, ...recordingDeps(calls) });
  t.teardown(() => app.close());
  const wrong = await app.inject({
    method: 'POST',
    url: '/hooks/s3/finalize',
    payload: s3(true),
    headers: { authorization: 'Bearer not-the-token-at-all' },
  });
  t.equal(wrong.statusCode, 401);
  t.same(calls, [], 'a wrong token reaches nothing');
});

t.test('a hook without the `effects` flag still gets no clients for a stranger', async (t) => {
  let reached = false;
  const app = buildApp({
    operators: [
      {
        type: 'composite',
        name: 'sneaky',
        resource: {} as any,
        childResources: [],
        clients: () => ({ aws: async () => ((reached = true), {} as never) }),
        sync: async (_request, ctx) => {
          await ctx.clients.aws();
          return { status: {}, children: [] };
        },
      },
    ],
  });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/hooks/sneaky/sync', payload: example('memcached-sync') });
  t.equal(res.statusCode, 401);
  t.notOk(reached, 'the AWS factory was never called');
});

/** An observed child of the request (a Service named after the parent, added when nothing is observed). */
function anObservedChild(req: any): any {
  const group = Object.values(req.children as Record<string, Record<string, any>>).find(
    (g) => Object.keys(g).length > 0,
  );
  if (group) return Object.values(group)[0];
  const name = req.parent.metadata.name;
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default', uid: 'u-svc' },
    spec: { ports: [{ port: 1 }] },
  };
  req.children['Service.v1'] = { [name]: service };
  return service;
}

/** A request body with `key` spliced in as a raw JSON key (an object literal's `__proto__` would set the prototype). */
function withKey(text: string, marker: string, key: string, value: string): string {
  return text.replace(`"${marker}":"${marker}"`, `${JSON.stringify(key)}:${JSON.stringify(value)}`);
}

t.test('names and keys that plain objects know (`constructor`, `__proto__`, `toString`) are just data', async (t) => {
  const app = buildApp({ services: { now: () => FIXED_NOW } });
  t.teardown(() => app.close());
  for (const kind of ['memcached', 'podset', 'mysqlcluster']) {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
      const req = example(`${kind}-sync`) as any;
      req.parent.metadata.name = name;
      // The observed children keyed by that name too, as Metacontroller keys them.
      for (const group of Object.values(req.children as Record<string, Record<string, any>>)) {
        const first = Object.values(group)[0];
        if (first) {
          for (const k of Object.keys(group)) delete group[k];
          first.metadata.name = name;
          group[name] = first;
        }
      }
      const res = await app.inject({
        method: 'POST',
        url: `/hooks/${kind}/sync`,
        payload: JSON.stringify(req),
        headers: { 'content-type': 'application/json' },
      });
      t.equal(res.statusCode, 200, `${kind} named ${name}: ${res.statusCode}`);
    }
    // `__proto__` as a label key of the parent and of an observed child, and as a child map key.
    const req = example(`${kind}-sync`) as any;
    req.parent.metadata.labels = { mark: 'mark' };
    req.parent.spec.size = -1; // invalid: every observed child must come back exactly as it is
    const child = anObservedChild(req);
    child.metadata.labels = { mark: 'mark' };
    const text = withKey(withKey(JSON.stringify(req), 'mark', '__proto__', 'x'), 'mark', '__proto__', 'y');
    const res = await app.inject({
      method: 'POST',
      url: `/hooks/${kind}/sync`,
      payload: text,
      headers: { 'content-type': 'application/json' },
    });
    t.equal(res.statusCode, 200, `${kind}: a __proto__ label is valid data, not a 400`);
    const kept = (res.json().children as any[]).find((c) => c.metadata.name === child.metadata.name);
    t.ok(
      kept && Object.hasOwn(kept.metadata.labels, '__proto__'),
      `${kind}: the child's __proto__ label is returned as it was`,
    );
    t.equal(Object.getPrototypeOf(kept.metadata.labels), Object.prototype);
  }
});

t.test(
  'nesting: well past what Kubernetes objects use is answered; deeper than the stated limit is a clear 400',
  async (t) => {
    const app = buildApp({ services: { now: () => FIXED_NOW } });
    t.teardown(() => app.close());
    for (const [depth, expected] of [
      [900, 200],
      [2000, 400],
      [200_000, 400],
    ] as const) {
      for (const kind of ['memcached', 'podset', 'mysqlcluster']) {
        const req = example(`${kind}-sync`) as any;
        req.parent.spec.size = -1; // invalid: observed children are returned unchanged, nesting and all
        const child = anObservedChild(req);
        (child.spec ??= {}).affinity = 'DEEP';
        const text = JSON.stringify(req).replace('"DEEP"', '{"a":'.repeat(depth) + '1' + '}'.repeat(depth));
        const res = await app.inject({
          method: 'POST',
          url: `/hooks/${kind}/sync`,
          payload: text,
          headers: { 'content-type': 'application/json' },
        });
        t.equal(res.statusCode, expected, `${kind}, ${depth} levels: ${res.statusCode}`);
        if (expected === 400) t.match(res.json().message, /nests deeper than 1000 levels/);
        else t.equal(JSON.stringify(res.json()).split('{"a":').length - 1, depth, 'the nesting comes back whole');
      }
    }
    // Brackets inside strings are not nesting.
    const req = example('memcached-sync') as any;
    req.parent.metadata.annotations = { note: '['.repeat(5000) + '{'.repeat(5000) };
    t.equal((await app.inject({ method: 'POST', url: '/hooks/memcached/sync', payload: req })).statusCode, 200);
  },
);

t.test('malformed observed data is an answer, not a 500', async (t) => {
  const app = buildApp({ services: { now: () => FIXED_NOW } });
  t.teardown(() => app.close());
  const req = example('mysqlcluster-sync') as any;
  const sts = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: req.parent.metadata.name, namespace: 'default' },
    spec: { volumeClaimTemplates: [null, 'x', { metadata: null }] },
  };
  req.children['StatefulSet.apps/v1'] = { [sts.metadata.name]: sts };
  const res = await app.inject({ method: 'POST', url: '/hooks/mysqlcluster/sync', payload: req });
  t.equal(res.statusCode, 200, `volumeClaimTemplates: [null, ...]: ${res.statusCode}`);
});

t.test('sizes: the stated maxima are served; past them, InvalidSpec and every child kept', async (t) => {
  const app = buildApp({ services: { now: () => FIXED_NOW } });
  t.teardown(() => app.close());
  for (const [kind, max] of [
    ['podset', 1000],
    ['memcached', 1000],
    ['mysqlcluster', 9],
  ] as const) {
    const at = example(`${kind}-sync`) as any;
    at.parent.spec.size = max;
    const ok = await app.inject({ method: 'POST', url: `/hooks/${kind}/sync`, payload: at });
    t.equal(ok.statusCode, 200);
    t.not(ok.json().status.conditions[0].reason, 'InvalidSpec', `${kind} at ${max}: served`);
    for (const size of [max + 1, 2147483647]) {
      const req = example(`${kind}-sync`) as any;
      req.parent.spec.size = size;
      const observed = Object.values(req.children as Record<string, Record<string, any>>).flatMap((g) =>
        Object.values(g).map((c) => `${c.kind}/${c.metadata.name}`),
      );
      const started = Date.now();
      const res = await app.inject({ method: 'POST', url: `/hooks/${kind}/sync`, payload: req });
      t.equal(res.statusCode, 200);
      t.match(
        res.json().status.conditions[0],
        { reason: 'InvalidSpec', message: new RegExp(`less or equal to ${max}`) },
        `${kind} at ${size}`,
      );
      const answered = (res.json().children as any[]).map((c) => `${c.kind}/${c.metadata.name}`);
      t.same(
        answered.filter((n) => observed.includes(n)).sort(),
        [...observed].sort(),
        `${kind} at ${size}: every observed child kept`,
      );
      // A refused spec adds nothing but the pods' NetworkPolicy, and that only beside pods it keeps (the example's
      // PodSet observes pods; lib/network-policy.ts keptWithPolicies).
      const added = answered.filter((n) => !observed.includes(n));
      const policy = `NetworkPolicy/${req.parent.metadata.name}-${kind}`;
      t.same(
        added,
        kind === 'podset' ? [policy] : added.filter((n) => n === policy),
        `${kind} at ${size}: nothing made but the pods' policy`,
      );
      t.ok(Date.now() - started < 2000, 'answered at once');
    }
  }
});

t.test('refusals are logged with their reason; credentials and raw bytes never are', async (t) => {
  const logs = captureLogs();
  const app = buildApp({
    logger: { level: 'trace', stream: logs.stream } as any,
    auth: { bearer: TOKEN },
    services: { now: () => FIXED_NOW },
  });
  t.teardown(() => app.close());
  const port = await listening(app);
  const body = JSON.stringify(example('memcached-sync'));
  t.equal(
    await raw(port, 'POST /hooks/memcached/sync HTTP/1.1\r\nauthorization: Bearer wrong-secret-in-header', body),
    401,
  );
  t.equal(
    await raw(port, `POST /hooks/memcached/sync HTTP/1.1\r\nauthorization: Bearer ${TOKEN}`, '{"controller":{}}'),
    400,
  );
  // Malformed HTTP carrying the real token: refused, and the bytes are not written to the log.
  t.equal(
    await raw(port, `POST /hooks/memcached/sync HTTP/1.1\r\nauthorization: Bearer ${TOKEN}\r\nbad header line`, body),
    400,
  );
  t.equal(await raw(port, `GET /nowhere HTTP/1.1`), 404);
  await new Promise((r) => setTimeout(r, 50));
  const lines = logs
    .text()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  t.ok(
    lines.some((l) => l['statusCode'] === 401 && /credentials/.test(String(l['reason']))),
    'the 401 is logged with its reason',
  );
  t.ok(
    lines.some((l) => l['statusCode'] === 400 && /parent/.test(String(l['reason']))),
    'the 400 is logged with its reason',
  );
  t.ok(
    lines.some((l) => l['statusCode'] === 400 && l['msg'] === 'malformed HTTP request refused'),
    'the malformed request is logged',
  );
  t.ok(
    lines.some((l) => l['statusCode'] === 404),
    'the 404 is logged',
  );
  t.notMatch(logs.text(), TOKEN, 'the token is never logged');
  t.notMatch(logs.text(), 'wrong-secret-in-header', 'nor a wrong one');
  t.notMatch(logs.text(), 'rawPacket', 'nor raw packets');
});

t.test('a dependency that answers without end is cut off at the stated size, not buffered', async (t) => {
  const { createServer } = await import('node:http');
  const { call, AnswerTooLargeError, MAX_READ_BYTES } = await import('../../lib/http.js');
  let sent = 0;
  const server = createServer((req, res) => {
    if (req.url === '/declared') {
      res.writeHead(200, { 'content-length': String(400 * 1024 * 1024) });
      res.write('x');
      return;
    }
    // 400 MB in 64 KiB chunks, for as long as the client reads.
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const pump = () => {
      while (sent < 400 * 1024 * 1024) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.on('close', () => res.removeAllListeners('drain'));
    pump();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => server.close());
  const port = (server.address() as { port: number }).port;
  const options = { method: 'GET', timeoutMs: 20_000, timeoutError: () => new Error('timeout') };
  await t.rejects(call(new URL(`http://127.0.0.1:${port}/stream`), options), AnswerTooLargeError);
  t.ok(
    sent < 64 * 1024 * 1024,
    `the server sent ${Math.round(sent / 1048576)} MiB before the call gave up (limit ${MAX_READ_BYTES / 1048576} MiB)`,
  );
  await t.rejects(
    call(new URL(`http://127.0.0.1:${port}/declared`), options),
    AnswerTooLargeError,
    'a declared length over the limit: refused before reading',
  );
  const small = await call(new URL(`http://127.0.0.1:${port}/stream`), { ...options, maxBytes: 1024 }).catch(
    (e: Error) => e,
  );
  t.ok(small instanceof AnswerTooLargeError, 'the limit is per call');
});

t.test(
  'mTLS: a certificate never replaces the token, probes need none, and client names can be restricted',
  async (t) => {
    const { request } = await import('node:https');
    const { Pki } = await import('../fixtures/pki.js');
    const pki = new Pki();
    const server = pki.issue('server', '127.0.0.1', { san: 'IP:127.0.0.1' });
    const allowed = pki.issue('mc', 'metacontroller');
    const stranger = pki.issue('other', 'someone-else', { san: 'DNS:intruder.example' });
    const rogueCa = new Pki('rogue-ca');
    const rogue = rogueCa.issue('rogue', 'metacontroller');
    const app = buildApp({
      auth: { bearer: TOKEN },
      https: { ...server, ca: pki.read('ca.crt') },
      clientNames: ['metacontroller'],
      services: { now: () => FIXED_NOW },
    });
    t.teardown(() => app.close());
    const port = await listening(app);
    const body = JSON.stringify(example('memcached-sync'));
    const probe = (path: string) => path === '/healthz' || path === '/readyz';
    const call = (path: string, tls: Record<string, unknown>, headers: Record<string, string> = {}) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path,
            method: probe(path) ? 'GET' : 'POST',
            agent: false,
            ca: pki.read('ca.crt'),
            headers: { 'content-type': 'application/json', ...headers },
            ...tls,
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end(probe(path) ? undefined : body);
      });
    const bearer = { authorization: `Bearer ${TOKEN}` };
    t.equal(await call('/hooks/memcached/sync', allowed, bearer), 200, 'allowed certificate and the token: served');
    t.equal(await call('/hooks/memcached/sync', allowed), 401, 'allowed certificate without the token: 401');
    t.equal(await call('/%68ooks/memcached/sync', allowed), 401, 'nor by another spelling');
    t.equal(await call('/hooks/memcached/sync', {}, bearer), 401, 'the token without a certificate: 401');
    t.equal(
      await call('/hooks/memcached/sync', stranger, bearer),
      403,
      'a certificate of the CA with another name: 403',
    );
    t.equal(
      await call('/hooks/memcached/sync', rogue, bearer),
      401,
      'a certificate of another CA with the allowed name: 401',
    );
    t.equal(await call('/healthz', {}), 200, 'probes need no certificate');
    t.equal(await call('/readyz', {}), 200);
  },
);

t.test('a request for no route, any method, is refused before its body is read (and is logged)', async (t) => {
  const logs = captureLogs();
  const app = buildApp({
    logger: { level: 'info', stream: logs.stream } as any,
    auth: { bearer: TOKEN },
    services: { now: () => FIXED_NOW },
  });
  t.teardown(() => app.close());
  const port = await listening(app);
  // Not valid JSON: a parser that read it would answer 400; refused before reading, it is a 404.
  const junk = '{'.repeat(10) + 'x';
  for (const [method, target] of [
    ['POST', '/nope'],
    ['POST', '/healthz'],
    ['PUT', '/hooks/s3/finalize'],
    ['DELETE', '/hooks/s3/finalize'],
    ['OPTIONS', '/hooks/memcached/sync'],
    ['PATCH', '/hooks/etcdcluster/sync'],
    ['POST', 'http://u:SECRET-IN-URL@127.0.0.1/nope?token=SECRET-IN-QUERY'],
  ]) {
    t.equal(await raw(port, `${method} ${target} HTTP/1.1`, junk), 404, `${method} ${target}: 404 without parsing`);
  }
  t.equal(await raw(port, 'POST /hooks/%zz/sync HTTP/1.1', junk), 400, 'an undecodable target: 400');
  const memory = process.memoryUsage().rss;
  const dense = '[' + Array(2_000_000).fill('{}').join(',') + ']';
  t.equal(await raw(port, 'POST /nope HTTP/1.1', dense), 404);
  t.ok(process.memoryUsage().rss - memory < 100 * 1024 * 1024, 'a dense body to no route costs no parse');
  await new Promise((r) => setTimeout(r, 50));
  t.match(logs.text(), /"statusCode":404/);
  t.match(logs.text(), /"statusCode":400.*FST_ERR_BAD_URL|"statusCode":400/);
  t.notMatch(logs.text(), /SECRET-IN-URL|SECRET-IN-QUERY/, 'user information and queries are not logged');
});

t.test(
  'a PodSet cannot make a huge answer: image and command are bounded, and so is size times their length',
  async (t) => {
    const app = buildApp({ services: { now: () => FIXED_NOW } });
    t.teardown(() => app.close());
    const post = async (spec: Record<string, unknown>) => {
      const req = example('podset-sync') as any;
      req.parent.spec = spec;
      const res = await app.inject({ method: 'POST', url: '/hooks/podset/sync', payload: req });
      return {
        status: res.statusCode,
        bytes: res.body.length,
        ready: res.json().status?.conditions?.find((c: any) => c.type === 'Ready'),
        // The pods answered (the NetworkPolicy of the pods aside).
        children: res.json().children?.filter((c: any) => c.kind === 'Pod').length,
      };
    };
    const longImage = await post({ size: 1000, image: 'x'.repeat(100_000) });
    t.match(
      longImage,
      { status: 200, ready: { reason: 'InvalidSpec', message: /spec\.image/ }, children: 3 },
      'a 100 KB image: InvalidSpec, the three observed pods kept',
    );
    t.ok(longImage.bytes < 100_000, `answer ${longImage.bytes} bytes`);
    const manyArgs = await post({ size: 1, command: Array(20_000).fill('x') });
    t.match(manyArgs, { status: 200, ready: { reason: 'InvalidSpec' } }, '20 000 arguments: InvalidSpec');
    // 62 arguments of 4096: each pod, and Metacontroller's last-applied copy of it, within the API server's 256 KiB of
    // annotations (64 of them are not: InvalidSpec on any number of pods, test/podset/sync-request-bound-counts-...).
    const command = Array(62).fill('y'.repeat(4096));
    const heavy = await post({ size: 1000, command });
    t.match(
      heavy,
      {
        status: 200,
        ready: { reason: 'InvalidSpec', message: /more than the 4\.0 MiB a PodSet may have/ },
        children: 3,
      },
      'size x command over 4 MiB: InvalidSpec',
    );
    t.ok(heavy.bytes < 100_000, `answer ${heavy.bytes} bytes`);
    const fits = await post({ size: 10, command });
    t.equal(fits.children, 10, 'the same command on 10 pods is served');
    t.ok(fits.bytes < 4 * 1024 * 1024 * 1.1);
    // Not the schema's 1000: the sync requests' bound counts the namespace's NetworkPolicies too (docs/podset.md).
    const many = await post({ size: 600 });
    t.equal(many.children, 600, '600 pods of the default pod are served', { ready: many.ready });
  },
);

t.test('JSON inside an annotation is held to the same nesting limit (last-applied-configuration)', async (t) => {
  const app = buildApp({ services: { now: () => FIXED_NOW } });
  t.teardown(() => app.close());
  for (const kind of ['memcached', 'podset', 'mysqlcluster']) {
    const req = example(`${kind}-sync`) as any;
    req.parent.spec.size = -1; // invalid: observed children are handed back as they are
    const child = anObservedChild(req);
    const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    child.metadata.annotations = {
      'metacontroller.k8s.io/last-applied-configuration': `{"apiVersion":"v1","kind":"${child.kind}","metadata":{"name":"${child.metadata.name}"},"spec":${deep}}`,
    };
    const res = await app.inject({ method: 'POST', url: `/hooks/${kind}/sync`, payload: req });
    t.equal(res.statusCode, 200, `${kind}: ${res.statusCode}`);
    const kept = (res.json().children as any[]).find((c) => c.metadata.name === child.metadata.name);
    t.ok(kept, `${kind}: the child is kept (its sanitised copy)`);
  }
});

t.test(
  'spec keys named __proto__ stay data: defaults are applied without losing them or reading through them',
  async (t) => {
    const { Type } = await import('@sinclair/typebox');
    const { specParser } = await import('../../lib/spec.js');
    const parser = specParser(
      Type.Object({
        size: Type.Integer(),
        image: Type.String({ default: 'busybox' }),
        tags: Type.Optional(Type.Record(Type.String(), Type.String())),
      }),
    );
    const kept = parser.parse(JSON.parse('{"size":1,"tags":{"__proto__":"v","team":"a"}}'));
    t.ok(kept.ok);
    if (kept.ok) {
      t.ok(Object.hasOwn(kept.spec.tags!, '__proto__'), 'the __proto__ tag is kept');
      t.same(Object.keys(kept.spec.tags!), ['__proto__', 'team']);
      t.equal(kept.spec.image, 'busybox', 'defaults applied');
    }
    const inherited = parser.parse(JSON.parse('{"__proto__":{"size":2,"image":"evil/image"}}'));
    t.match(inherited, { ok: false, message: /spec\.size is required/ }, 'nothing is read through a __proto__ key');
  },
);

t.test('observed pods with malformed conditions are not ready, not a 500', async (t) => {
  const app = buildApp({ services: { now: () => FIXED_NOW } });
  t.teardown(() => app.close());
  for (const conditions of [[null], {}, 'x', 5, [5, 'Ready'], null]) {
    const req = example('podset-sync') as any;
    const pod = Object.values(req.children['Pod.v1'] as Record<string, any>)[0];
    pod.status = { phase: 'Running', conditions };
    const res = await app.inject({ method: 'POST', url: '/hooks/podset/sync', payload: req });
    t.equal(res.statusCode, 200, `conditions ${JSON.stringify(conditions)}: ${res.statusCode}`);
  }
});
